import AsyncHTTPClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import NIOSSL
import VFSRelayProtocol

/// One relay's API for one device: bearer token, JSON bodies, and errors as
/// `RelayClientError` (an error status keeps its status and code; no connection is
/// `.unreachable`).
public final class RelayClient: Sendable {
    public let baseURL: String
    public let token: String?
    /// Seconds to wait for a connection and for each request's answer (nil: 10 and 60).
    public let timeout: Int?
    /// What is tried again after a temporary failure, and for how long (`--retry-for`).
    public let retry: RetryPolicy
    let http: HTTPClient

    /// `baseURL` such as `http://127.0.0.1:8787` (a trailing slash is dropped). `caFile`:
    /// trust the CA certificates of this PEM file for https, instead of the system's.
    public init(baseURL: String, token: String?, timeout: Int? = nil, caFile: String? = nil, retry: RetryPolicy = .none) {
        self.retry = retry
        var url = baseURL
        while url.hasSuffix("/") { url.removeLast() }
        self.baseURL = url
        self.token = token
        self.timeout = timeout
        var configuration = HTTPClient.Configuration()
        // A refused connection is an answer: don't retry it until the connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout = .init(connect: .seconds(Int64(timeout ?? 10)), read: .seconds(120))
        configuration.decompression = .disabled
        if let caFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(caFile)
            configuration.tlsConfiguration = tls
        }
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Call once when done (every path of a command does, through `withClient`).
    public func shutdown() async {
        try? await http.shutdown()
    }

    /// Runs `body` with a client and shuts it down afterwards, whatever happens.
    public static func with<R>(baseURL: String, token: String?, timeout: Int? = nil, caFile: String? = nil, retry: RetryPolicy = .none,
                               _ body: (RelayClient) async throws -> R) async throws -> R {
        if let caFile { try checkCAFile(caFile) }
        let client = RelayClient(baseURL: baseURL, token: token, timeout: timeout, caFile: caFile, retry: retry)
        do {
            let result = try await body(client)
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// A request to `path` with the token and the given headers.
    func request(_ method: HTTPMethod, _ path: String, headers: [(String, String)] = []) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        return request
    }

    /// Sends `request`; a failure before any answer is `.unreachable`.
    func execute(_ request: HTTPClientRequest, timeout: TimeAmount = .minutes(10)) async throws -> HTTPClientResponse {
        do {
            return try await http.execute(request, timeout: timeout)
        } catch let error as RelayClientError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw failure(error)
        }
    }

    /// A CA file that holds at least one PEM certificate, checked before anything is sent
    /// (else the failure would show only as an unreachable relay).
    public static func checkCAFile(_ path: String) throws {
        guard FileManager.default.isReadableFile(atPath: path) else { throw RelayClientError.badCAFile(path: path, missing: true) }
        guard let certificates = try? NIOSSLCertificate.fromPEMFile(path), !certificates.isEmpty else {
            throw RelayClientError.badCAFile(path: path, missing: false)
        }
    }

    /// What a request that got no answer throws: a certificate this machine does not
    /// trust is said as such (not "unreachable": retrying will not help), the rest is
    /// `.unreachable`.
    func failure(_ error: Error) -> RelayClientError {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return .untrustedCertificate(url: baseURL, reason: "its chain does not lead to a trusted CA, or it does not name the host")
        }
        // NIOSSL checks the name after the chain: a certificate a trusted CA signed for
        // another name is as untrusted (77), not a relay that is down.
        if text.contains("failedToValidateHostname") {
            return .untrustedCertificate(url: baseURL, reason: "it is for another name than the relay's host")
        }
        return .unreachable(url: baseURL, reason: reason(error))
    }

    /// `describe`, with a timeout said plainly.
    func reason(_ error: Error) -> String {
        let text = Self.describe(error)
        guard text.contains("deadlineExceeded") || text.contains("readTimeout") || text == "connection timed out" else { return text }
        return "no answer in time" + (timeout.map { " (--timeout \($0))" } ?? "")
    }

    /// How long a request waits for its whole (small) answer.
    var answerTimeout: TimeAmount { .seconds(Int64(timeout ?? 60)) }

    /// A relay URL as people write it (relay.json, VFS_RELAY, enroll): http or https, a host.
    /// `insecureHTTP`: plain http to a host beyond loopback is allowed (else refused).
    public static func validate(url: String, from source: String, insecureHTTP: Bool = false) throws {
        let parsed = URL(string: url)
        guard let parsed, ["http", "https"].contains(parsed.scheme ?? ""), let host = parsed.host, !host.isEmpty,
              parsed.query == nil, parsed.fragment == nil, !url.contains(where: { $0 == " " || $0 == "\n" }) else {
            throw RelayClientError.invalidURL(url: url, source: source)
        }
        if parsed.scheme == "http", !insecureHTTP, !isLoopback(host) {
            throw RelayClientError.cleartext(url: url, host: host)
        }
    }

    /// This machine, by name or address: localhost, 127.0.0.0/8, ::1.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" || bare == "::1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The reason of an `.unreachable` whose request never left (`RetryPolicy` sends it again).
    static let refused = "connection refused"

    static func describe(_ error: Error) -> String {
        let text = String(describing: error)
        if text.contains("connectionRefused") || text.contains("Connection refused") || text.contains("ECONNREFUSED") {
            return refused
        }
        if text.contains("connectTimeout") { return "connection timed out" }
        if text.contains("remoteConnectionClosed") { return "the connection was closed" }
        return text
    }

    /// The largest JSON answer (or error body) read: a hostile relay's endless body
    /// ends there, with `.badAnswer`, instead of growing the tool without bound.
    static let answerLimit = 8 << 20

    /// Reads a whole (small) body; throws the error an error status stands for.
    func collect(_ response: HTTPClientResponse, limit: Int = answerLimit) async throws -> [UInt8] {
        let buffer: ByteBuffer
        do {
            buffer = try await response.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw RelayClientError.badAnswer(url: baseURL, reason: "an answer longer than \(limit) bytes")
        } catch {
            throw failure(error)
        }
        let bytes = Array(buffer.readableBytesView)
        try Self.check(response.status, bytes)
        return bytes
    }

    /// An error status becomes `.rejected` with the body's code and message.
    static func check(_ status: HTTPResponseStatus, _ body: [UInt8]) throws {
        guard status.code >= 400 else { return }
        if let error = try? decoder.decode(RelayErrorBody.self, from: Data(body)) {
            throw RelayClientError.rejected(status: Int(status.code), code: error.error, message: error.message)
        }
        throw RelayClientError.rejected(status: Int(status.code), code: "http", message: status.reasonPhrase)
    }

    /// A request without a body whose JSON answer decodes as `T`.
    public func call<T: Decodable>(_ method: HTTPMethod, _ path: String, as type: T.Type) async throws -> T {
        try decode(T.self, try await send(method, path, json: nil), path: path)
    }

    /// A JSON request whose JSON answer decodes as `T`.
    public func call<T: Decodable, B: Encodable>(_ method: HTTPMethod, _ path: String, body: B, as type: T.Type) async throws -> T {
        try decode(T.self, try await send(method, path, json: try Self.encoder.encode(body)), path: path)
    }

    /// Decodes an answer, then checks its ids and digests (`CheckedAnswer`) before any
    /// caller can use them.
    func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8], path: String) throws -> T {
        let value: T
        do {
            value = try Self.decoder.decode(T.self, from: Data(bytes))
        } catch {
            throw RelayClientError.badAnswer(url: baseURL + path, reason: "\(error)")
        }
        try (value as? any CheckedAnswer)?.checkAnswer()
        return value
    }

    /// A request whose answer body is returned as bytes (an error status is thrown), of
    /// at most `limit` bytes (the usual answer limit without); one that fails for a while
    /// is sent again as `retry` allows.
    public func send(_ method: HTTPMethod, _ path: String, json: Data? = nil, limit: Int? = nil) async throws -> [UInt8] {
        try await exchange(method == .GET || method == .HEAD ? .idempotent : .once, limit: limit) {
            var request = self.request(method, path)
            if let json {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(bytes: json))
            } else if method == .POST || method == .PUT || method == .PATCH {
                request.headers.add(name: "Content-Length", value: "0")
            }
            return request
        }.1
    }

    /// A request (`make` builds each attempt) and its whole (small: at most `limit`, the
    /// usual answer limit without) answer, an error status thrown; sent again after a
    /// temporary failure as `retry` allows (`replay`).
    func exchange(_ replay: RetryPolicy.Replay, limit: Int? = nil, _ make: () -> HTTPClientRequest) async throws -> (HTTPClientResponse, [UInt8]) {
        try await retry.run(replay) {
            let response = try await execute(make(), timeout: answerTimeout)
            return (response, try await collect(response, limit: limit ?? Self.answerLimit))
        }
    }

    // MARK: The API, one call per route the tools use.

    public func health() async throws -> HealthStatus {
        try await call(.GET, RelayPaths.health, as: HealthStatus.self)
    }

    public func enroll(_ body: EnrollRequest) async throws -> EnrollResponse {
        try await call(.POST, RelayPaths.enroll, body: body, as: EnrollResponse.self)
    }

    public func devices() async throws -> [Device] {
        try await call(.GET, RelayPaths.devices, as: [Device].self)
    }

    public func device(_ id: String) async throws -> Device {
        try await call(.GET, RelayPaths.device(id), as: Device.self)
    }

    public func renameDevice(_ id: String, to name: String) async throws -> Device {
        try await call(.PATCH, RelayPaths.device(id), body: DeviceRename(name: name), as: Device.self)
    }

    public func invalidateDevice(_ id: String) async throws {
        _ = try await send(.DELETE, RelayPaths.device(id))
    }

    public func groups() async throws -> [DeviceGroup] {
        try await call(.GET, RelayPaths.groups, as: [DeviceGroup].self)
    }

    public func group(_ name: String) async throws -> DeviceGroup {
        try await call(.GET, RelayPaths.group(Self.escape(name)), as: DeviceGroup.self)
    }

    public func createGroup(_ name: String, members: [String]) async throws -> DeviceGroup {
        try await call(.POST, RelayPaths.groups, body: GroupCreate(name: name, members: members), as: DeviceGroup.self)
    }

    public func addMember(_ group: String, _ device: String) async throws -> DeviceGroup {
        try await call(.PUT, RelayPaths.groupMember(Self.escape(group), device), as: DeviceGroup.self)
    }

    public func removeMember(_ group: String, _ device: String) async throws -> DeviceGroup {
        try await call(.DELETE, RelayPaths.groupMember(Self.escape(group), device), as: DeviceGroup.self)
    }

    public func deleteGroup(_ name: String) async throws {
        _ = try await send(.DELETE, RelayPaths.group(Self.escape(name)))
    }

    public func createTransfer(_ body: TransferCreate) async throws -> OutboxEntry {
        try await call(.POST, RelayPaths.transfers, body: body, as: OutboxEntry.self)
    }

    /// The inbox. Without `digests` the relay may list a finished transfer whose upload
    /// deferred its SHA-256 with `"sha256": ""` (`DeferredDigest`): for a caller whose
    /// check is end to end (age and the signed digests); with them it works them out.
    public func inbox(digests: Bool = true) async throws -> [InboxEntry] {
        let path = RelayPaths.inbox
        let bytes = try await exchange(.idempotent) {
            request(.GET, path, headers: digests ? [] : [(DeferredDigest.header, DeferredDigest.optional)])
        }.1
        return try decode([InboxEntry].self, bytes, path: path)
    }

    public func outbox() async throws -> [OutboxEntry] {
        try await call(.GET, RelayPaths.outbox, as: [OutboxEntry].self)
    }

    public func ack(_ transfer: String) async throws {
        _ = try await send(.POST, RelayPaths.transferAck(transfer))
    }

    public func decline(_ transfer: String) async throws {
        _ = try await send(.POST, RelayPaths.transferDecline(transfer))
    }

    public func cancel(_ transfer: String) async throws {
        _ = try await send(.DELETE, RelayPaths.transfer(transfer))
    }

    /// Group names are letters, digits, `.`, `_`, `-`; anything else is escaped so it
    /// can't change the path (the relay then answers 404 or 400).
    static func escape(_ segment: String) -> String {
        percentEscaped(segment, keeping: "._-")
    }

    /// `text` with every UTF-8 byte but ASCII letters, digits and `keeping` written as
    /// `%XX` (RFC 3986; non-ASCII letters too, which the relay decodes the same).
    static func percentEscaped(_ text: String, keeping: String) -> String {
        let kept = Set(keeping.utf8)
        let digits = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                out.append(byte)
            case _ where kept.contains(byte):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension RelayClient {
    /// A one-time code to enrol another device of this user.
    public func invite() async throws -> Invite {
        try await call(.POST, RelayPaths.invites, as: Invite.self)
    }
}

extension RelayClient {
    /// A one-time sign-in code for the relay's admin web page (administrators only).
    public func adminLoginCode() async throws -> AdminLoginCode {
        try await call(.POST, RelayPaths.adminLoginCodes, as: AdminLoginCode.self)
    }
}
