import Foundation
import Hummingbird
import Logging

/// One log line per request: method, path (never the query, which could hold
/// secrets), status, time taken and the peer.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info("\(request.method) \(request.uri.path) \(response.status.code) \(String(format: "%.1f", ms))ms \(context.remoteAddress)")
        return response
    }
}
