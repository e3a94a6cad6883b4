import ArgumentParser
import Foundation
import VFSCommandLine

struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print counts: organisations, users, devices, blobs, transfers.")

    @OptionGroup var data: DataOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let (store, _) = try await data.open()
        let stats = try await store.stats()
        if json { return try JSONOutput.print(stats) }
        print("""
            organisations \(stats.organisations)
            users \(stats.users)
            devices \(stats.activeDevices) active, \(stats.devices) enrolled
            groups \(stats.groups)
            uploads \(stats.uploads)
            blobs \(stats.blobs) (\(stats.blobBytes) bytes)
            transfers waiting \(stats.liveTransfers)
            cloud files \(stats.cloudFiles)
            policy items \(stats.items)
            events \(stats.events)
            """)
    }
}
