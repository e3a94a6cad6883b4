#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
import Testing
import VFSRelayClient
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// A tus server for one upload on 127.0.0.1, port 0: HEAD answers the offset; the first
/// `busy` PATCHes get 409, as a relay answers while another request (through it or another
/// relay on the same database) writes the upload; later PATCHes at the offset append.
/// One request per connection (Connection: close), served on a thread of its own: the
/// client's body is produced on the shared task pool, which a blocking server must not hold.
final class BusyTusServer: Sendable {
    struct State {
        var bytes = [UInt8]()
        var busy: Int
        var busyAnswer: String
        var length: Int
        var log = [String]()
    }

    let fd: Int32
    let port: Int
    let state: NIOLockedValueBox<State>
    let stopped = NIOLockedValueBox(false)

    /// `busyAnswer`: the status line of the refusals, "409 Conflict" as a relay answers,
    /// or e.g. "502 Bad Gateway" as nginx answers while the relay behind it is gone.
    /// `length`: the upload's declared length, which HEAD answers.
    /// `holding`: the bytes the upload has already (a resumed upload's first part).
    init(busy: Int, busyAnswer: String = "409 Conflict", length: Int, holding: [UInt8] = []) throws {
        state = NIOLockedValueBox(State(bytes: holding, busy: busy, busyAnswer: busyAnswer, length: length))
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard listener >= 0, bound else { throw ServerError.setup }
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
        fd = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            Unmanaged<BusyTusServer>.fromOpaque(raw!).takeRetainedValue().serve()
            return nil
        }, Unmanaged.passRetained(self).toOpaque())
        guard started == 0 else { throw ServerError.setup }
        pthread_detach(thread)
    }

    enum ServerError: Error { case setup }

    var log: [String] { state.withLockedValue { $0.log } }
    var bytes: [UInt8] { state.withLockedValue { $0.bytes } }

    func stop() {
        stopped.withLockedValue { $0 = true }
    }

    func serve() {
        while !stopped.withLockedValue({ $0 }) {
            let connection = accept(fd, nil, nil)
            if connection < 0 {
                usleep(2000)
                continue
            }
            handle(connection)
            close(connection)
        }
        close(fd)
    }

    func handle(_ connection: Int32) {
        // Long: in a loaded full run the client's body may wait a while for a thread.
        var timeout = timeval(tv_sec: 300, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var data = [UInt8]()
        func receive() -> Bool {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress!, $0.count, 0) }
            guard n > 0 else { return false }
            data += chunk[0..<n]
            return true
        }
        let end = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            guard receive() else { return }
            headEnd = data.indices.dropLast(3).first { Array(data[$0..<$0 + 4]) == end }
        }
        let lines = String(decoding: data[..<headEnd!], as: UTF8.self).split(separator: "\r\n").map(String.init)
        let method = lines.first?.split(separator: " ").first.map(String.init) ?? ""
        var headers = [String: String]()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].drop { $0 == " " }.description
        }
        var body = Array(data[(headEnd! + 4)...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            // A body of unknown length (a source still being written): decode its chunks.
            var decoded = [UInt8]()
            var at = 0
            func line() -> String? {
                while true {
                    if let cr = body[at...].indices.dropLast().first(where: { body[$0] == 13 && body[$0 + 1] == 10 }) {
                        defer { at = cr + 2 }
                        return String(decoding: body[at..<cr], as: UTF8.self)
                    }
                    let before = data.count
                    guard receive() else { return nil }
                    body += data[before...]
                }
            }
            while true {
                guard let size = line().flatMap({ Int($0.split(separator: ";")[0], radix: 16) }) else { return }
                while body.count < at + size + 2 {
                    let before = data.count
                    guard receive() else { return }
                    body += data[before...]
                }
                decoded += body[at..<at + size]
                at += size + 2
                if size == 0 { break }
            }
            body = decoded
        } else {
            let length = Int(headers["content-length"] ?? "0") ?? 0
            while body.count < length {
                let before = data.count
                guard receive() else { return }
                body += data[before...]
            }
        }
        let answer: String = state.withLockedValue { state in
            let tus = "Tus-Resumable: 1.0.0\r\nConnection: close\r\n"
            switch method {
            case "HEAD":
                state.log.append("HEAD")
                return "HTTP/1.1 200 OK\r\n\(tus)Upload-Offset: \(state.bytes.count)\r\nUpload-Length: \(state.length)\r\nContent-Length: 0\r\n\r\n"
            case "PATCH" where state.busy > 0 || Int(headers["upload-offset"] ?? "") != state.bytes.count:
                state.busy = max(0, state.busy - 1)
                state.log.append("PATCH " + state.busyAnswer.prefix(3))
                let json = #"{"error":"conflict","message":"another request is writing upload \"u1\""}"#
                return "HTTP/1.1 \(state.busyAnswer)\r\n\(tus)Content-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)"
            case "PATCH":
                state.bytes += body
                state.log.append("PATCH 204")
                return "HTTP/1.1 204 No Content\r\n\(tus)Upload-Offset: \(state.bytes.count)\r\n\r\n"
            default:
                return "HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
            }
        }
        let bytes = Array(answer.utf8)
        _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}

@Suite("tus uploads: a busy upload is retried")
struct TusUploaderTests {
    @Test("a PATCH refused with 409 while another request writes the upload is retried: HEAD for the offset, then the bytes; all arrive once")
    func busyUploadIsRetried() async throws {
        let content = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 7) }
        let server = try BusyTusServer(busy: 2, length: content.count)
        defer { server.stop() }
        let path = "/tmp/vfs-tus-test-\(UUID().uuidString)"
        try Data(content).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        try await RelayClient.with(baseURL: "http://127.0.0.1:\(server.port)", token: "t") { client in
            let uploader = TusUploader(client: client, retries: 4, backoff: Backoff(base: 0.01, cap: 0.05))
            try await uploader.send(file: path, length: Int64(content.count), to: "/v1/uploads/u1")
        }
        #expect(server.log == ["HEAD", "PATCH 409", "HEAD", "PATCH 409", "HEAD", "PATCH 204"])
        #expect(server.bytes == content ? true : false, "\(server.bytes.count) of \(content.count) bytes arrived, or other bytes")
    }

    @Test("a proxy's 502 and 504 (the relay behind it died or stalled) are retried like a busy relay; 400 is not",
          arguments: [("502 Bad Gateway", true), ("504 Gateway Timeout", true), ("400 Bad Request", false)])
    func proxyFailuresAreRetried(answer: String, retried: Bool) async throws {
        let content = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let server = try BusyTusServer(busy: 1, busyAnswer: answer, length: content.count)
        defer { server.stop() }
        let path = "/tmp/vfs-tus-test-\(UUID().uuidString)"
        try Data(content).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let code = String(answer.prefix(3))
        do {
            try await RelayClient.with(baseURL: "http://127.0.0.1:\(server.port)", token: "t") { client in
                try await TusUploader(client: client, retries: 3, backoff: Backoff(base: 0.01, cap: 0.02))
                    .send(file: path, length: Int64(content.count), to: "/v1/uploads/u1")
            }
            #expect(retried, "a \(code) was retried")
            #expect(server.log == ["HEAD", "PATCH \(code)", "HEAD", "PATCH 204"])
            #expect(server.bytes == content ? true : false, "\(server.bytes.count) of \(content.count) bytes arrived, or other bytes")
        } catch let error as RelayClientError {
            #expect(!retried, "a \(code) was not retried: \(error)")
            #expect(server.log == ["HEAD", "PATCH \(code)"])
            #expect(server.bytes.isEmpty)
        }
    }

    @Test("an upload still busy after the retries fails with the relay's 409")
    func busyTooLong() async throws {
        let server = try BusyTusServer(busy: 10, length: 3)
        defer { server.stop() }
        let path = "/tmp/vfs-tus-test-\(UUID().uuidString)"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let error = await #expect(throws: RelayClientError.self) {
            try await RelayClient.with(baseURL: "http://127.0.0.1:\(server.port)", token: "t") { client in
                try await TusUploader(client: client, retries: 2, backoff: Backoff(base: 0.01, cap: 0.02))
                    .send(file: path, length: 3, to: "/v1/uploads/u1")
            }
        }
        guard case .rejected(let status, let code, _)? = error else {
            Issue.record("not a refusal: \(String(describing: error))")
            return
        }
        #expect(status == 409 && code == "conflict")
        #expect(server.log.filter { $0 == "PATCH 409" }.count == 3)
        #expect(server.bytes.isEmpty)
    }
}
