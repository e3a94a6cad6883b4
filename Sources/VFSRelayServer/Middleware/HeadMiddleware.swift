import HTTPTypes
import Hummingbird

/// Every answer to HEAD is the GET's status and headers without a body (RFC 9110 §9.3.2):
/// the router runs a GET route's handler for HEAD (`autoGenerateHeadEndpoints`), and
/// this drops the body of every answer to a HEAD, errors included, keeping the
/// `Content-Length` the GET would have sent (and adding none when it would have sent
/// none: a stream, see `RouterMethods.getAndHead`).
struct HeadMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        guard request.method == .head else { return response }
        return response.withoutBody
    }
}

extension Response {
    /// This answer's status and headers, no body, and no `Content-Length` it did not have.
    var withoutBody: Response {
        Response(status: status, headers: headers, body: ResponseBody(contentLength: nil) { writer in try await writer.finish(nil) })
    }
}

extension RouterMethods {
    /// GET of a route whose answer may be a stream of no known length, and HEAD by the
    /// same handler (its body dropped by `HeadMiddleware`). The router's generated HEAD
    /// would answer such a stream with `Content-Length: 0`, which RFC 9110 §8.6 forbids
    /// (it must be the GET's length, or absent).
    @discardableResult
    func getAndHead(_ path: RouterPath, use handler: @escaping @Sendable (Request, Context) async throws -> Response) -> Self {
        get(path, use: handler)
        return head(path, use: handler)
    }
}
