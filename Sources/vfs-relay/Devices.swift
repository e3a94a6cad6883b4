import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore
import VFSRelayServer

struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List devices: user, id, name, platform, state; or revoke one.",
        subcommands: [List.self, Revoke.self], defaultSubcommand: List.self, aliases: ["device"])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List devices: user, id, name, platform, state.")

        @OptionGroup var data: DataOptions
        @Flag(help: "Print JSON.") var json = false
        @Option(help: ArgumentHelp("Only this user's devices.", valueName: "email")) var user: String?
        @Flag(help: "Only devices not logged out.") var active = false

        func run() async throws {
            let (store, _) = try await data.open()
            let devices = try await store.allDevices().filter { entry in
                (user == nil || entry.user == user) && (!active || entry.device.invalidated == nil)
            }
            if json { return try JSONOutput.print(devices) }
            for entry in devices {
                let device = entry.device
                print("\(entry.user)\t\(device.id)\t\(DisplayText.printable(device.name))\t\(DisplayText.printable(device.platform))\t\(device.invalidated == nil ? "active" : "logged out")")
            }
        }
    }
}

extension Devices {
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Log a device out (the operator's revoke): its token is refused at once, it gets the logout event, and what waited for it expires; it erases nothing (only its user's device chain removes a device).")

        @OptionGroup var data: DataOptions
        @Argument(help: ArgumentHelp("The device's id, or a unique start of it.", valueName: "id")) var id: String

        func run() async throws {
            let (store, blobs) = try await data.open()
            let all = try await store.allDevices()
            let exact = all.filter { $0.device.id == id }
            let matches = exact.isEmpty ? all.filter { $0.device.id.hasPrefix(id) } : exact
            guard !id.isEmpty, matches.count == 1, let entry = matches.first else {
                if matches.count > 1 {
                    throw ToolError.usage("\"\(id)\" is the start of \(matches.count) device ids", hints: ["give more of it; vfs-relay devices lists them"])
                }
                throw ToolError("no device \"\(DisplayText.printable(id))\"", exit: .noInput, hints: ["vfs-relay devices lists them"])
            }
            guard entry.device.invalidated == nil else {
                FileHandle.standardError.write(Data("vfs-relay: \(entry.device.id) (\(DisplayText.printable(entry.device.name))) was already logged out\n".utf8))
                return
            }
            let owner = try await findUser(entry.user, in: store)
            for blob in try await store.invalidateDevice(id: entry.device.id, user: owner.id, now: Date()) { await blobs.deleteBlob(blob) }
            data.report("logged out \(entry.device.id) (\(DisplayText.printable(entry.device.name))) of \(entry.user)")
        }
    }
}
