#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// A transfer in this device's inbox with its sender as this device verified it, as
/// `vfs-fetch --json` prints it.
package struct InboxListing: Encodable {
    package var id: String, sender: String, from: String, user: String?, verified: Bool, size: Int64, sha256: String, created: Date,
                expires: Date, status: TransferStatus
    /// The sender's user is this device's own, or another whose root this device pinned
    /// (`pinned`) and confirmed with the safety code (vfs-device verify --confirm).
    package var pinned: Bool, confirmed: Bool
    /// An external transfer's file request (sent in by someone without a device, signed
    /// by nobody); absent otherwise.
    package var external: String?
}

/// The transfers sent to this device, as the relay's inbox keeps them.
package struct Inbox {
    let session: RelaySession
    let client: RelayClient

    package init(session: RelaySession, client: RelayClient) {
        self.session = session
        self.client = client
    }

    /// The inbox, only `from` USER's transfers when given; without `digests` a transfer
    /// whose upload deferred its SHA-256 may list none (`RelayClient.inbox`).
    package func entries(from user: String?, digests: Bool = true) async throws -> [InboxEntry] {
        // An external transfer is from nobody the relay knows, whoever its senderUser names.
        try await client.inbox(digests: digests).filter { entry in user.map { entry.senderUser == $0 && entry.external == nil } ?? true }
    }

    /// The inbox's entries for unique beginnings of their ids.
    package func entries(_ references: [String], from user: String?, digests: Bool = true) async throws -> [InboxEntry] {
        let inbox = try await entries(from: user, digests: digests)
        return try references.map { reference in
            let id = try RelaySession.uniqueID(reference, among: inbox.map(\.id))
            return inbox.first { $0.id == id }!
        }
    }

    /// Declines the transfer `reference` names (its sender sees "declined").
    package func decline(_ reference: String) async throws {
        let id = try RelaySession.uniqueID(reference, among: try await client.inbox().map(\.id))
        do {
            try await client.decline(id)
        } catch RelayClientError.rejected(404, _, _) {
            throw RelayClientError.noSuchTransfer(id)
        }
        // Its partial download (a fetch interrupted before) will never be finished.
        unlink(ReceiveOptions.incoming(home: session.home) + "/" + id + ".age")
    }

    /// Removes the partial downloads in `$VFS_HOME/incoming` of transfers no longer in the
    /// inbox (declined, cancelled, expired, abandoned by their sender, or fetched by a run
    /// that was killed before it removed its download): none of them can be fetched again.
    package func removeStaleDownloads() async throws {
        let waiting = Set(try await client.inbox().map(\.id))
        let incoming = ReceiveOptions.incoming(home: session.home)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: incoming) else { return }
        for name in names where name.hasSuffix(".age") {
            let id = String(name.dropLast(4))
            if id.count == 32, id.allSatisfy(\.isHexDigit), !waiting.contains(id) { unlink(incoming + "/" + name) }
        }
    }

    /// The inbox with each sender as this device verified it: the sending device's name
    /// in its user's verified device chain (this user's, or another user's of the
    /// organisation, pinned at first contact); `verified` false when the device is not in
    /// it or the chain does not verify (fetching it is then refused unless --allow-unverified).
    /// Another user's chain is checked against its pin but pinned by no listing: only what
    /// this device fetches or sends pins a colleague. Also this user's address.
    package func listing(from sender: String?) async throws -> (rows: [InboxListing], user: String) {
        // The inbox first: an answer that does not check is refused before anything else is asked.
        let inbox = try await entries(from: sender)
        let trust = try await session.deviceTrust(client)
        var chains: [String: DeviceChain.Verified] = [:]
        if let own = trust.verified { chains[trust.user] = own }
        for user in Set(inbox.compactMap(\.senderUser)) where chains[user] == nil {
            chains[user] = try? await session.colleagueChain(user, client: client, pin: false)
        }
        let pins = try PinStore(home: session.home)
        let relayNames = Dictionary(trust.devices.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let rows = inbox.map { entry in
            if let external = entry.external {
                return InboxListing(id: entry.id, sender: entry.sender, from: "someone without a device, via request \(external.request.prefix(8))",
                                    user: nil, verified: false, size: entry.size, sha256: entry.sha256, created: entry.created,
                                    expires: entry.expires, status: entry.status, pinned: false, confirmed: false, external: external.request)
            }
            let user = entry.senderUser ?? trust.user
            let device = chains[user]?.signer(entry.sender)
            let name = device.map { $0.sendOnly ? $0.name + " (send-only)" : $0.name }
            return InboxListing(id: entry.id, sender: entry.sender, from: name ?? relayNames[entry.sender] ?? entry.sender, user: user,
                                verified: device != nil, size: entry.size, sha256: entry.sha256, created: entry.created, expires: entry.expires,
                                status: entry.status, pinned: user == trust.user || pins.head(of: user) != nil,
                                confirmed: user == trust.user || pins.isVerified(user))
        }
        return (rows, trust.user)
    }
}
