import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore
import VFSRelayClient
import VFSRelayTransfers
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
    struct Resume: AsyncVFSCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            abstract: "Finish pushes that were interrupted (from the relay's offset); list or withdraw them.",
            discussion: """
            Each interrupted push in $VFS_HOME/outgoing is sent in turn, its transfer's id \
            printed; one that fails does not stop the others. A push that can never be sent \
            is reported and dropped (its files are gone from the spool; push them again): one \
            killed before its bundle was sealed to the end, one whose transfer was cancelled \
            (vfs-push cancel), one whose upload the relay no longer has when the spool holds \
            only its tail, and one the relay refuses for good (a target device revoked, a \
            person removed or disabled: 400, 403, 404). One that may go later (the relay \
            unreachable, busy or full, the quota) is reported and kept. A push interrupted \
            by Ctrl-C, kill or a hang-up after its bundle was sealed is kept and says so; \
            before, it is withdrawn.

            --list shows the pending pushes (ID, the transfer made while it uploaded, sealed \
            or not, size, targets); --drop ID withdraws one (its transfer cancelled, its \
            upload removed from the relay, its spool removed). An ID is a push's id or its \
            transfer's, or any unique beginning of either.

            A push that fails for a while (the relay down or restarting, its disk full, busy) \
            is resumed again with growing waits for up to --retry-for (5m by default, \
            $VFS_RETRY_FOR; 0 never), the time shared by all the pushes of the run.

            Exit status: 0 every push was sent (or none was pending); 1 some could never be \
            sent and were dropped (each named on stderr); 66 no such pending push (--drop); \
            otherwise the status of the first push kept (69 relay unreachable, 73 quota, 75 \
            temporary, 77 a revoked token), each named on stderr.

            Examples:
              vfs-push resume
              vfs-push resume --list
              vfs-push resume --drop 3f9c
            """)
        @Flag(help: "List the pending pushes instead of sending them.") var list = false
        @Option(help: ArgumentHelp("Withdraw the pending push ID (its transfer cancelled, its upload and spool removed).", valueName: "id"))
        var drop: String?
        @OptionGroup var progressOptions: ProgressOptions
        var quiet: Bool { progressOptions.quiet }
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: PushOptions

        func check() throws {
            if list && drop != nil { throw ToolError.usage("choose one of --list and --drop ID") }
            _ = try retry.seconds(default: 0)
        }

        func run() async throws {
            let pending = PushSpool.pending(home: try VFSPaths.current.home)
            if list { return Self.printList(pending) }
            if let drop {
                let dir = try Self.find(drop, in: pending)
                let session = try options.session()
                try await session.withClient { client in
                    await TransferSender(client: client, home: session.home, report: .terminal(quiet: quiet)).drop(dir)
                }
                return Diagnostics.info("dropped push \(PushSpool.id(of: dir))")
            }
            guard !pending.isEmpty else { return Diagnostics.info("no interrupted push") }
            let session = try options.session(retry: try retry.policy(quiet: quiet))
            try await session.withClient { client in
                try await TransferSender(client: client, home: session.home, report: .terminal(quiet: quiet)).resume(pending, announce: printID)
            }
        }

        static func printList(_ pending: [String]) {
            Listing.print(["ID", "TRANSFER", "STATE", "SIZE", "TARGETS"], pending.map { dir in
                let spool = try? PushSpool.loadPending(dir)
                let targets = (spool?.names ?? []) + (spool?.users ?? []).map(\.user)
                return [PushSpool.id(of: dir), spool?.transfer ?? "-", spool?.length == nil ? "unsealed" : "sealed",
                        spool?.length.map { String($0) } ?? "-", DisplayText.printable(targets.joined(separator: ","))]
            })
        }

        /// The one pending push `reference` names (its id or its transfer's, or a unique beginning).
        static func find(_ reference: String, in pending: [String]) throws -> String {
            let matches = pending.filter { dir in
                PushSpool.id(of: dir).hasPrefix(reference) || ((try? PushSpool.loadPending(dir))?.transfer?.hasPrefix(reference) ?? false)
            }
            guard !reference.isEmpty, let first = matches.first else {
                throw TransferError.noPendingPush(spool: reference)
            }
            guard matches.count == 1 else {
                throw RelayClientError.ambiguous(what: "pending push", reference: reference, candidates: matches.map { PushSpool.id(of: $0) })
            }
            return first
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
            discussion: """
            An ID may be any unique beginning of one. Under its organisation's minimum \
            retention (vfs-relay org set --min-retention) a transfer a copy of which still waits \
            cannot be cancelled before the retention ends: the relay refuses (403 retained) and \
            this exits 77; the relay's operator may remove it (vfs-relay transfers rm).

            Exit status: 0 cancelled; 64 usage; 66 no such transfer; 69 relay unreachable; 77 \
            retained by the organisation, a send-only device's token, or a revoked token.

            Example:
              vfs-push cancel 3f9c0d
            """)
        @Argument(help: ArgumentHelp("The transfer's id (vfs-push outbox lists them).", valueName: "id")) var reference: String
        @OptionGroup var options: PushOptions

        func run() async throws {
            let session = try options.session()
            try await session.withClient { try await SentTransfers(session: session, client: $0).cancel(reference) }
        }
    }
}
