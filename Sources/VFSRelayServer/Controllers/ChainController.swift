import Crypto
import Foundation
import Hummingbird
import VFSDeviceChain
import VFSRelayProtocol

/// `GET /v1/users/{email}/chain` and `POST /v1/chain`: each user's device chain
/// (docs/device-chain.md). The relay verifies every statement appended with the clients'
/// own verifier (VFSDeviceChain): a stolen token or a pending device cannot append one
/// that the user's devices would refuse. Clients still verify all they are served.
struct ChainController {
    let store: any ChainRepository & ChainReadRepository & DeviceLookupRepository

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        group.get(RouterPath(RelayPaths.users + "/:user/chain"), use: show)
        group.get(RouterPath(RelayPaths.chain), use: own)
        group.post(RouterPath(RelayPaths.chain), use: append)
        group.put(RouterPath(RelayPaths.devices + "/:id/signing-key"), use: signingKey)
    }

    /// Any device of the same organisation may read a user's chain; 404 without one.
    /// `?pinned=N`: from the last checkpoint at or before statement N (the whole chain
    /// without one), for a client that verified the chain up to N.
    @Sendable func show(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        guard let email = context.parameters.get("user"), !email.isEmpty, email.utf8.count <= 254 else {
            throw RelayError.notFound("not found")
        }
        let statements = try await store.chain(email: email, org: identity.orgID, pinned: try Self.pinned(request))
        guard !statements.isEmpty else { throw RelayError.notFound("\"\(Validate.shown(email))\" has no device chain yet") }
        return try jsonResponse(ChainDocument(user: email, statements: statements))
    }

    /// The caller's own user's chain, empty before its root: it tells the device its user.
    /// `?pinned=N` as for `show`.
    @Sendable func own(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let statements = try await store.chain(user: identity.userID, pinned: try Self.pinned(request))
        return try jsonResponse(ChainDocument(user: identity.email, statements: statements))
    }

    /// `?pinned=N`: a statement number (0 to 2^53); nil without it.
    static func pinned(_ request: Request) throws -> Int64? {
        guard let text = request.uri.queryParameters[RelayPaths.pinnedQuery[...]] else { return nil }
        guard let value = Int64(text), (0...(1 << 53)).contains(value) else {
            throw RelayError.badRequest("\(RelayPaths.pinnedQuery) takes a statement number")
        }
        return value
    }

    /// One more statement, signed by the caller (or adding the caller), of the caller's user, that verifies
    /// after the stored chain's verified prefix (403 otherwise: a bad signature, or a
    /// signer not live there, as a pending device's add of itself); 409 when it does not
    /// follow that prefix (another device appended first). A stored tail that does not
    /// verify (written before the relay verified) is cut first: it was never the user's.
    @Sendable func append(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let body = try await request.decodeJSON(ChainAppend.self, context: context)
        guard body.statement.utf8.count <= DeviceChain.maxCheckpointBytes * 4 / 3 + 4,
              let bytes = Data(base64Encoded: body.statement) else {
            throw RelayError.badRequest("the statement is not base64 of at most \(DeviceChain.maxCheckpointBytes) bytes")
        }
        let statement: DeviceChain.Statement
        do {
            statement = try DeviceChain.Statement.decode(Array(bytes))
        } catch let error as DeviceChainError {
            throw RelayError.badRequest("the statement is not one: \(error)")
        }
        guard statement.user == identity.email else {
            throw RelayError.badRequest("the statement is of \"\(Validate.shown(statement.user))\", not of the caller's user")
        }
        // Signed by the caller, or an add of the caller signed by another device's key: a
        // machine enrolled again (vfs-device enroll --force) whose old token is dead (its
        // user disabled and enabled) vouches for its new device with its old signing key.
        // Either way the verifier below requires the signer to be live in the chain. A
        // checkpoint changes nothing and is posted by whichever device makes the change
        // after it (the new device, when the old one vouches for it).
        let addsCaller: Bool
        if case .add(let entry) = statement.action { addsCaller = entry.id == identity.deviceID } else { addsCaller = false }
        guard statement.signer == identity.deviceID || addsCaller || statement.isCheckpoint else {
            throw RelayError.badRequest("the statement is not signed by the calling device, nor an add of it")
        }
        // Verified from the last checkpoint this relay verified (the whole chain before
        // the first), not from the root each time: bounded by a segment.
        let stored = RelayChain.verifiedPrefix(try await store.chain(user: identity.userID, pinned: Int64.max), user: identity.email)
        guard statement.sequence == UInt64(stored.next),
              statement.previous == (stored.statements.last.map { RelayChain.primitives.sha256($0.encoded) } ?? [UInt8](repeating: 0, count: DeviceChain.hashCount)) else {
            throw RelayError.conflict("the chain has \(stored.next) verified statements: the next is number \(stored.next) and follows the last of them")
        }
        do {
            // The same bounds as the clients': a segment of at most `maxStatements`; the
            // statement that would pass it is refused unless it is a checkpoint.
            _ = try DeviceChain.verify(stored.statements + [statement], user: identity.email, pinned: stored.checkpointHead,
                                       using: RelayChain.primitives)
            if try await store.chainBytes(user: identity.userID) + bytes.count > DeviceChain.maxHistoryBytes {
                throw DeviceChainError.malformed(index: Int(clamping: statement.sequence),
                                                 reason: "the chain would be larger than \(DeviceChain.maxHistoryBytes) bytes, what a new device verifies")
            }
        } catch let error as DeviceChainError {
            throw RelayError(.forbidden, .forbidden, "the statement does not verify: \(error)")
        }
        if stored.dropped > 0 {
            _ = try await store.cutChain(user: identity.userID, keeping: Int64(stored.next),
                                                  head: stored.headHex, actor: identity.deviceID, now: Date())
        }
        let statements = try await store.appendChainStatement(
            user: identity.userID, sequence: Int64(statement.sequence), previous: Secrets.hex(statement.previous),
            statement: bytes.base64EncodedString(), hash: Secrets.hex(Array(SHA256.hash(data: bytes))),
            checkpoint: statement.isCheckpoint, device: identity.deviceID, now: Date())
        return try jsonResponse(ChainDocument(user: identity.email, statements: statements), status: .created)
    }

    /// The caller publishes its own signing key, once.
    @Sendable func signingKey(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try pathID(context)
        _ = try await store.device(id: id, user: identity.userID)
        guard id == identity.deviceID else { throw RelayError(.forbidden, .forbidden, "a device publishes only its own signing key") }
        let body = try await request.decodeJSON(SigningKeyUpdate.self, context: context)
        guard let key = Data(base64Encoded: body.signingKey), key.count == 32 else {
            throw RelayError.badRequest("the signing key is not base64 of a 32-byte Ed25519 public key")
        }
        return try jsonResponse(try await store.setSigningKey(device: id, user: identity.userID,
                                                                       key: key.base64EncodedString(), now: Date()))
    }
}

/// The relay's side of the chain: the clients' verifier with swift-crypto's primitives.
package enum RelayChain {
    /// swift-crypto's SHA-256 and Ed25519 (the relay links no OpenSSL).
    package static let primitives = DeviceChain.Primitives(
        sha256: { Array(SHA256.hash(data: $0)) },
        verifyEd25519: { signature, message, key in
            guard signature.count == DeviceChain.signatureCount,
                  let key = try? Curve25519.Signing.PublicKey(rawRepresentation: key) else { return false }
            return key.isValidSignature(signature, for: message)
        })

    /// A stored chain's longest verified prefix.
    package struct Prefix: Sendable {
        package var statements: [DeviceChain.Statement]
        /// What they say; nil for none.
        package var verified: DeviceChain.Verified? = nil
        /// The sequence number of the first of `statements`: 0, or the checkpoint the
        /// stored chain was read from.
        package var first = 0
        /// How many stored statements come after it.
        package var dropped: Int
        /// Why the first of those does not verify.
        package var refused: DeviceChainError?
        /// The hex SHA-256 of the prefix's last statement, as the store keeps it; nil for none.
        package var headHex: String? { statements.last.map { Secrets.hex(RelayChain.primitives.sha256($0.encoded)) } }
        /// The sequence number of the statement after the prefix (the chain's length).
        package var next: Int { first + statements.count }
        /// The checkpoint it starts at, as a pin: the relay verified it against the whole
        /// chain's state when it was appended, as a client verified the statement it pins.
        package var checkpointHead: DeviceChain.Head? {
            guard first > 0, let start = statements.first else { return nil }
            return DeviceChain.Head(sequence: start.sequence, hash: RelayChain.primitives.sha256(start.encoded))
        }
    }

    /// The ids of the devices live in the verified prefix of `stored`.
    package static func liveDevices(_ stored: [String], user: String) -> Set<String> {
        Set((verifiedPrefix(stored, user: user).verified?.devices ?? [:]).keys)
    }

    /// The statements of `stored` (base64, in order) up to the first that does not
    /// decode or verify as `user`'s, or is past the clients' statement limit; all of them
    /// when the first does not. Parsed and bounded by the clients' own code (VFSDeviceChain).
    ///
    /// `stored` is the whole chain, or what the store reads from a checkpoint it marked
    /// (`chain(user:pinned:)`): only a checkpoint this relay verified in context when it
    /// was appended is marked, so the walk starts there as a client's starts at its pin.
    package static func verifiedPrefix(_ stored: [String], user: String) -> Prefix {
        let (statements, refused) = DeviceChain.decodeStatements(stored)
        guard let start = statements.first else { return Prefix(statements: [], dropped: stored.count, refused: refused) }
        let first = start.sequence != 0 && start.isCheckpoint ? Int(clamping: start.sequence) : 0
        let anchor = first > 0 ? DeviceChain.Head(sequence: start.sequence, hash: primitives.sha256(start.encoded)) : nil
        do {
            let verified = try DeviceChain.verifyPrefix(statements, user: user, pinned: anchor, using: primitives)
            let kept = Array(statements.prefix(verified.count))
            return Prefix(statements: kept, verified: verified, first: first, dropped: stored.count - kept.count,
                          refused: verified.refusedTail ?? refused)
        } catch let error as DeviceChainError {
            return Prefix(statements: [], first: first, dropped: stored.count, refused: error)
        } catch {
            return Prefix(statements: [], first: first, dropped: stored.count, refused: nil)
        }
    }
}
