import ArgumentParser
import Foundation
import VFSCommandLine
import VFSRelayServer

struct GC: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Expire transfers and uploads, recount blob references, delete orphan blobs (what serve runs on a timer).",
        discussion: "An upload expires once it got no bytes for serve's --upload-idle-expiry (recorded with it by the serving relay, so gc needs no such option) or 24 h after it was made: its file goes, its bytes leave the user's quota, and the copies of a transfer made of it while it uploaded expire.")

    @OptionGroup var data: DataOptions
    @Option(help: ArgumentHelp("Files younger than this many seconds are never taken for orphans (0 when the relay is stopped).",
                               valueName: "seconds"))
    var grace = 60
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        guard grace >= 0 else { throw ToolError.usage("--grace must be 0 or more") }
        let (store, blobs) = try await data.open()
        var configuration = try data.configuration()
        configuration.orphanGrace = TimeInterval(grace)
        let swept: GarbageReport?
        do {
            swept = try await RelayMaintenance(store: store, blobs: blobs, configuration: configuration).sweepOnce()
        } catch let error as BlobStoreError {
            throw ToolError("cannot sweep the blobs: \(error)", exit: .ioError,
                            hints: configuration.objectStore == nil ? [] : ["check --blobs (endpoint, bucket) and the S3 credentials"])
        }
        guard let report = swept else {
            throw ToolError("another sweep is running on this relay database", exit: .temporaryFailure,
                            hints: ["a serving relay sweeps on its own timer; try again in a minute"])
        }
        if json { return try JSONOutput.print(report) }
        print("""
            released blobs \(report.releasedBlobs)
            expired uploads \(report.expiredUploads)
            orphan files \(report.orphanFiles)
            orphan rows \(report.orphanRows)
            fixed reference counts \(report.fixedReferenceCounts)
            pruned events \(report.prunedEvents)
            dropped cloud versions \(report.droppedVersions)
            """)
    }
}
