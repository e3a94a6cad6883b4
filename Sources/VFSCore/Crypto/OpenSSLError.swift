import COpenSSL

/// A failure inside libcrypto, with the library's own message.
public struct OpenSSLError: Error, CustomStringConvertible {
    public let function: String
    public let reason: String
    public var description: String { "libcrypto: \(function) failed: \(reason)" }

    /// Drains libcrypto's error queue into one error.
    static func current(_ function: String) -> OpenSSLError {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return OpenSSLError(function: function, reason: reasons.first ?? "unknown error")
    }
}

/// The one checkpoint where a libcrypto return code becomes a Swift error.
@inline(__always)
func check(_ result: Int32, _ function: StaticString) throws {
    if result != 1 { throw OpenSSLError.current("\(function)") }
}
