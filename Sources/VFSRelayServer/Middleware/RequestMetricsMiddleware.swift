import Hummingbird

/// Counts every answer where the request log writes it, outside `ErrorMiddleware`: a client
/// error thrown by a handler is counted with the status the client gets (404, 409, 412…),
/// not as a failure, so the counts by status are the access log's.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext
    let metrics: RelayMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        // The route the router matched (set below this middleware, read here): a label per
        // route, not per path, so ids never make new series.
        metrics.answered(method: request.method, route: context.endpointPath, status: response.status, after: ContinuousClock.now - start)
        return response
    }
}
