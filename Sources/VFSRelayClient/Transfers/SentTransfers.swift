#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol

/// An outbox entry with device names, as `vfs-push outbox --json` prints it.
package struct OutboxListing: Encodable {
    package struct Target: Encodable {
        package var device: String
        /// The device's user (email): yours, or a person sent to with --to.
        package var user: String?
        package var name: String
        package var status: TransferStatus
        package var updated: Date
    }
    package var id: String
    package var size: Int64
    package var created: Date
    package var expires: Date
    package var recipients: [Target]
}

/// The transfers this device sent, as the relay's outbox keeps them: listed with device
/// names, waited for, withdrawn.
package struct SentTransfers {
    let session: RelaySession
    let client: RelayClient

    package init(session: RelaySession, client: RelayClient) {
        self.session = session
        self.client = client
    }

    /// The outbox (or the transfers named by unique beginnings of their ids), with names.
    package func listing(_ references: [String]) async throws -> [OutboxListing] {
        var entries = try await client.outbox()
        let names = try await deviceNames()
        if !references.isEmpty {
            let chosen = try references.map { try RelaySession.uniqueID($0, among: entries.map(\.id)) }
            entries = chosen.map { id in entries.first { $0.id == id }! }
        }
        return entries.map { entry in
            OutboxListing(id: entry.id, size: entry.size, created: entry.created, expires: entry.expires,
                          recipients: entry.recipients.map { .init(device: $0.device, user: $0.user, name: names[$0.device] ?? $0.device,
                                                                   status: $0.status, updated: $0.updated) })
        }
    }

    /// Device names by id: this user's from the relay's list; other users' (sent to with
    /// --to) from their device chains as this device pinned them (a device removed from a
    /// chain since keeps its id).
    func deviceNames() async throws -> [String: String] {
        var names = Dictionary(try await client.devices().map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let pins = try PinStore(home: session.home)
        for user in pins.chains.keys.sorted() where user != session.config.user {
            guard let chain = try? await session.colleagueChain(user, client: client) else { continue }
            for (id, device) in chain.devices where names[id] == nil { names[id] = device.name }
        }
        return names
    }

    /// The full ids of the sent transfers `references` name (any unique beginnings of them).
    package func ids(_ references: [String]) async throws -> [String] {
        let outbox = try await client.outbox()
        return try references.map { try RelaySession.uniqueID($0, among: outbox.map(\.id)) }
    }

    /// Withdraws the transfer `reference` names: copies not yet fetched expire.
    package func cancel(_ reference: String) async throws {
        let id = try await ids([reference])[0]
        do {
            try await client.cancel(id)
        } catch RelayClientError.rejected(404, _, _) {
            throw RelayClientError.noSuchTransfer(id)
        }
    }

    /// Polls the outbox until no copy of `id` is waiting; 1 (undelivered) if any
    /// target declined or let it expire, or the transfer was cancelled. `onePerUser`
    /// (vfs-push --to … --wait): done once one device of each user fetched it; 1 when
    /// every copy of some user ended otherwise.
    package func waitForDelivery(_ id: String, onePerUser: Bool = false) async throws {
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
                let names = try await deviceNames()
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
