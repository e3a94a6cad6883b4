import Hummingbird

/// Routes match the path exactly as written: a path with an empty segment (`//metrics`)
/// or a dot segment (`/./metrics`, `/v1/../metrics`) names no route and is 404, so
/// nothing reaches a route by a spelling a proxy's rules (nginx's `location`) read as
/// another path. (A trailing `/` is left to each route: `/metrics/` is not `/metrics`.)
struct CanonicalPathMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.isCanonical(request.uri.path) else { throw RelayError.notFound("not found") }
        return try await next(request, context)
    }

    /// True for `/`, and for a path of non-empty segments other than `.` and `..`, with at
    /// most one `/` at its end. (A percent-encoded dot is left to the route: it names no
    /// route but a cloud path's, whose name check refuses it, 400.)
    static func isCanonical(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        var segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        if segments.last?.isEmpty == true { segments.removeLast() }
        return segments.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }
}
