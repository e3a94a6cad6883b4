import HTTPTypes
import Hummingbird
import VFSRelayProtocol

/// tus 1.0: `Tus-Resumable` on every answer of the upload routes but OPTIONS, the
/// refusals (401, 404, 405, 409, 412, 413, 415, 460) included, whichever middleware or
/// route made them.
struct TusResumableMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        if request.method != .options, Self.isUploadPath(request.uri.path), !response.headers.contains(.tusResumable) {
            response.headers[.tusResumable] = TusProtocol.version
        }
        return response
    }

    static func isUploadPath(_ path: String) -> Bool {
        path == RelayPaths.uploads || path.hasPrefix(RelayPaths.uploads + "/")
    }
}
