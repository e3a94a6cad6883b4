import Foundation
import Hummingbird
import VFSRelayProtocol

/// Checks `Authorization: Bearer TOKEN` against the stored token hashes; the device
/// it names becomes the request's identity. Without a live device: 401 (code `revoked`
/// for the token of a device that was logged out), except `GET /v1/chain` with a logged
/// out device's token: a logout stops the token and nothing else, so the device reads
/// its user's chain to learn whether its user removed it (then it erases its keys).
struct AuthMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext
    let store: any TokenRepository

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], let token = Self.bearerToken(header) else {
            throw RelayError.unauthorized
        }
        let hash = Secrets.hash(token)
        guard let identity = try await store.authenticate(tokenHash: hash, now: Date()) else {
            // Only the holder of a revoked device's token learns that it was revoked, so a
            // device that was offline at the revoke still erases its credentials.
            if request.method == .get, request.uri.path == RelayPaths.chain,
               let revoked = try await store.revokedDevice(tokenHash: hash) {
                var context = context
                context.identity = revoked
                return try await next(request, context)
            }
            if try await store.isRevoked(tokenHash: hash) { throw RelayError.revoked }
            throw RelayError.unauthorized
        }
        var context = context
        context.identity = identity
        return try await next(request, context)
    }

    /// The token of `Authorization: Bearer TOKEN` (the scheme in any case, spaces and tabs
    /// around the token dropped), nil for another scheme or an empty token. Read as bytes:
    /// Foundation's `trimmingCharacters(in:)` cost a twentieth of a request's CPU.
    static func bearerToken(_ header: String) -> String? {
        let bytes = header.utf8
        let scheme = Array("bearer ".utf8)
        guard bytes.count > scheme.count,
              zip(bytes, scheme).allSatisfy({ $1 == 0x20 ? $0 == 0x20 : ($0 | 0x20) == $1 }) else { return nil }
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        let rest = bytes.dropFirst(scheme.count)
        guard let first = rest.firstIndex(where: { !isBlank($0) }), let last = rest.lastIndex(where: { !isBlank($0) }) else { return nil }
        return String(header[first...last])
    }
}
