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
    static let tusChecksumAlgorithm = Self("Tus-Checksum-Algorithm")!
    static let uploadChecksum = Self("Upload-Checksum")!
    static let xHTTPMethodOverride = Self("X-HTTP-Method-Override")!
    static let uploadOffset = Self("Upload-Offset")!
    static let uploadLength = Self("Upload-Length")!
    static let uploadMetadata = Self("Upload-Metadata")!
    static let uploadExpires = Self("Upload-Expires")!
    static let uploadDeferLength = Self("Upload-Defer-Length")!
    static let lastEventID = Self("Last-Event-ID")!
    static let xAccelBuffering = Self("X-Accel-Buffering")!
    static let forwarded = Self("Forwarded")!
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let xRealIP = Self("X-Real-IP")!
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

/// An IMF-fixdate as `httpDate` writes it (`Sun, 06 Nov 1994 08:49:37 GMT`), read back;
/// nil for anything else (RFC 9110's obsolete forms are not written by the relay).
func parseHTTPDate(_ text: String) -> Date? {
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    let b = Array(text.utf8)
    guard b.count == 29, b[3] == 0x2C, b[4] == 0x20, b[7] == 0x20, b[11] == 0x20, b[16] == 0x20, b[19] == 0x3A,
          b[22] == 0x3A, b[25] == 0x20, text.hasSuffix(" GMT") else { return nil }
    func number(_ range: Range<Int>) -> Int32? {
        var value: Int32 = 0
        for byte in b[range] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int32(byte - 0x30)
        }
        return value
    }
    let month = String(decoding: b[8..<11], as: UTF8.self)
    guard let monthIndex = months.firstIndex(of: month), let day = number(5..<7), let year = number(12..<16),
          let hour = number(17..<19), let minute = number(20..<22), let second = number(23..<25),
          (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
    var parts = tm()
    parts.tm_year = year - 1900
    parts.tm_mon = Int32(monthIndex)
    parts.tm_mday = day
    parts.tm_hour = hour
    parts.tm_min = minute
    parts.tm_sec = second
    let seconds = timegm(&parts)
    // The weekday must be that date's, and the day must exist in its month.
    guard parts.tm_mday == day, days[Int(parts.tm_wday)] == String(decoding: b[0..<3], as: UTF8.self) else { return nil }
    return Date(timeIntervalSince1970: TimeInterval(seconds))
}

/// An id from the path: our ids are short lowercase hex; anything else cannot exist.
func pathID(_ context: RelayRequestContext, _ name: String = "id") throws -> String {
    guard let id = context.parameters.get(name), !id.isEmpty, id.utf8.count <= 64 else {
        throw RelayError.notFound("not found")
    }
    return id
}
