import Crypto
import Foundation
import Hummingbird
import VFSRelayProtocol

/// `GET /v1/users/{email}/chain` and `POST /v1/chain`: each user's device chain
/// (docs/device-chain.md). The relay stores it and checks its shape and order only; it
/// verifies no signature, because no client would believe it: clients verify.
struct ChainController {
    let services: RelayServices

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        group.get(RouterPath(RelayPaths.users + "/:user/chain"), use: show)
        group.get(RouterPath(RelayPaths.chain), use: own)
        group.post(RouterPath(RelayPaths.chain), use: append)
        group.put(RouterPath(RelayPaths.devices + "/:id/signing-key"), use: signingKey)
    }

    /// Any device of the same organisation may read a user's chain; 404 without one.
    @Sendable func show(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        guard let email = context.parameters.get("user"), !email.isEmpty, email.utf8.count <= 254 else {
            throw RelayError.notFound("not found")
        }
        let statements = try await services.store.chain(email: email, org: identity.orgID)
        guard !statements.isEmpty else { throw RelayError.notFound("\"\(Validate.shown(email))\" has no device chain yet") }
        return try jsonResponse(ChainDocument(user: email, statements: statements))
    }

    /// The caller's own user's chain, empty before its root: it tells the device its user.
    @Sendable func own(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        return try jsonResponse(ChainDocument(user: identity.email, statements: try await services.store.chain(user: identity.userID)))
    }

    /// One more statement, signed by the caller, of the caller's user; 409 when it does
    /// not follow the stored chain (another device appended first).
    @Sendable func append(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let body = try await request.decodeJSON(ChainAppend.self, context: context)
        guard body.statement.utf8.count <= ChainStatementShape.maxBytes * 4 / 3 + 4,
              let bytes = Data(base64Encoded: body.statement) else {
            throw RelayError.badRequest("the statement is not base64 of at most \(ChainStatementShape.maxBytes) bytes")
        }
        let shape = try ChainStatementShape(Array(bytes))
        guard shape.user == identity.email else {
            throw RelayError.badRequest("the statement is of \"\(Validate.shown(shape.user))\", not of the caller's user")
        }
        guard shape.signer == identity.deviceID else { throw RelayError.badRequest("the statement is not signed by the calling device") }
        let statements = try await services.store.appendChainStatement(
            user: identity.userID, sequence: shape.sequence, previous: Secrets.hex(shape.previous),
            statement: bytes.base64EncodedString(), hash: Secrets.hex(Array(SHA256.hash(data: bytes))), device: identity.deviceID,
            now: Date())
        return try jsonResponse(ChainDocument(user: identity.email, statements: statements), status: .created)
    }

    /// The caller publishes its own signing key, once.
    @Sendable func signingKey(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try pathID(context)
        _ = try await services.store.device(id: id, user: identity.userID)
        guard id == identity.deviceID else { throw RelayError(.forbidden, .forbidden, "a device publishes only its own signing key") }
        let body = try await request.decodeJSON(SigningKeyUpdate.self, context: context)
        guard let key = Data(base64Encoded: body.signingKey), key.count == 32 else {
            throw RelayError.badRequest("the signing key is not base64 of a 32-byte Ed25519 public key")
        }
        return try jsonResponse(try await services.store.setSigningKey(device: id, user: identity.userID,
                                                                       key: key.base64EncodedString(), now: Date()))
    }
}

/// What the relay reads of a chain statement: its layout and limits (docs/device-chain.md,
/// "Canonical bytes"), to refuse junk with 400 and keep the chain in order. No signature
/// is checked here.
struct ChainStatementShape {
    static let maxBytes = 8192
    var user: String
    var sequence: Int64
    var previous: [UInt8]
    var signer: String

    init(_ bytes: [UInt8]) throws {
        guard bytes.count <= Self.maxBytes else { throw RelayError.badRequest("a statement of \(bytes.count) bytes") }
        var offset = 0
        func take(_ count: Int) throws -> ArraySlice<UInt8> {
            guard bytes.count - offset >= count else { throw RelayError.badRequest("a truncated statement") }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }
        func field(max: Int) throws -> ArraySlice<UInt8> {
            let length = try take(2).reduce(0) { $0 << 8 | Int($1) }
            guard length <= max else { throw RelayError.badRequest("a statement field of \(length) bytes") }
            return try take(length)
        }
        func deviceID() throws -> String {
            let id = try field(max: 32)
            guard id.count == 32, id.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                throw RelayError.badRequest("a statement's device id is not 32 lowercase hex digits")
            }
            return String(decoding: id, as: UTF8.self)
        }
        guard try take(1).first == 1 else { throw RelayError.badRequest("an unknown statement version") }
        let kind = try take(1).first
        guard let user = String(validating: try field(max: 254), as: UTF8.self) else {
            throw RelayError.badRequest("a statement's user is not UTF-8")
        }
        self.user = user
        let number = try take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard number <= 1024 else { throw RelayError.badRequest("a statement number over 1024") }
        sequence = Int64(number)
        previous = Array(try take(32))
        _ = try take(8)
        signer = try deviceID()
        switch kind {
        case 1:
            _ = try deviceID()
            guard try !field(max: 64).isEmpty, try !field(max: 4096).isEmpty else {
                throw RelayError.badRequest("a statement adds a device without a name or recipient")
            }
            _ = try take(32)
        case 2:
            _ = try deviceID()
        default:
            throw RelayError.badRequest("an unknown statement kind")
        }
        _ = try take(64)
        guard offset == bytes.count else { throw RelayError.badRequest("bytes after the statement's signature") }
    }
}
