#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol

/// Other users of the organisation (issue 28): their devices are the ones their device
/// chain holds, verified here and pinned at first contact as ssh's known_hosts pins a
/// host key (`PinStore`), never the relay's list alone.
extension RelaySession {
    /// `user`'s device chain from the relay (`GET /v1/users/USER/chain`), verified; its
    /// root is pinned on first sight, and a root other than the pinned one, or a chain
    /// that does not extend the pinned head, is refused (77). A user the relay does not
    /// know in this organisation is `.noSuchUser` (66). `pin` false: checked against a
    /// pin there is, but nothing is pinned or moved (a listing pins nothing).
    package func colleagueChain(_ user: String, client: RelayClient, pin: Bool = true) async throws -> DeviceChain.Verified {
        let (statements, refused) = try await colleagueStatementPrefix(user, client: client)
        if statements.isEmpty, let refused { throw refused }
        var pins = try PinStore(home: home)
        let verified = try pins.accept(statements, user: user, refused: refused)
        if pin { try pins.save() }
        warnAboutTail(of: verified)
        return verified
    }

    /// The whole chain's statements, from its root, as the relay serves them, unverified.
    package func colleagueStatements(_ user: String, client: RelayClient) async throws -> [DeviceChain.Statement] {
        let (statements, refused) = try await colleagueStatementPrefix(user, client: client, fromPin: false)
        if let refused { throw refused }
        return statements
    }

    /// The chain's statements up to the first that does not decode, and why it stopped:
    /// from the last checkpoint at or before the head pinned (`fromPin`), else the whole
    /// chain.
    func colleagueStatementPrefix(_ user: String, client: RelayClient, fromPin: Bool = true) async throws -> (statements: [DeviceChain.Statement], refused: DeviceChainError?) {
        guard !user.isEmpty, user.utf8.count <= 254, !user.contains("/") else { throw RelayClientError.noSuchUser(user) }
        do {
            let pinned = fromPin ? try PinStore(home: home).head(of: user) : nil
            return try DeviceChain.decodeWirePrefix(try await client.chainDocument(RelayPaths.userChain(user), pinned: pinned?.sequence))
        } catch RelayClientError.rejected(404, _, _) {
            throw RelayClientError.noSuchUser(user)
        }
    }

    /// The safety code of this device's user and `other`, from both verified roots
    /// (docs/device-chain.md, "Safety codes").
    package static func safetyCode(_ own: DeviceChain.Verified, _ other: DeviceChain.Verified) -> String {
        Fingerprint.safetyCode((user: own.user, rootKey: own.rootKey), (user: other.user, rootKey: other.rootKey))
    }
}

extension RelayClient {
    /// The users of this device's organisation (`GET /v1/org/users`), those whose address
    /// begins with `prefix` when given: whom `vfs-push --to` can reach.
    public func orgUsers(prefix: String? = nil) async throws -> [OrgUser] {
        var path = RelayPaths.orgUsers
        if let prefix, !prefix.isEmpty { path += "?prefix=" + Self.percentEscaped(prefix, keeping: "._-@") }
        return try await call(.GET, path, as: [OrgUser].self)
    }
}
