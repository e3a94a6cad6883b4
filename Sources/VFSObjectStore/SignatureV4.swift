import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// An access key pair (and the session token of temporary credentials).
public struct S3Credentials: Sendable, Equatable {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}

/// AWS Signature Version 4 in the Authorization header, as S3 takes it: the path signed
/// as sent (no `.`/`..` normalisation, each byte outside the unreserved set escaped once),
/// the query sorted, the headers lowercased, trimmed and sorted.
/// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
public struct SignatureV4: Sendable {
    public let credentials: S3Credentials
    public let region: String
    public let service: String

    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The SHA-256 of an empty payload, as hex.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The hex SHA-256 of a payload, as X-Amz-Content-Sha256 carries it.
    public static func payloadHash<D: DataProtocol>(_ bytes: D) -> String { hex(SHA256.hash(data: bytes)) }

    /// What signing made: the headers to send with the request (the given ones, then
    /// X-Amz-Date, the session token, the payload hash, Authorization), and the steps on
    /// the way, which the test vectors check one by one.
    public struct Signed: Sendable {
        public var headers: [(name: String, value: String)]
        public var canonicalRequest: String
        public var stringToSign: String
        public var signature: String
        public var authorization: String
    }

    /// Signs a request. `path` is the decoded path (escaped here, as `escapedPath` does for
    /// the URL that is sent); `query` holds decoded names and values; `headers` must
    /// include Host. With `payloadHeader`, X-Amz-Content-Sha256 (which S3 requires) is
    /// sent and signed.
    public func sign(method: String, path: String, query: [(String, String)] = [], headers: [(String, String)],
                     payloadHash: String, payloadHeader: Bool = true, date: Date) -> Signed {
        let stamp = Self.timestamp(date)
        let day = String(stamp.prefix(8))
        var sent = headers.map { (name: $0.0, value: $0.1) }
        sent.append(("X-Amz-Date", stamp))
        if let token = credentials.sessionToken { sent.append(("X-Amz-Security-Token", token)) }
        if payloadHeader { sent.append(("x-amz-content-sha256", payloadHash)) }

        // Each header once, lowercased, its values joined in order; sorted by name.
        var values: [String: [String]] = [:]
        for header in sent { values[header.name.lowercased(), default: []].append(Self.trimmed(header.value)) }
        let names = values.keys.sorted()
        let signedHeaders = names.joined(separator: ";")
        let canonicalHeaders = names.map { "\($0):\(values[$0]!.joined(separator: ","))\n" }.joined()
        let canonicalQuery = query.map { (Self.escape($0.0, keepSlash: false), Self.escape($0.1, keepSlash: false)) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let canonicalRequest = [method, Self.escapedPath(path), canonicalQuery, canonicalHeaders, signedHeaders, payloadHash]
            .joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", stamp, scope, Self.hex(SHA256.hash(data: Array(canonicalRequest.utf8)))]
            .joined(separator: "\n")
        var key = SymmetricKey(data: Array("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
        let authorization = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        sent.append(("Authorization", authorization))
        return Signed(headers: sent, canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature,
                      authorization: authorization)
    }

    /// A decoded path as it is sent and signed: every byte outside A-Z a-z 0-9 - _ . ~ and `/` as %XX.
    public static func escapedPath(_ path: String) -> String { escape(path, keepSlash: true) }

    /// A query name or value as it is sent and signed (`/` escaped too).
    public static func escapedQuery(_ text: String) -> String { escape(text, keepSlash: false) }

    static func escape(_ text: String, keepSlash: Bool) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepSlash:
                result.append("/")
            default:
                result += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
            }
        }
        return result
    }

    /// A header value with its ends trimmed and each run of spaces made one.
    static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// `YYYYMMDDTHHMMSSZ` in UTC.
    public static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    public static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var result = [UInt8]()
        for byte in bytes {
            result.append(digits[Int(byte >> 4)])
            result.append(digits[Int(byte & 15)])
        }
        return String(decoding: result, as: UTF8.self)
    }
}
