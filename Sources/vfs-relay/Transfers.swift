import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore

struct Transfers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The operator's hand on transfers: remove one, retained or not.",
        subcommands: [Remove.self], aliases: ["transfer"])

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm",
            abstract: "Remove a transfer: its copies still waiting are cancelled and its ciphertext deleted, even before its organisation's minimum retention ends.",
            discussion: """
            What no device may do under `vfs-relay org set --min-retention` (issue 48): the \
            operator's removal, recorded in the audit log as transfer.remove (actor operator, \
            the copies it cancelled, the retention it cut short). Delivered copies stay \
            delivered. A blob locked by S3 Object Lock (governance mode) is deleted with \
            x-amz-bypass-governance-retention, which the relay's key must be allowed. The id is the whole one (vfs-push outbox on \
            the sender, or the admin page's outbox, shows it).

            Exit status: 0 removed; 64 usage; 66 no such transfer, or no relay database.

            Example:
              vfs-relay transfers rm 3f9c0d2e8a1b4c5d6e7f8091a2b3c4d5
            """)

        @OptionGroup var data: DataOptions
        @Argument(help: ArgumentHelp("The transfer's id.", valueName: "id")) var id: String

        func run() async throws {
            guard id.utf8.count == 32, id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                throw ToolError.usage("\"\(DisplayText.printable(id))\" is not a transfer id", hints: ["give its 32 hex digits (vfs-push outbox lists them)"])
            }
            let (store, blobs) = try await data.open()
            let removed = try await store.removeTransfer(id: id, now: Date())
            for blob in removed.released { await blobs.deleteLockedBlob(blob) }
            if let upload = removed.upload { await blobs.deleteUpload(upload) }
            let retained = removed.retainedUntil.map { "; it was retained until \(DateText.iso8601($0))" } ?? ""
            data.report("removed transfer \(id) (\(removed.cancelled) waiting cop\(removed.cancelled == 1 ? "y" : "ies") cancelled\(retained))")
        }
    }
}
