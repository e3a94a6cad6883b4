import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore
import VFSRelayClient
import VFSRelayProtocol

/// An outbox entry with device names, as `vfs-push outbox --json` prints it.
struct OutboxListing: Encodable {
    struct Target: Encodable {
        var device: String
        /// The device's user (email): yours, or a person sent to with --to.
        var user: String?
        var name: String
        var status: TransferStatus
        var updated: Date
    }
    var id: String
    var size: Int64
    var created: Date
    var expires: Date
    var recipients: [Target]
}

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
            var (entries, names) = try await session.withClient { client in
                (try await client.outbox(), try await Self.deviceNames(session: session, client: client))
            }
            if !ids.isEmpty {
                let chosen = try ids.map { try RelaySession.uniqueID($0, among: entries.map(\.id)) }
                entries = chosen.map { id in entries.first { $0.id == id }! }
            }
            let rows = entries.map { entry in
                OutboxListing(id: entry.id, size: entry.size, created: entry.created, expires: entry.expires,
                              recipients: entry.recipients.map { .init(device: $0.device, user: $0.user, name: names[$0.device] ?? $0.device,
                                                                       status: $0.status, updated: $0.updated) })
            }
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

extension PushTool.Outbox {
    /// Device names by id: this user's from the relay's list; other users' (sent to with
    /// --to) from their device chains as this device pinned them (a device removed from a
    /// chain since keeps its id).
    static func deviceNames(session: RelaySession, client: RelayClient) async throws -> [String: String] {
        var names = Dictionary(try await client.devices().map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let pins = try ChainPins(home: session.home)
        for user in pins.pins.keys.sorted() where user != session.config.user {
            guard let chain = try? await session.colleagueChain(user, client: client) else { continue }
            for (id, device) in chain.devices where names[id] == nil { names[id] = device.name }
        }
        return names
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
            let pending = try Spool.pending()
            guard !pending.isEmpty else { return Diagnostics.info("no interrupted push") }
            try await options.session().withClient { client in
                var dropped = 0
                for dir in pending {
                    do {
                        printID(try await Spool.deliver(dir, client: client, quiet: quiet).id)
                    } catch let error as ToolError where error.exitStatus == .dataError {
                        // Killed while sealing: removed; the others still go.
                        Diagnostics.warn(error.message)
                        dropped += 1
                    }
                }
                if dropped > 0 {
                    throw ToolError("\(dropped) interrupted push\(dropped == 1 ? " was" : "es were") not sealed to the end and cannot be resumed",
                                    exit: .dataError, hints: ["push those files again"])
                }
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
            let outbox = try await session.withClient { try await $0.outbox() }
            for id in try ids.map({ try RelaySession.uniqueID($0, among: outbox.map(\.id)) }) {
                try await Self.waitForDelivery(id, session: session)
            }
        }

        /// Polls the outbox until no copy of `id` is waiting; 1 (undelivered) if any
        /// target declined or let it expire, or the transfer was cancelled. `onePerUser`
        /// (vfs-push --to … --wait): done once one device of each user fetched it; 1 when
        /// every copy of some user ended otherwise.
        static func waitForDelivery(_ id: String, session: RelaySession, onePerUser: Bool = false) async throws {
        try await session.withClient { client in
            while true {
                guard let entry = try await client.outbox().first(where: { $0.id == id }) else {
                    throw RelayClientError.noSuchTransfer(id)
                }
                let byUser = Dictionary(grouping: entry.recipients) { $0.user ?? "" }
                let settled = onePerUser
                    ? byUser.values.allSatisfy { copies in copies.contains { $0.status == .delivered } || copies.allSatisfy { !$0.status.isLive } }
                    : entry.recipients.allSatisfy { !$0.status.isLive }
                if settled {
                    let missed = onePerUser
                        ? byUser.values.filter { copies in !copies.contains { $0.status == .delivered } }.flatMap { $0 }
                        : entry.recipients.filter { $0.status != .delivered }
                    if missed.isEmpty { return }
                    let names = try await PushTool.Outbox.deviceNames(session: session, client: client)
                    throw RelayClientError.undelivered(transfer: id, devices: missed.map { target in
                        let name = names[target.device] ?? target.device
                        let shown = target.user.map { $0 == session.config.user ? name : "\(name) of \($0)" } ?? name
                        return "\(shown) (\(target.status.rawValue))"
                    })
                }
                try await Task.sleep(for: .seconds(1))
            }
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
            try await options.session().withClient { client in
                let id = try RelaySession.uniqueID(reference, among: try await client.outbox().map(\.id))
                do {
                    try await client.cancel(id)
                } catch RelayClientError.rejected(404, _, _) {
                    throw RelayClientError.noSuchTransfer(id)
                }
            }
        }
    }
}
