import Foundation
import Hummingbird

/// Checks `Authorization: Bearer TOKEN` against the stored token hashes; the device
/// it names becomes the request's identity. Without a live device: 401 (code `revoked`
/// for the token of a device that was logged out).
struct AuthMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext
    let store: any RelayStore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], header.count > 7,
              header.prefix(7).lowercased() == "bearer " else {
            throw RelayError.unauthorized
        }
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty else { throw RelayError.unauthorized }
        let hash = Secrets.hash(token)
        guard let identity = try await store.authenticate(tokenHash: hash, now: Date()) else {
            // Only the holder of a revoked device's token learns that it was revoked, so a
            // device that was offline at the revoke still erases its credentials.
            if try await store.isRevoked(tokenHash: hash) { throw RelayError.revoked }
            throw RelayError.unauthorized
        }
        var context = context
        context.identity = identity
        return try await next(request, context)
    }
}
