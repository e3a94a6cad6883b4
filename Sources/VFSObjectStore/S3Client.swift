import AsyncHTTPClient
import Crypto
import NIOCore
import NIOHTTP1
import NIOConcurrencyHelpers
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// An S3 error answer, or a request S3 never answered.
public enum S3Error: Error, CustomStringConvertible, Sendable {
    /// A status other than the one expected, with S3's `<Code>` and `<Message>`.
    case status(Int, code: String, message: String, key: String)
    /// A 200 answer that was not what the request asks for.
    case invalidResponse(String)

    public var description: String {
        switch self {
        case .status(let status, let code, let message, let key):
            return "S3 answered \(status) \(code.isEmpty ? "" : "\(code): ")\(message.isEmpty ? "(no message)" : message) for \"\(key)\""
        case .invalidResponse(let text): return "S3 answered with something unexpected: \(text)"
        }
    }

    /// S3's error code ("NoSuchKey", "NoSuchUpload"…), or "" when it sent none.
    public var code: String {
        if case .status(_, let code, _, _) = self { return code }
        return ""
    }

    public var httpStatus: Int? {
        if case .status(let status, _, _, _) = self { return status }
        return nil
    }
}

/// An object as a listing names it.
public struct S3Object: Sendable, Equatable {
    public let key: String
    public let size: Int64
    public let lastModified: Date
    public let etag: String
}

/// A multipart upload in progress, as `ListMultipartUploads` names it.
public struct S3MultipartUpload: Sendable, Equatable {
    public let key: String
    public let uploadID: String
    public let initiated: Date
}

/// The S3 requests the relay needs, signed with SigV4 over AsyncHTTPClient, path-style
/// (`ENDPOINT/BUCKET/KEY`, which every S3-compatible store takes; virtual hosts need DNS).
/// Bodies go as they are given (a part at most: S3 parts are held in memory, 5 MiB and
/// up); downloads are streamed to the caller chunk by chunk.
public struct S3Client: Sendable {
    public let endpoint: URL
    public let bucket: String
    let signer: SignatureV4
    /// Sends the requests that are not downloads (with the read timeout).
    let http: HTTPClient
    /// Sends downloads, which have no read timeout: a download waits while the relay's own
    /// client is slow to take what it already sent.
    let downloads: HTTPClient
    /// The longest a request that is not a download may take.
    public var timeout: TimeAmount = .seconds(300)
    /// How many times an idempotent request (GET, HEAD, PUT, DELETE) is sent before its
    /// failure counts: a dropped connection or a 5xx answer is tried again, after 0.2 s, then 0.4 s.
    /// A download cut off partway goes on from the byte reached, as often.
    public var attempts = 3

    /// `endpoint` is scheme, host and port (http://127.0.0.1:7480, https://s3.eu-west-1.amazonaws.com).
    /// A store that does not take the connection within `connectTimeout`, or that takes a
    /// request (not a download) and sends nothing for `readTimeout`, fails the request
    /// then, and it is not tried again: a relay answers 503 promptly rather than hold its
    /// client for minutes (AsyncHTTPClient's own connect timeout is 10 s, and it keeps
    /// trying to connect until a request's whole deadline).
    public init(endpoint: URL, bucket: String, region: String, credentials: S3Credentials,
                connectTimeout: TimeAmount = S3Client.defaultConnectTimeout, readTimeout: TimeAmount = S3Client.defaultReadTimeout) {
        self.endpoint = endpoint
        self.bucket = bucket
        signer = SignatureV4(credentials: credentials, region: region)
        http = S3Client.httpClient(connect: connectTimeout, read: readTimeout)
        downloads = S3Client.httpClient(connect: connectTimeout, read: nil)
    }

    public static let defaultConnectTimeout: TimeAmount = .seconds(5)
    /// Long enough for a store to join a large multipart upload or copy an object inside itself.
    public static let defaultReadTimeout: TimeAmount = .seconds(120)

    /// One HTTP client per pair of timeouts, made on first use and kept for the process
    /// (as `HTTPClient.shared` is), so connections to the store are reused.
    static func httpClient(connect: TimeAmount, read: TimeAmount?) -> HTTPClient {
        clients.withLockedValue { clients in
            let key = "\(connect.nanoseconds)/\(read?.nanoseconds ?? -1)"
            if let client = clients[key] { return client }
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: connect, read: read),
                                                         connectionPool: .init())
            configuration.httpVersion = .http1Only
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            clients[key] = client
            return client
        }
    }
    static let clients = NIOLockedValueBox<[String: HTTPClient]>([:])

    var hostHeader: String {
        let host = endpoint.host ?? "localhost"
        let bracketed = host.contains(":") ? "[\(host)]" : host
        guard let port = endpoint.port else { return bracketed }
        let standard = endpoint.scheme == "https" ? 443 : 80
        return port == standard ? bracketed : "\(bracketed):\(port)"
    }

    /// Sends one signed request; answers other than `expect` become `S3Error.status`.
    func send(_ method: HTTPMethod, key: String?, query: [(String, String)] = [], headers: [(String, String)] = [],
              body: ByteBuffer? = nil, expect: Set<Int> = [200], deadline: TimeAmount? = nil,
              on client: HTTPClient? = nil) async throws -> HTTPClientResponse {
        let path = "/\(bucket)" + (key.map { "/\($0)" } ?? "")
        let payload = body.map { body in body.withUnsafeReadableBytes { bytes in
            var hash = SHA256()
            hash.update(bufferPointer: bytes)
            return SignatureV4.hex(hash.finalize())
        } } ?? SignatureV4.emptyPayloadHash
        let queryText = query.map { "\(SignatureV4.escapedQuery($0.0))=\(SignatureV4.escapedQuery($0.1))" }.joined(separator: "&")
        var base = endpoint.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let url = base + SignatureV4.escapedPath(path) + (queryText.isEmpty ? "" : "?\(queryText)")
        // Signed anew for each attempt (the signature holds the time).
        func request() -> HTTPClientRequest {
            let signed = signer.sign(method: method.rawValue, path: path, query: query, headers: [("Host", hostHeader)] + headers,
                                     payloadHash: payload, date: Date())
            var request = HTTPClientRequest(url: url)
            request.method = method
            for header in signed.headers { request.headers.add(name: header.name, value: header.value) }
            if let body { request.body = .bytes(body) }
            return request
        }
        var attempt = 0
        var response: HTTPClientResponse
        while true {
            attempt += 1
            do {
                response = try await (client ?? http).execute(request(), timeout: deadline ?? timeout)
                // A store failing or throttling (500, 503 SlowDown…) answers an idempotent request again later.
                guard Self.idempotent.contains(method), attempt < attempts, response.status.code >= 500 else { break }
                _ = try? await response.body.collect(upTo: 64 << 10)
            } catch let error where Self.idempotent.contains(method) && attempt < attempts && Self.worthRetrying(error) {
                // A dropped or refused connection: the same request once more, on a new one.
            }
            try await Task.sleep(for: .milliseconds(100 << attempt))
        }
        guard expect.contains(Int(response.status.code)) else {
            let text = (try? await response.body.collect(upTo: 64 << 10)).map { String(buffer: $0) } ?? ""
            throw S3Error.status(Int(response.status.code), code: XMLText.values("Code", in: text).first ?? "",
                                 message: XMLText.values("Message", in: text).first ?? "", key: path)
        }
        return response
    }

    /// Methods whose request may be sent again without changing what it does (a PUT of a
    /// part or an object writes the same bytes again); a POST (create, complete) is sent once.
    static let idempotent: [HTTPMethod] = [.GET, .HEAD, .PUT, .DELETE]

    /// Whether a failed request is worth sending again: not one cancelled, or one that
    /// already took its whole deadline or read timeout.
    /// AsyncHTTPClient itself tries to connect again until its connect timeout, so a
    /// connection it could not make is not tried again here: what is, is one that was made
    /// and then dropped (closed or reset before the answer).
    static func worthRetrying(_ error: any Error) -> Bool {
        if error is CancellationError { return false }
        if let error = error as? HTTPClientError, [.deadlineExceeded, .cancelled, .connectTimeout, .readTimeout].contains(error) { return false }
        if let error = error as? IOError, [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT].contains(error.errnoCode) { return false }
        return true
    }

    /// The body of a small answer (a listing, an upload id).
    func text(_ response: HTTPClientResponse) async throws -> String {
        String(buffer: try await response.body.collect(upTo: 16 << 20))
    }

    /// Stores `body` as `key`; returns its ETag.
    @discardableResult
    public func put(_ key: String, _ body: ByteBuffer) async throws -> String {
        let response = try await send(.PUT, key: key, body: body)
        _ = try await response.body.collect(upTo: 1 << 20)
        return response.headers.first(name: "ETag") ?? ""
    }

    /// Streams `range` of `key` (all of it when nil) into `write`, chunk by chunk as it
    /// arrives. A download may take as long as it takes. One whose body ends early (the
    /// connection dropped midway) goes on with a ranged GET from the byte reached, of the
    /// same object (If-Match its ETag), `attempts` times in all; then it fails, after
    /// `write` has had only bytes of the object, in order.
    /// `readTimeout`: a read the relay makes for itself, inside a request (an upload's tail,
    /// its digest), not for a client that may be slow to take it: a store that sends
    /// nothing for the read timeout fails it, as it fails any other request.
    public func get(_ key: String, range: Range<Int64>? = nil, readTimeout: Bool = false,
                    into write: (ByteBuffer) async throws -> Void) async throws {
        guard range.map({ !$0.isEmpty }) ?? true else { return }
        var position = range?.lowerBound ?? 0
        // Where the download ends: known when a range is asked for, else from the first answer.
        var end = range?.upperBound
        var etag: String?
        var attempt = 1
        while true {
            var headers: [(String, String)] = []
            if let end { headers.append(("Range", "bytes=\(position)-\(end - 1)")) }
            if let etag { headers.append(("If-Match", etag)) }
            let response = try await send(.GET, key: key, headers: headers, expect: end == nil ? [200] : [206], deadline: .hours(24),
                                          on: readTimeout ? http : downloads)
            if end == nil {
                guard let length = response.headers.first(name: "Content-Length").flatMap({ Int64($0) }) else {
                    throw S3Error.invalidResponse("no Content-Length for \"\(key)\"")
                }
                end = length
            }
            etag = etag ?? response.headers.first(name: "ETag")
            let last = end!
            var writing = false
            do {
                for try await chunk in response.body {
                    position += Int64(chunk.readableBytes)
                    guard position <= last else {
                        throw S3Error.invalidResponse("more bytes of \"\(key)\" than the \(last) asked for")
                    }
                    writing = true
                    try await write(chunk)
                    writing = false
                }
            } catch let error where !writing && attempt < attempts && !(error is S3Error) && Self.worthRetrying(error) {
                // Cut off partway: the rest, on a new connection.
            }
            if position == last { return }
            guard attempt < attempts else {
                throw S3Error.invalidResponse("\(position - (range?.lowerBound ?? 0)) bytes of \"\(key)\" where \(last - (range?.lowerBound ?? 0)) were asked for")
            }
            attempt += 1
            try await Task.sleep(for: .milliseconds(100 << attempt))
        }
    }

    /// A whole (small) object, or nil if there is none.
    public func getSmall(_ key: String) async throws -> ByteBuffer? {
        do {
            let response = try await send(.GET, key: key)
            return try await response.body.collect(upTo: 64 << 20)
        } catch let error as S3Error where error.httpStatus == 404 {
            return nil
        }
    }

    /// The size of `key`, or nil if there is no such object.
    public func size(_ key: String) async throws -> Int64? {
        let response = try await send(.HEAD, key: key, expect: [200, 404])
        guard response.status.code == 200 else { return nil }
        return response.headers.first(name: "Content-Length").flatMap { Int64($0) }
    }

    /// Deletes `key`; a key that is not there is no error (S3 answers 204 either way).
    /// In a versioned bucket (as every bucket with Object Lock is) that only adds a delete
    /// marker and keeps the versions: then the marker's version id (`x-amz-version-id`;
    /// "" when the store does not name it), else nil.
    @discardableResult
    public func delete(_ key: String) async throws -> String? {
        let response = try await send(.DELETE, key: key, expect: [200, 204, 404])
        _ = try await response.body.collect(upTo: 1 << 20)
        guard response.headers.first(name: "x-amz-delete-marker") == "true" else { return nil }
        return response.headers.first(name: "x-amz-version-id") ?? ""
    }

    /// Deletes one version of `key` (in a versioned bucket, as every bucket with Object Lock
    /// is). A version locked in governance mode is refused (403 AccessDenied) unless
    /// `bypassingGovernance` sends `x-amz-bypass-governance-retention: true` (which the key
    /// must be allowed to).
    public func delete(_ key: String, version: String, bypassingGovernance: Bool = false) async throws {
        _ = try await send(.DELETE, key: key, query: [("versionId", version)],
                           headers: bypassingGovernance ? [("x-amz-bypass-governance-retention", "true")] : [],
                           expect: [200, 204, 404]).body.collect(upTo: 1 << 20)
    }

    /// The version ids of `key` (its versions and delete markers; ListObjectVersions), in
    /// a versioned bucket.
    public func versions(of key: String) async throws -> [String] {
        var versions: [String] = []
        var marker: (key: String, version: String)?
        repeat {
            var query = [("prefix", key), ("versions", "")]
            if let marker { query += [("key-marker", marker.key), ("version-id-marker", marker.version)] }
            let text = try await text(send(.GET, key: nil, query: query))
            for entry in XMLText.elements("Version", in: text) + XMLText.elements("DeleteMarker", in: text)
            where XMLText.values("Key", in: entry).first == key {
                if let id = XMLText.values("VersionId", in: entry).first { versions.append(id) }
            }
            let truncated = XMLText.values("IsTruncated", in: text).first == "true"
            marker = truncated ? (XMLText.values("NextKeyMarker", in: text).first ?? "", XMLText.values("NextVersionIdMarker", in: text).first ?? "") : nil
        } while marker != nil
        return versions
    }

    /// Whether the bucket has S3 Object Lock enabled (GetObjectLockConfiguration); a store
    /// without the feature, or a bucket without it, answers otherwise.
    public func objectLockEnabled() async throws -> Bool {
        let response = try await send(.GET, key: nil, query: [("object-lock", "")], expect: [200, 400, 403, 404, 405, 501])
        let text = try await text(response)
        return response.status.code == 200 && XMLText.values("ObjectLockEnabled", in: text).first == "Enabled"
    }

    /// The Object Lock retention of `key` (GetObjectRetention): its mode and date, or nil
    /// for an object not locked (or a bucket without Object Lock).
    public func retention(of key: String) async throws -> (mode: String, until: Date)? {
        let response = try await send(.GET, key: key, query: [("retention", "")], expect: [200, 400, 404])
        let text = try await text(response)
        guard response.status.code == 200, let mode = XMLText.values("Mode", in: text).first,
              let until = XMLText.values("RetainUntilDate", in: text).first.flatMap(XMLText.date) else { return nil }
        return (mode, until)
    }

    /// Locks `key` in governance mode until `until` (PutObjectRetention, with the
    /// Content-MD5 S3 asks of it): for a copy, whose lock headers Ceph RGW ignores.
    public func lockGovernance(_ key: String, until: Date) async throws {
        let document = "<Retention xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Mode>GOVERNANCE</Mode><RetainUntilDate>"
            + XMLText.timestamp(until) + "</RetainUntilDate></Retention>"
        let md5 = Data(Insecure.MD5.hash(data: Array(document.utf8))).base64EncodedString()
        _ = try await text(send(.PUT, key: key, query: [("retention", "")], headers: [("Content-MD5", md5)],
                                body: ByteBuffer(string: document)))
    }

    /// The headers that write an object locked in governance mode until `until` (S3
    /// Object Lock): only a delete that bypasses governance, by a key allowed to, removes
    /// it before then.
    public static func governanceLock(until: Date) -> [(String, String)] {
        [("x-amz-object-lock-mode", "GOVERNANCE"), ("x-amz-object-lock-retain-until-date", XMLText.timestamp(until))]
    }

    /// Every object whose key starts with `prefix`, page by page (ListObjectsV2).
    public func list(prefix: String, pageSize: Int = 1000) async throws -> [S3Object] {
        var objects: [S3Object] = []
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix), ("max-keys", "\(pageSize)")]
            if let token { query.append(("continuation-token", token)) }
            let text = try await text(send(.GET, key: nil, query: query))
            for item in XMLText.elements("Contents", in: text) {
                guard let key = XMLText.values("Key", in: item).first,
                      let size = XMLText.values("Size", in: item).first.flatMap({ Int64($0) }),
                      let modified = XMLText.values("LastModified", in: item).first.flatMap(XMLText.date) else {
                    throw S3Error.invalidResponse("a listing entry without key, size or date: \(item.prefix(200))")
                }
                objects.append(S3Object(key: key, size: size, lastModified: modified,
                                        etag: XMLText.values("ETag", in: item).first ?? ""))
            }
            let truncated = XMLText.values("IsTruncated", in: text).first == "true"
            token = truncated ? XMLText.values("NextContinuationToken", in: text).first : nil
            if truncated && token == nil { throw S3Error.invalidResponse("a truncated listing without a continuation token") }
        } while token != nil
        return objects
    }

    /// Lists at most one object of the bucket: whether the bucket is there and the key may
    /// read it, asked once within `deadline`.
    public func checkAccess(deadline: TimeAmount = .seconds(10)) async throws {
        _ = try await text(send(.GET, key: nil, query: [("list-type", "2"), ("max-keys", "1")], deadline: deadline))
    }

    /// Starts a multipart upload of `key` (the object it makes has `headers`, such as a
    /// lock); returns its upload id.
    public func createMultipartUpload(_ key: String, headers: [(String, String)] = []) async throws -> String {
        let text = try await text(send(.POST, key: key, query: [("uploads", "")], headers: headers))
        guard let id = XMLText.values("UploadId", in: text).first, !id.isEmpty else {
            throw S3Error.invalidResponse("no UploadId: \(text.prefix(200))")
        }
        return id
    }

    /// Uploads part `number` (1…10000; every part but the last at least 5 MiB); returns its ETag.
    public func uploadPart(_ key: String, uploadID: String, number: Int, _ body: ByteBuffer) async throws -> String {
        let response = try await send(.PUT, key: key, query: [("partNumber", "\(number)"), ("uploadId", uploadID)], body: body)
        _ = try await response.body.collect(upTo: 1 << 20)
        guard let etag = response.headers.first(name: "ETag"), !etag.isEmpty else {
            throw S3Error.invalidResponse("no ETag for part \(number) of \"\(key)\"")
        }
        return etag
    }

    /// Copies the object `source` of the bucket to `key`, inside the store (no byte passes
    /// through the relay): one CopyObject up to S3's 5 GiB limit, else a multipart upload
    /// of parts copied by range (UploadPartCopy), aborted if anything fails. The copy has
    /// `headers` (a lock: `governanceLock(until:)`).
    public func copy(_ source: String, to key: String, size: Int64, partSize: Int64 = 1 << 30,
                     headers: [(String, String)] = []) async throws {
        let from = [("x-amz-copy-source", SignatureV4.escapedPath("/\(bucket)/\(source)"))]
        guard size > Self.largestCopy else {
            try Self.checkAnswer(try await text(send(.PUT, key: key, headers: from + headers)), key: key)
            return
        }
        let uploadID = try await createMultipartUpload(key, headers: headers)
        do {
            var parts: [(number: Int, etag: String)] = []
            var start: Int64 = 0
            while start < size {
                let end = min(size, start + partSize)
                let number = parts.count + 1
                let text = try await text(send(.PUT, key: key, query: [("partNumber", "\(number)"), ("uploadId", uploadID)],
                                               headers: from + [("x-amz-copy-source-range", "bytes=\(start)-\(end - 1)")]))
                try Self.checkAnswer(text, key: key)
                guard let etag = XMLText.values("ETag", in: text).first, !etag.isEmpty else {
                    throw S3Error.invalidResponse("no ETag for copied part \(number) of \"\(key)\"")
                }
                parts.append((number, etag))
                start = end
            }
            try await completeMultipartUpload(key, uploadID: uploadID, parts: parts)
        } catch {
            try? await abortMultipartUpload(key, uploadID: uploadID)
            throw error
        }
    }

    /// The largest object one CopyObject copies (S3's limit).
    static let largestCopy: Int64 = 5 << 30

    /// A copy or a completion may answer 200 and still fail, with an <Error> document in the body.
    static func checkAnswer(_ text: String, key: String) throws {
        if text.contains("<Error>") {
            throw S3Error.status(200, code: XMLText.values("Code", in: text).first ?? "", message: XMLText.values("Message", in: text).first ?? "",
                                 key: key)
        }
    }

    /// Joins the parts into the object `key`.
    public func completeMultipartUpload(_ key: String, uploadID: String, parts: [(number: Int, etag: String)]) async throws {
        let document = "<CompleteMultipartUpload>" + parts.map {
            "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(XMLText.escaped($0.etag))</ETag></Part>"
        }.joined() + "</CompleteMultipartUpload>"
        // S3 may answer 200 and still fail, with an <Error> document in the body.
        try Self.checkAnswer(try await text(send(.POST, key: key, query: [("uploadId", uploadID)], body: ByteBuffer(string: document))),
                                 key: key)
    }

    /// Throws the upload's parts away; one already gone is no error.
    public func abortMultipartUpload(_ key: String, uploadID: String) async throws {
        _ = try await send(.DELETE, key: key, query: [("uploadId", uploadID)], expect: [200, 204, 404]).body.collect(upTo: 1 << 20)
    }

    /// The multipart uploads in progress under `prefix`.
    public func multipartUploads(prefix: String) async throws -> [S3MultipartUpload] {
        var uploads: [S3MultipartUpload] = []
        var marker: (key: String, id: String)?
        repeat {
            var query = [("uploads", ""), ("prefix", prefix)]
            if let marker { query += [("key-marker", marker.key), ("upload-id-marker", marker.id)] }
            let text = try await text(send(.GET, key: nil, query: query))
            for item in XMLText.elements("Upload", in: text) {
                guard let key = XMLText.values("Key", in: item).first, let id = XMLText.values("UploadId", in: item).first,
                      let initiated = XMLText.values("Initiated", in: item).first.flatMap(XMLText.date) else {
                    throw S3Error.invalidResponse("an upload entry without key, id or date: \(item.prefix(200))")
                }
                uploads.append(S3MultipartUpload(key: key, uploadID: id, initiated: initiated))
            }
            let truncated = XMLText.values("IsTruncated", in: text).first == "true"
            marker = truncated ? (XMLText.values("NextKeyMarker", in: text).first ?? "", XMLText.values("NextUploadIdMarker", in: text).first ?? "") : nil
        } while marker != nil
        return uploads
    }
}

/// Reads the few flat XML documents S3 answers with (listings, upload ids, errors): the
/// text of named elements, which hold no attributes and no markup of their own. Not a
/// general XML parser: FoundationXML would bring libxml2 into the relay for these.
enum XMLText {
    /// The inner text of each `<name>` element, in order, entities decoded.
    static func values(_ name: String, in xml: String) -> [String] { elements(name, in: xml).map(unescaped) }

    /// The inner markup of each `<name>` element, in order.
    static func elements(_ name: String, in xml: String) -> [String] {
        var result: [String] = []
        var rest = xml[...]
        let open = "<\(name)>", close = "</\(name)>"
        while let start = rest.firstRange(of: open) {
            guard let end = rest[start.upperBound...].firstRange(of: close) else { break }
            result.append(String(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return result
    }

    static func unescaped(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "amp": result += "&"
            case "lt": result += "<"
            case "gt": result += ">"
            case "quot": result += "\""
            case "apos": result += "'"
            default:
                let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16) : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                if let number, let scalar = Unicode.Scalar(number) { result.unicodeScalars.append(scalar) } else { result += "&\(entity);" }
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }

    static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }

    /// `2026-11-27T03:40:22Z`: a time as S3 headers take it (whole seconds, rounded up).
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.up))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// `2026-11-27T03:40:22.494Z` (fractions ignored).
    static func date(_ text: String) -> Date? {
        let digits = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard digits.count >= 6 else { return nil }
        var parts = tm()
        parts.tm_year = Int32(digits[0] - 1900)
        parts.tm_mon = Int32(digits[1] - 1)
        parts.tm_mday = Int32(digits[2])
        parts.tm_hour = Int32(digits[3])
        parts.tm_min = Int32(digits[4])
        parts.tm_sec = Int32(digits[5])
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
