import Hummingbird
import Logging

/// Turns every failure into `{"error": code, "message": …}` with its status; an
/// unexpected error is logged and answered 500 without details.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext
    let metrics: RelayMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let relayError = RelayError(error)
            if relayError.status.code == 507 { metrics.diskFull.increment() }
            if relayError.status == .internalServerError {
                metrics.internalErrors.increment()
                context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            }
            return relayError.response
        }
    }
}
