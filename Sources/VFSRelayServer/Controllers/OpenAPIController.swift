import Hummingbird
import NIOCore

/// `GET /v1/openapi.yaml`: the API's OpenAPI 3.1 document, `Resources/openapi.yaml`,
/// compiled into the binary (so an installed relay serves it without a resource folder).
struct OpenAPIController {
    static let path = "/v1/openapi.yaml"

    /// The document's bytes.
    static var document: [UInt8] { PackageResources.openapi_yaml }

    func addRoutes(to router: Router<RelayRequestContext>) {
        router.get(RouterPath(Self.path)) { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml", .cacheControl: "no-cache"],
                     body: .init(byteBuffer: ByteBuffer(bytes: Self.document)))
        }
    }
}
