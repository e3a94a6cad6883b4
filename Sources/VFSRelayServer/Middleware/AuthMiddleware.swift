import Foundation
import Hummingbird

/// Checks `Authorization: Bearer TOKEN` against the stored token hashes; the device
/// it names becomes the request's identity. Without a live device: 401.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext
    let store: any RelayStore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], header.count > 7,
              header.prefix(7).lowercased() == "bearer " else {
            throw RelayError.unauthorized
        }
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, let identity = try await store.authenticate(tokenHash: Secrets.hash(token), now: Date()) else {
            throw RelayError.unauthorized
        }
        var context = context
        context.identity = identity
        return try await next(request, context)
    }
}
