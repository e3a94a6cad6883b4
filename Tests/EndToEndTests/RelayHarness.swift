import Foundation
import Testing
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A `vfs-relay serve` on 127.0.0.1, port 0, in a data folder (the shared
/// BackgroundServer fixture: stopped by `stop()` or when released, SIGTERM then SIGKILL).
final class RelayProcess: @unchecked Sendable {
    let data: URL
    let server: BackgroundServer

    /// Starts the relay and waits for its ready line.
    init(data: URL, arguments: [String] = []) throws {
        self.data = data
        // Tests read the access lines; a relay logs them only from --log-level info.
        let logging = arguments.contains("--log-level") ? [] : ["--log-level", "info"]
        server = try BackgroundServer("vfs-relay", ["serve", "--listen", "127.0.0.1:0", "--data", data.path] + logging + arguments,
                                      timeout: 60, grace: 30)
    }

    var port: Int { server.port }
    var stdoutText: String { server.standardOutput }
    var stderrText: String { server.standardError }
    var isRunning: Bool { server.isRunning }

    /// SIGTERM (SIGKILL after the grace); the exit status, 0 for a clean stop.
    @discardableResult
    func stop() -> Int32 {
        server.stop()
        return server.process.terminationReason == .exit ? server.process.terminationStatus : -1
    }

    /// A crash: SIGKILL at once.
    func crash() {
        guard server.isRunning else { return }
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// An HTTP/1.1 answer.
struct HTTPAnswer {
    let status: Int
    /// Header names in lowercase.
    let headers: [String: String]
    let body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }

    func json<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: Data(body))
    }
}

/// A blocking HTTP/1.1 connection to 127.0.0.1 over a plain socket: enough to drop a
/// connection mid-body and to read server-sent events as they come.
final class RawConnection {
    let fd: Int32
    private var buffer = [UInt8]()
    /// Why the last `fill` got nothing: the peer closed, the receive timeout passed, or an error.
    private var stopped = ""

    /// `timeout` bounds each wait for bytes; it is generous because a loaded 2-core machine
    /// running the whole suite has been seen to keep one answer waiting over 30 s. `from`:
    /// another loopback address to connect from (127.0.0.2: another client).
    init(port: Int, timeout: Int = 120, from source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket failed") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(fd)
                throw HarnessError("cannot bind to \(source)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw HarnessError("cannot connect to 127.0.0.1:\(port)")
        }
        setTimeout(seconds: timeout)
    }

    deinit { close(fd) }

    func setTimeout(seconds: Int) {
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw HarnessError("send failed") }
            sent += n
        }
    }

    /// True once the peer closes the connection (end of stream or reset), false if it is
    /// still open when the receive timeout passes. Whatever arrives first is discarded.
    func closedByPeer() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
        }
    }

    func sendHead(_ method: String, _ path: String, headers: [String: String]) throws {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        try send(Array(text.utf8))
    }

    /// More bytes, or false at end of stream or timeout.
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
        guard n > 0 else {
            let code = errno
            stopped = n == 0 ? "the peer closed the connection"
                : code == EAGAIN || code == EWOULDBLOCK ? "no bytes within the receive timeout"
                : "recv failed: \(String(cString: strerror(code)))"
            return false
        }
        buffer += chunk[0..<n]
        return true
    }

    private func line() throws -> String {
        while true {
            if let i = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<i])
                buffer.removeFirst(i + 1)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard fill() else { throw HarnessError("connection ended in a line: \(stopped)") }
        }
    }

    private func bytes(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { guard fill() else { throw HarnessError("connection ended early: \(stopped)") } }
        let out = Array(buffer[..<count])
        buffer.removeFirst(count)
        return out
    }

    func readHead() throws -> (Int, [String: String]) {
        let status = try line().split(separator: " ")
        guard status.count >= 2, let code = Int(status[1]) else { throw HarnessError("bad status line") }
        var headers = [String: String]()
        while true {
            let header = try line()
            if header.isEmpty { break }
            if let colon = header.firstIndex(of: ":") {
                headers[header[..<colon].lowercased()] = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return (code, headers)
    }

    /// The next piece of a chunked body; nil at its end.
    func readChunk() throws -> [UInt8]? {
        guard let size = Int(try line().split(separator: ";")[0], radix: 16) else { throw HarnessError("bad chunk size") }
        if size == 0 {
            _ = try? line()
            return nil
        }
        let data = try bytes(size)
        _ = try line()
        return data
    }

    func readAnswer(method: String) throws -> HTTPAnswer {
        let (status, headers) = try readHead()
        var body = [UInt8]()
        if method == "HEAD" || status == 204 || status == 304 {
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while let chunk = try readChunk() { body += chunk }
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            body = try bytes(length)
        } else {
            while fill() {}
            body = buffer
            buffer = []
        }
        return HTTPAnswer(status: status, headers: headers, body: body)
    }
}

/// A client of a relay on a port: one connection per request.
struct RelayClient: Sendable {
    let port: Int

    func request(_ method: String, _ path: String, token: String? = nil, json: String? = nil, body: [UInt8]? = nil,
                 headers: [String: String] = [:]) throws -> HTTPAnswer {
        let connection = try RawConnection(port: port)
        var headers = headers
        headers["Connection"] = "close"
        if let token { headers["Authorization"] = "Bearer \(token)" }
        let payload = json.map { Array($0.utf8) } ?? body
        if json != nil { headers["Content-Type"] = "application/json" }
        if let payload { headers["Content-Length"] = "\(payload.count)" } else if ["POST", "PUT", "PATCH"].contains(method) {
            headers["Content-Length"] = "0"
        }
        do {
            try connection.sendHead(method, path, headers: headers)
            if let payload, !payload.isEmpty { try connection.send(payload) }
            return try connection.readAnswer(method: method)
        } catch let error as HarnessError {
            throw HarnessError("\(method) \(path): \(error)")
        }
    }

    static let tus = ["Tus-Resumable": "1.0.0"]

    /// Creates a tus upload of `length` bytes; returns its path.
    func createUpload(length: Int, token: String) throws -> String {
        let answer = try request("POST", "/v1/uploads", token: token, headers: Self.tus.merging(["Upload-Length": "\(length)"]) { $1 })
        guard answer.status == 201, let location = answer.headers["location"] else {
            throw HarnessError("upload creation: \(answer.status) \(answer.text)")
        }
        return location
    }

    func offset(_ location: String, token: String) throws -> Int {
        let answer = try request("HEAD", location, token: token, headers: Self.tus)
        guard answer.status == 200, let offset = answer.headers["upload-offset"].flatMap({ Int($0) }) else {
            throw HarnessError("HEAD \(location): \(answer.status)")
        }
        return offset
    }

    func patch(_ location: String, token: String, offset: Int, _ bytes: [UInt8]) throws -> HTTPAnswer {
        try request("PATCH", location, token: token, body: bytes, headers: Self.tus.merging([
            "Upload-Offset": "\(offset)", "Content-Type": "application/offset+octet-stream",
        ]) { $1 })
    }

    /// A whole upload in `pieces` PATCHes; returns the upload id.
    func upload(_ content: [UInt8], token: String, pieces: Int = 1) throws -> String {
        let location = try createUpload(length: content.count, token: token)
        let step = max(1, (content.count + pieces - 1) / pieces)
        var offset = 0
        while offset < content.count {
            let end = min(content.count, offset + step)
            let answer = try patch(location, token: token, offset: offset, Array(content[offset..<end]))
            guard answer.status == 204 else { throw HarnessError("PATCH: \(answer.status) \(answer.text)") }
            offset = end
        }
        return String(location.split(separator: "/").last!)
    }

    func enroll(code: String, name: String) throws -> (id: String, token: String) {
        let answer = try request("POST", "/v1/enroll",
                                 json: #"{"code":"\#(code)","name":"\#(name)","platform":"linux","recipient":"age1\#(name)"}"#)
        guard answer.status == 201,
              let object = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
              let device = object["device"] as? [String: Any], let id = device["id"] as? String,
              let token = object["token"] as? String else {
            throw HarnessError("enrolment: \(answer.status) \(answer.text)")
        }
        return (id, token)
    }

    /// Sends a finished upload to devices; returns the transfer id.
    func send(upload: String, to devices: [String], token: String) throws -> String {
        let list = devices.map { "\"\($0)\"" }.joined(separator: ",")
        let answer = try request("POST", "/v1/transfers", token: token, json: #"{"upload":"\#(upload)","devices":[\#(list)]}"#)
        guard answer.status == 201, let object = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
              let id = object["id"] as? String else {
            throw HarnessError("transfer: \(answer.status) \(answer.text)")
        }
        return id
    }
}

/// One server-sent event.
struct SSEEvent: Equatable {
    var id: String?
    var event: String?
    var data: String
}

/// An open `GET /v1/events` stream, read as it arrives.
final class EventStream {
    let connection: RawConnection
    let status: Int
    private var text = ""
    private(set) var comments = [String]()
    private(set) var ended = false

    init(port: Int, token: String, lastEventID: String? = nil) throws {
        connection = try RawConnection(port: port, timeout: 20)
        var headers = ["Authorization": "Bearer \(token)", "Accept": "text/event-stream"]
        if let lastEventID { headers["Last-Event-ID"] = lastEventID }
        try connection.sendHead("GET", "/v1/events", headers: headers)
        let (status, headers2) = try connection.readHead()
        self.status = status
        if status != 200 || headers2["content-type"] != "text/event-stream" { ended = true }
    }

    /// The next event (comments are collected on the way); nil when the stream ends.
    func next() throws -> SSEEvent? {
        while true {
            if let range = text.range(of: "\n\n") {
                let block = String(text[..<range.lowerBound])
                text.removeSubrange(..<range.upperBound)
                var event = SSEEvent(id: nil, event: nil, data: "")
                var isEvent = false
                for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix(":") { comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces)); continue }
                    let parts = line.split(separator: ":", maxSplits: 1).map { $0.hasPrefix(" ") ? String($0.dropFirst()) : String($0) }
                    guard parts.count == 2 else { continue }
                    switch parts[0] {
                    case "id": event.id = parts[1]; isEvent = true
                    case "event": event.event = parts[1]; isEvent = true
                    case "data": event.data = parts[1]; isEvent = true
                    default: break
                    }
                }
                if isEvent { return event }
                continue
            }
            guard !ended, let chunk = try connection.readChunk() else {
                ended = true
                return nil
            }
            text += String(decoding: chunk, as: UTF8.self)
        }
    }

    /// Reads until a keep-alive comment has arrived; false if the stream ended first.
    func waitForKeepAlive() throws -> Bool {
        while !comments.contains("keep-alive") && !text.contains(": keep-alive\n") {
            guard let chunk = try connection.readChunk() else { return false }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return true
    }
}

/// A relay data folder with an organisation, users and enrolment codes, made by the CLI.
struct RelayAdmin {
    let data: URL
    /// More options of every command (`--database URL` of a relay on PostgreSQL, `--blobs s3://…`).
    var options: [String] = []

    @discardableResult
    func run(_ arguments: [String]) throws -> Run {
        try Tools.run("vfs-relay", arguments + ["--data", data.path] + options)
    }

    /// Adds a user (and the organisation if new); returns an enrolment code.
    func addUser(_ email: String, org: String, admin: Bool = false) throws -> String {
        _ = try run(["init"])
        _ = try run(["org", "add", org])
        let result = try run(["user", "add", email, "--org", org] + (admin ? ["--admin"] : []))
        guard result.status == 0 else { throw HarnessError("user add: \(result.stderr)") }
        return result.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func invite(_ email: String) throws -> String {
        let result = try run(["invite", email])
        guard result.status == 0 else { throw HarnessError("invite: \(result.stderr)") }
        return result.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
