import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore

struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List devices: user, id, name, platform, state.")

    @OptionGroup var data: DataOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let (store, _) = try await data.open()
        let devices = try await store.allDevices()
        if json { return try JSONOutput.print(devices) }
        for entry in devices {
            let device = entry.device
            print("\(entry.user)\t\(device.id)\t\(DisplayText.printable(device.name))\t\(DisplayText.printable(device.platform))\t\(device.invalidated == nil ? "active" : "logged out")")
        }
    }
}
