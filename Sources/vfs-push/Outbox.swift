import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore
import VFSRelayClient
import VFSRelayCommandLine
import VFSRelayProtocol

extension PushTool {
    struct Outbox: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Every transfer this device sent (or those named), per target: uploading, pending, fetching, delivered, declined, expired or cancelled.",
            discussion: "One line per target: a header and columns on a terminal, tab-separated otherwise. An ID may be any unique beginning of one.\n\nExamples:\n  vfs-push outbox 3f9c\n  vfs-push outbox --json | jq -r '.[].recipients[].status'",
            helpNames: [.long])
        @Flag(help: "Print JSON (the relay's words: unattended for pending, initiated for fetching).") var json = false
        @OptionGroup var sizes: HumanSizeOption
        @OptionGroup var options: PushOptions
        @Argument(help: ArgumentHelp("Show only these transfers.", valueName: "id")) var ids: [String] = []

        func run() async throws {
            let session = try options.session()
            let rows = try await session.withClient { try await SentTransfers(session: session, client: $0).listing(ids) }
            if json { return try JSONOutput.print(rows) }
            // One line per target, grouped by user (the relay's order); "pending" is the
            // relay's unattended, "fetching" its initiated.
            Listing.print(["ID", "SIZE", "SENT", "EXPIRES", "USER", "DEVICE", "STATUS"], rows.flatMap { row in
                row.recipients.map { target in
                    [row.id, Listing.size(row.size, human: sizes.human), DateText.iso8601(row.created), DateText.iso8601(row.expires),
                     DisplayText.printable(target.user ?? "-"), DisplayText.printable(target.name),
                     [.unattended: "pending", .initiated: "fetching"][target.status] ?? target.status.rawValue]
                }
            })
        }
    }
}

extension PushTool {
    struct Resume: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Finish pushes that were interrupted (from the relay's offset).",
            discussion: "Example:\n  vfs-push resume")
        @OptionGroup var progressOptions: ProgressOptions
        var quiet: Bool { progressOptions.quiet }
        @OptionGroup var options: PushOptions

        func run() async throws {
            let pending = try PushSpool.pending()
            guard !pending.isEmpty else { return Diagnostics.info("no interrupted push") }
            try await options.session().withClient { client in
                try await TransferSender(client: client, report: .terminal(quiet: quiet)).resume(pending, announce: printID)
            }
        }
    }
}

extension PushTool {
    struct Wait: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Wait until transfers were fetched or declined by every target, or expired or were cancelled.",
            discussion: """
            An ID may be any unique beginning of one. Exit status 0 when every target of every \
            transfer fetched it; 1 when a target declined one or let it expire, or it was cancelled \
            (vfs-push cancel).

            Example:
              id=$(vfs-push -d phone big.iso) && vfs-push wait "$id"
            """)
        @OptionGroup var options: PushOptions
        @Argument(help: ArgumentHelp("The transfers' ids (vfs-push outbox lists them).", valueName: "id")) var ids: [String]

        func run() async throws {
            let session = try options.session()
            try await session.withClient { client in
                let sent = SentTransfers(session: session, client: client)
                for id in try await sent.ids(ids) { try await sent.waitForDelivery(id) }
            }
        }
    }
}

extension PushTool {
    struct Cancel: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Withdraw a transfer: copies not yet fetched expire and the relay deletes the ciphertext.",
            discussion: "An ID may be any unique beginning of one.\n\nExample:\n  vfs-push cancel 3f9c0d")
        @Argument(help: ArgumentHelp("The transfer's id (vfs-push outbox lists them).", valueName: "id")) var reference: String
        @OptionGroup var options: PushOptions

        func run() async throws {
            let session = try options.session()
            try await session.withClient { try await SentTransfers(session: session, client: $0).cancel(reference) }
        }
    }
}
