import Foundation
import HTTPTypes
import Hummingbird
import VFSRelayProtocol

/// A JSON answer in the API's encoding.
func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
    let data = try RelayJSON.encoder().encode(value)
    var headers = headers
    headers[.contentType] = "application/json"
    return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
}

func emptyResponse(_ status: HTTPResponse.Status = .noContent, headers: HTTPFields = [:]) -> Response {
    Response(status: status, headers: headers)
}

extension Request {
    /// The JSON body as `T`, strictly (unknown keys, bad UTF-8 and oversize bodies fail).
    func decodeJSON<T: Decodable>(_ type: T.Type, context: RelayRequestContext) async throws -> T {
        var request = self
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        guard buffer.readableBytes > 0 else { throw RelayError.badRequest("a JSON body is needed") }
        return try context.requestDecoder.decode(T.self, from: Data(buffer.readableBytesView))
    }
}

extension HTTPField.Name {
    static let tusResumable = Self("Tus-Resumable")!
    static let tusVersion = Self("Tus-Version")!
    static let tusExtension = Self("Tus-Extension")!
    static let tusMaxSize = Self("Tus-Max-Size")!
    static let uploadOffset = Self("Upload-Offset")!
    static let uploadLength = Self("Upload-Length")!
    static let uploadMetadata = Self("Upload-Metadata")!
    static let uploadExpires = Self("Upload-Expires")!
    static let uploadDeferLength = Self("Upload-Defer-Length")!
    static let lastEventID = Self("Last-Event-ID")!
    static let xAccelBuffering = Self("X-Accel-Buffering")!
    static let forwarded = Self("Forwarded")!
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let policyGrace = Self(PolicyListHeaders.grace)!
}

/// Times in HTTP headers (`Upload-Expires`): `Sun, 06 Nov 1994 08:49:37 GMT`.
func httpDate(_ date: Date) -> String {
    // By hand from gmtime_r: a DateFormatter made per answer cost 30 ms of CPU (ICU).
    var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    gmtime_r(&seconds, &parts)
    let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
        + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
}

/// An id from the path: our ids are short lowercase hex; anything else cannot exist.
func pathID(_ context: RelayRequestContext, _ name: String = "id") throws -> String {
    guard let id = context.parameters.get(name), !id.isEmpty, id.utf8.count <= 64 else {
        throw RelayError.notFound("not found")
    }
    return id
}
