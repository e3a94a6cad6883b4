import Foundation
import Hummingbird
import Logging

/// One log line per request (at `info`; `warning` for 503 and 507, `error` for other answers 500 or over): method, path (never the query, which could hold
/// secrets), status, time taken and the peer; and the same answer counted in the metrics.
/// Outside `ErrorMiddleware`, both see the status the client gets: a client error a handler
/// throws is counted as its 404 or 412, not as a failure, and the counts are the log's.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext
    let logger: Logger
    let metrics: RelayMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        // The route the router matched (set below this middleware, read here): a label per
        // route, not per path, so ids never make new series.
        metrics.answered(method: request.method, route: context.endpointPath, status: response.status, after: elapsed)
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        // An answer 500 or over is the relay's own failure: logged at the default level.
        let level: Logger.Level = switch response.status.code {
        case 503, 507: .warning  // the database away, the disk at its reserve: said once per request
        case 500...: .error
        default: .info
        }
        logger.log(level: level, "\(request.method) \(request.uri.path) \(response.status.code) \(String(format: "%.1f", ms))ms \(context.remoteAddress)")
        return response
    }
}
