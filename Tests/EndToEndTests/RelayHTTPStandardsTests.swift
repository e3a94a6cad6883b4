import Foundation
import Testing
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The relay as clients nobody here wrote expect it (issue 45, items 1–5): curl for HEAD
/// and Range (RFC 9110), a curl that hangs up mid-PATCH, and tuspy (pinned from PyPI,
/// `make deps`) for tus 1.0's refusals, method override and checksum extension, each
/// against a live `vfs-relay serve`.
@Suite("vfs-relay HTTP and tus by real clients", .serialized)
struct RelayHTTPStandardsTests {
    static let tools = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools")

    /// One answer as curl saw it: status, headers (names in lowercase; the last of a
    /// repeated one) and the body (none for HEAD: `downloaded` counts what curl read
    /// after the head).
    struct CurlAnswer {
        let status: Int
        let headers: [String: String]
        let body: [UInt8]
        let downloaded: Int
    }

    /// Runs curl with `arguments` (one URL) against the relay and reads the answer's head
    /// (`-D`) and body (`-o`; for `-I`, curl writes the head there).
    static func curl(_ arguments: [String], in folder: TestFolder) throws -> CurlAnswer {
        let head = folder.url.appendingPathComponent("curl-head"), body = folder.url.appendingPathComponent("curl-body")
        try? FileManager.default.removeItem(at: head)
        try? FileManager.default.removeItem(at: body)
        let run = try Tools.run("curl", ["-sS", "--max-time", "60", "-D", head.path, "-o", body.path, "-w", "%{size_download}"] + arguments)
        guard run.status == 0 else { throw HarnessError("curl \(arguments): \(run.status) \(run.stderr)") }
        let text = try String(contentsOf: head, encoding: .utf8)
        var lines = text.components(separatedBy: "\r\n")
        let status = Int(lines.removeFirst().split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let bytes = arguments.contains("-I") ? [] : (try? Data(contentsOf: body)).map { Array($0) } ?? []
        return CurlAnswer(status: status, headers: headers, body: bytes, downloaded: Int(run.out) ?? -1)
    }

    static func bearer(_ token: String?) -> [String] { token.map { ["-H", "Authorization: Bearer \($0)"] } ?? [] }

    /// A relay with a 1000-byte transfer to the phone, the same bytes as a cloud file and an
    /// empty cloud file.
    struct Files {
        let setup: RelayTests.Setup
        let content = Array(testBytes(1000, seed: 45))
        let transfer: String
        var base: String { "http://127.0.0.1:\(setup.relay.port)" }

        init(arguments: [String] = []) throws {
            setup = try RelayTests.Setup(arguments: arguments)
            let (client, token) = (setup.client, setup.laptop.token)
            transfer = try client.send(upload: try client.upload(content, token: token), to: [setup.phone.id], token: token)
            for (name, bytes) in [("f.age", content), ("empty.age", [])] {
                let put = try client.request("PUT", "/v1/cloud/\(name)", token: token, json: #"{"upload":"\#(try client.upload(bytes, token: token))"}"#)
                guard put.status == 201 else { throw HarnessError("PUT \(name): \(put.status) \(put.text)") }
            }
        }
    }

    @Test("HEAD on every GET route (health, the API document, metrics, lists, downloads): GET's status and headers, no body (curl)")
    func head() throws {
        let files = try Files(arguments: ["--metrics"])
        let setup = files.setup
        let (laptop, phone) = (setup.laptop.token, setup.phone.token)
        // Route, token, and whether its length is the same from one request to the next.
        let routes: [(path: String, token: String?, stable: Bool)] = [
            ("/v1/health", nil, true), ("/v1/openapi.yaml", nil, true), ("/metrics", nil, false),
            ("/v1/devices", laptop, true), ("/v1/cloud", laptop, true), ("/v1/outbox", laptop, true),
            ("/v1/cloud/f.age", laptop, true), ("/v1/cloud/empty.age", laptop, true),
            ("/v1/transfers/\(files.transfer)/content", phone, true),
        ]
        for (path, token, stable) in routes {
            let get = try Self.curl(Self.bearer(token) + ["\(files.base)\(path)"], in: setup.scratch)
            let head = try Self.curl(Self.bearer(token) + ["-I", "\(files.base)\(path)"], in: setup.scratch)
            #expect(get.status == 200, "GET \(path)")
            #expect(head.status == get.status, "HEAD \(path) → \(head.status)")
            #expect(head.downloaded == 0, "HEAD \(path) has a body of \(head.downloaded) bytes")
            for name in ["content-type", "accept-ranges", "etag", "cache-control"] {
                #expect(head.headers[name] == get.headers[name], "HEAD \(path) \(name): \(head.headers[name] ?? "none") vs \(get.headers[name] ?? "none")")
            }
            if stable {
                #expect(head.headers["content-length"] == get.headers["content-length"] && get.headers["content-length"] == "\(get.body.count)",
                        "HEAD \(path) Content-Length \(head.headers["content-length"] ?? "none"), GET's \(get.headers["content-length"] ?? "none")")
            } else {
                #expect(head.headers["content-length"].flatMap { Int($0) } != nil, "HEAD \(path) without Content-Length")
            }
        }
        // The downloads say what a download manager probes for.
        let probe = try Self.curl(Self.bearer(laptop) + ["-I", "\(files.base)/v1/cloud/f.age"], in: setup.scratch)
        #expect(probe.headers["accept-ranges"] == "bytes" && probe.headers["content-length"] == "1000" && probe.headers["etag"] != nil)
        // A HEAD leaves no stray bytes on a kept-alive connection: the next GET on it is whole.
        let url = "\(files.base)/v1/cloud/f.age"
        let next = try Tools.run("curl", ["-sS", "-I", "-o", "/dev/null"] + Self.bearer(laptop) + [url, "--next", "-sS"] + Self.bearer(laptop) + [url])
        #expect(next.status == 0 && Array(next.stdout) == files.content, "\(next.stderr)")
        #expect(!next.stderr.contains("Excess"), "\(next.stderr)")
        // Refusals to HEAD have no body either, and Allow names HEAD beside GET.
        let missing = try Self.curl(["-I", "\(files.base)/v1/nothing"], in: setup.scratch)
        #expect(missing.status == 404 && missing.downloaded == 0 && missing.headers["content-length"] != "0")
        let unauthorised = try Self.curl(["-I", "\(files.base)/v1/devices"], in: setup.scratch)
        #expect(unauthorised.status == 401 && unauthorised.downloaded == 0)
        let wrong = try Self.curl(["-X", "DELETE", "\(files.base)/v1/health"], in: setup.scratch)
        #expect(wrong.status == 405 && wrong.headers["allow"] == "GET, HEAD", "\(wrong.headers)")
        #expect(!setup.relay.stderrText.contains(" 500 "), "\(setup.relay.stderrText.suffix(2000))")
        #expect(setup.relay.stop() == 0)
    }

    @Test("HEAD of a transfer's content leaves the copy unattended; its GET marks it initiated")
    func headIsSafe() throws {
        let files = try Files()
        let setup = files.setup
        let path = "\(files.base)/v1/transfers/\(files.transfer)/content"
        let outbox = { try setup.client.request("GET", "/v1/outbox", token: setup.laptop.token).text }
        #expect(try Self.curl(Self.bearer(setup.phone.token) + ["-I", path], in: setup.scratch).status == 200)
        let probed = try outbox()
        #expect(probed.contains("\"unattended\"") && !probed.contains("\"initiated\""), "\(probed)")
        #expect(try Self.curl(Self.bearer(setup.phone.token) + [path], in: setup.scratch).body == files.content)
        let read = try outbox()
        #expect(read.contains("\"initiated\""), "\(read)")
        #expect(setup.relay.stop() == 0)
    }

    @Test("Range per RFC 9110 §14 (curl): another unit ignored, the unit without case, empty list elements ignored, sets, an empty file's suffix; 416 kept where right")
    func ranges() throws {
        let files = try Files()
        let setup = files.setup
        let content = files.content
        // Header, and the answer: a range (206), the whole (200), or nil (416).
        enum Expected { case part(Range<Int>), whole, unsatisfiable }
        let cases: [(String, Expected)] = [
            ("items=0-9", .whole), ("BYTES=0-9", .part(0..<10)), ("Bytes=990-", .part(990..<1000)), ("bytes=0-9,", .part(0..<10)),
            ("bytes=, 0-9 ,,", .part(0..<10)),
            // Satisfiable sets: of several ranges the whole (200, the relay does not send
            // multipart/byteranges); of one satisfiable range that range.
            ("bytes=0-9,20-29", .whole), ("bytes=-5,0-1", .whole), ("bytes=0-9,1000000-", .part(0..<10)),
            // Unchanged: 206 for one range, 416 when nothing is satisfiable or it is no range.
            ("bytes=10-19", .part(10..<20)), ("bytes=-10", .part(990..<1000)), ("bytes=1000-", .unsatisfiable),
            ("bytes=-0", .unsatisfiable), ("bytes=1000-,2000-", .unsatisfiable), ("bytes=5-2", .unsatisfiable), ("bytes=abc", .unsatisfiable),
        ]
        for (path, token) in [("/v1/cloud/f.age", setup.laptop.token), ("/v1/transfers/\(files.transfer)/content", setup.phone.token)] {
            for (header, expected) in cases {
                let answer = try Self.curl(Self.bearer(token) + ["-H", "Range: \(header)", "\(files.base)\(path)"], in: setup.scratch)
                switch expected {
                case .part(let range):
                    #expect(answer.status == 206, "\(path) \(header) → \(answer.status)")
                    #expect(answer.body == Array(content[range]), "\(path) \(header)")
                    #expect(answer.headers["content-range"] == "bytes \(range.lowerBound)-\(range.upperBound - 1)/1000", "\(path) \(header)")
                case .whole:
                    #expect(answer.status == 200, "\(path) \(header) → \(answer.status)")
                    #expect(answer.body == content && answer.headers["content-range"] == nil, "\(path) \(header)")
                case .unsatisfiable:
                    #expect(answer.status == 416, "\(path) \(header) → \(answer.status)")
                    #expect(answer.headers["content-range"] == "bytes */1000", "\(path) \(header)")
                }
            }
        }
        // curl's own range option (a set) and resume (-C: Range: bytes=N-).
        let set = try Self.curl(Self.bearer(setup.laptop.token) + ["-r", "0-9,20-29", "\(files.base)/v1/cloud/f.age"], in: setup.scratch)
        #expect(set.status == 200 && set.body == content)
        // An empty file: a suffix is its one satisfiable form (the whole, empty), anything else 416.
        let empty = "\(files.base)/v1/cloud/empty.age"
        let suffix = try Self.curl(Self.bearer(setup.laptop.token) + ["-H", "Range: bytes=-5", empty], in: setup.scratch)
        #expect(suffix.status == 200 && suffix.body.isEmpty && suffix.headers["content-length"] == "0", "\(suffix.status)")
        let start = try Self.curl(Self.bearer(setup.laptop.token) + ["-H", "Range: bytes=0-", empty], in: setup.scratch)
        #expect(start.status == 416 && start.headers["content-range"] == "bytes */0", "\(start.status)")
        #expect(setup.relay.stop() == 0)
    }

    /// The bytes process `pid` has read with read(2): /proc/PID/io's rchar.
    static func bytesRead(by pid: Int32) -> Int {
        // Read to the end: /proc files report a size of 0.
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/io") else { return 0 }
        defer { try? handle.close() }
        let io = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        return io.split(separator: "\n").first { $0.hasPrefix("rchar:") }
            .flatMap { Int($0.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    @Test("a curl that hangs up mid-PATCH is logged 499, not 500, and counted as no internal error; the bytes it sent stay, and the upload resumes")
    func hangUp() throws {
        let setup = try RelayTests.Setup(arguments: ["--metrics"])
        let token = setup.laptop.token
        let size = 8 << 20
        let content = Array(testBytes(size, seed: 46))
        let file = setup.scratch.url.appendingPathComponent("body")
        try Data(content).write(to: file)
        let location = try setup.client.createUpload(length: size, token: token)
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments = ["curl", "-sS", "-X", "PATCH", "--limit-rate", "1M", "-T", file.path, "-H", "Expect:",
                          "-H", "Authorization: Bearer \(token)", "-H", "Tus-Resumable: 1.0.0", "-H", "Upload-Offset: 0",
                          "-H", "Content-Type: application/offset+octet-stream", "http://127.0.0.1:\(setup.relay.port)\(location)"]
        curl.standardOutput = FileHandle.nullDevice
        curl.standardError = FileHandle.nullDevice
        try curl.run()
        // Hang up once curl (-T streams the file as it sends) has read 2 MiB of the body
        // (its /proc io count; the 8 MiB take it 8 s at --limit-rate), whatever the machine's speed.
        let sent = Date().addingTimeInterval(60)
        while Self.bytesRead(by: curl.processIdentifier) < 2 << 20, curl.isRunning, Date() < sent {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(curl.isRunning, "curl ended before it was cut off")
        kill(curl.processIdentifier, SIGKILL)
        curl.waitUntilExit()
        let line = "PATCH \(location) 499"
        let deadline = Date().addingTimeInterval(30)
        while !setup.relay.stderrText.contains(line), Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        let log = setup.relay.stderrText
        #expect(log.contains(line), "\(log.suffix(2000))")
        #expect(!log.contains(" 500 ") && !log.contains("request failed"), "\(log.suffix(2000))")
        let metrics = try setup.client.request("GET", "/metrics").text
        #expect(RelayMetricsTests.value(metrics, "vfs_relay_internal_errors_total") ?? 0 == 0, "\(metrics.prefix(3000))")
        let requests = metrics.split(separator: "\n").filter { $0.hasPrefix("vfs_relay_http_requests_total{") }
        #expect(!requests.contains { $0.contains("status=\"500\"") }, "\(requests)")
        #expect(requests.contains { $0.contains("method=\"PATCH\"") && $0.contains("status=\"499\"") }, "\(requests)")
        // What arrived before the hang-up is kept; the upload goes on from there.
        let offset = try setup.client.offset(location, token: token)
        #expect(offset > 0 && offset < size, "offset \(offset)")
        #expect(try setup.client.patch(location, token: token, offset: offset, Array(content[offset...])).status == 204)
        #expect(setup.relay.stop() == 0)
    }

    @Test("tus by tuspy: the checksum extension (sha1, sha256, 460 and resume, 400), Tus-Resumable on every refusal, X-HTTP-Method-Override")
    func tuspy() throws {
        let version = try Tools.run("python3", ["-c", "import importlib.metadata as m; print(m.version('tuspy'))"])
        #expect(version.status == 0, "tuspy is not installed; make deps installs it: \(version.stderr)")
        guard version.status == 0 else { return }
        let setup = try RelayTests.Setup()
        let base = "http://127.0.0.1:\(setup.relay.port)"
        let run = try Tools.run("python3", [Self.tools.appendingPathComponent("tus-conformance.py").path, base, setup.laptop.token])
        #expect(run.status == 0, "\(run.out)\n\(run.stderr.suffix(4000))")
        #expect(run.out.components(separatedBy: "\nok ").count > 20, "\(run.out)")
        // The uploads tuspy made hold exactly its bytes (the refused PATCH's bytes were not kept).
        let made = run.out.split(separator: "\n").filter { $0.hasPrefix("upload ") }.map { $0.split(separator: " ") }
        #expect(made.map { String($0[1]) } == ["sha1", "sha256", "mismatch"], "\(run.out)")
        let expected: [String: [UInt8]] = [
            "sha1": Self.content(seed: 1, size: 250_000), "sha256": Self.content(seed: 2, size: 150_000),
            "mismatch": Self.content(seed: 3, size: 200_000),
        ]
        for fields in made where fields.count == 3 {
            let (name, id) = (String(fields[1]), String(fields[2]))
            let put = try setup.client.request("PUT", "/v1/cloud/\(name).age", token: setup.laptop.token, json: #"{"upload":"\#(id)"}"#)
            #expect(put.status == 201, "\(name): \(put.status) \(put.text)")
            let got = try setup.client.request("GET", "/v1/cloud/\(name).age", token: setup.laptop.token)
            #expect(got.body == expected[name], "\(name): \(got.body.count) bytes")
        }
        let log = setup.relay.stderrText
        #expect(log.range(of: #"PATCH /v1/uploads/[^ ]+ 460"#, options: .regularExpression) != nil, "\(log.suffix(3000))")
        #expect(!log.contains(" 500 "), "\(log.suffix(3000))")
        #expect(setup.relay.stop() == 0)
    }

    @Test("server-sent events by sseclient-py: the stored events replayed in order, Last-Event-ID resumes after the given one, keep-alive comments unseen")
    func sseclient() throws {
        let version = try Tools.run("python3", ["-c", "import importlib.metadata as m; print(m.version('sseclient-py'))"])
        #expect(version.status == 0, "sseclient-py is not installed; make deps installs it: \(version.stderr)")
        guard version.status == 0 else { return }
        let setup = try RelayTests.Setup(arguments: ["--keep-alive", "1"])
        var transfers: [String] = []
        for n in 0..<3 {
            let upload = try setup.client.upload([UInt8(n), 1, 2], token: setup.laptop.token)
            transfers.append(try setup.client.send(upload: upload, to: [setup.phone.id], token: setup.laptop.token))
        }
        let run = try Tools.run("python3", [Self.tools.appendingPathComponent("sse-conformance.py").path,
                                            "http://127.0.0.1:\(setup.relay.port)", setup.phone.token, "3"])
        #expect(run.status == 0, "\(run.out)\n\(run.stderr.suffix(3000))")
        let lines = run.out.split(separator: "\n").map { $0.split(separator: " ", maxSplits: 3).map(String.init) }
        let first = lines.filter { $0.first == "first" }, resumed = lines.filter { $0.first == "resumed" }
        #expect(first.count == 3 && resumed.count == 2, "\(run.out)")
        guard first.count == 3, resumed.count == 2, lines.allSatisfy({ $0.count == 4 }) else { return }
        // Each transfer's event, in the order sent, with increasing ids.
        #expect(first.map { $0[2] } == ["transfer", "transfer", "transfer"], "\(run.out)")
        #expect(zip(first, transfers).allSatisfy { $0.0[3].contains($0.1) }, "\(run.out) \(transfers)")
        let ids = first.compactMap { Int64($0[1]) }
        #expect(ids.count == 3 && ids == ids.sorted() && Set(ids).count == 3, "\(run.out)")
        // Resumed after the first: exactly the second and third, as first served.
        #expect(resumed.map { Array($0.dropFirst()) } == first.dropFirst().map { Array($0.dropFirst()) }, "\(run.out)")
        #expect(setup.relay.stop() == 0)
    }

    /// The bytes `content(seed, size)` of tus-conformance.py.
    static func content(seed: Int, size: Int) -> [UInt8] { (0..<size).map { UInt8(($0 * 7 + seed) % 251) } }
}
