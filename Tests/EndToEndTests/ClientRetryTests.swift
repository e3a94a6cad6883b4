import Foundation
import Testing
import VFSCore
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// vfs-push, vfs-fetch and vfs-cloud ride out a relay that goes away (issue 45, item 8):
/// what fails for a while is tried again for `--retry-for`, a push resuming from its
/// spool; what can never pass is reported at once.
@Suite("client retry: --retry-for across a relay that is down, restarts or refuses", .serialized)
struct ClientRetryTests {
    /// The relay's port taken by a listener that answers nothing: each connection is read
    /// up to its request's end (its bearer token noted: one per device) and closed, so the
    /// test knows which clients have tried. `close` frees the port for the relay.
    final class DeadRelay: @unchecked Sendable {
        let fd: Int32
        private let lock = NSLock()
        private var seen: Set<String> = []

        init(port: Int) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(fd, 16) == 0 else { throw HarnessError("cannot listen on \(port): \(errno)") }
            Thread.detachNewThread { [self] in serve() }
        }

        /// The devices (their tokens) that tried so far.
        var clients: Int {
            lock.lock()
            defer { lock.unlock() }
            return seen.count
        }

        func serve() {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                var timeout = timeval(tv_sec: 5, tv_usec: 0)
                setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                var request = [UInt8]()
                var buffer = [UInt8](repeating: 0, count: 4096)
                while request.count < 65536, !request.suffix(4).elementsEqual("\r\n\r\n".utf8) {
                    let n = recv(client, &buffer, buffer.count, 0)
                    if n <= 0 { break }
                    request += buffer[0..<n]
                }
                let text = String(decoding: request, as: UTF8.self).lowercased()
                if let line = text.split(separator: "\r\n").first(where: { $0.hasPrefix("authorization:") }) {
                    lock.lock()
                    seen.insert(String(line))
                    lock.unlock()
                }
                Glibc.close(client)
            }
        }

        func close() {
            shutdown(fd, Int32(SHUT_RDWR))
            Glibc.close(fd)
        }
    }

    /// The relay again on `port`, on the fleet's data.
    func restart(_ fleet: Fleet, on port: Int) throws {
        fleet.relay = try RelayProcess(data: fleet.data, arguments: ["--listen", "127.0.0.1:\(port)"])
        #expect(fleet.relay.port == port)
    }

    func text(_ log: URL) -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// The transfer ids a push printed (alone on their lines, among its stderr in the log).
    func ids(_ log: URL) -> [String] {
        text(log).split(separator: "\n").map(String.init).filter { $0.count == 32 && $0.allSatisfy(\.isHexDigit) }
    }

    @Test("a relay down when vfs-push, vfs-fetch and vfs-cloud start and up later: each waits for it (--retry-for) and succeeds; the push arrives once, byte-identical")
    func relayDownAtFirst() throws {
        let fleet = try Fleet()
        let early = testBytes(200_000, seed: 81)
        let first = try fleet.laptop.run("vfs-push", ["-d", "phone", "--name", "early.bin", "-"], stdin: early)
        #expect(first.status == 0, "\(first.stderr)")
        let stored = try fleet.laptop.run("vfs-cloud", ["put", try fleet.scratch.write("kept.txt", Data("kept".utf8)), "/kept.txt"])
        #expect(stored.status == 0, "\(stored.stderr)")
        let port = fleet.relay.port
        fleet.relay.crash()
        let dead = try DeadRelay(port: port)
        var closed = false
        defer { if !closed { dead.close() } }

        let content = testBytes(3 << 20, seed: 82)
        let file = try fleet.scratch.write("late.bin", content)
        let inbox = fleet.scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let logs = ["push", "fetch", "cloud"].map { fleet.scratch.url.appendingPathComponent("\($0).log") }
        let push = try fleet.laptop.start("vfs-push", ["-d", "phone", file, "--retry-for", "2m"], log: logs[0])
        let fetch = try fleet.phone.start("vfs-fetch", ["--all", "-C", inbox, "--retry-for", "2m"], log: logs[1])
        let cloud = try fleet.tablet.start("vfs-cloud", ["ls", "/", "--retry-for", "2m"], log: logs[2])
        defer { for process in [push, fetch, cloud] where process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // All three tried the relay, and are still at it (none gave up).
        try #require(eventually { dead.clients == 3 }, "\(logs.map(text))")
        #expect(push.isRunning && fetch.isRunning && cloud.isRunning, "\(logs.map(text))")
        dead.close()
        closed = true
        try restart(fleet, on: port)

        for process in [push, fetch, cloud] { process.waitUntilExit() }
        #expect(push.terminationStatus == 0, "\(text(logs[0]))")
        #expect(fetch.terminationStatus == 0, "\(text(logs[1]))")
        #expect(cloud.terminationStatus == 0 && text(logs[2]).contains("kept.txt"), "\(text(logs[2]))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: inbox + "/early.bin")) == early)
        #expect(ids(logs[0]).count == 1, "\(text(logs[0]))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fleet.laptop.path + "/outgoing").isEmpty)
        let fetched = try fleet.phone.run("vfs-fetch", ["--all", "-C", inbox])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: inbox + "/late.bin")) == content)
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox).sorted() == ["early.bin", "late.bin"])
    }

    @Test("a relay killed mid-upload and restarted: the push resumes from the relay's offset and completes; the file arrives once, byte-identical")
    func relayKilledMidUpload() throws {
        let fleet = try Fleet()
        let content = testBytes(12 << 20, seed: 83)
        let file = try fleet.scratch.write("big.bin", content)
        let port = fleet.relay.port
        // The upload is held part way (a proxy's gate), so the relay dies in the middle of it.
        let gate = try GateProxy(to: port, holdAt: 3 << 20, in: fleet.scratch.url)
        fleet.laptop.relayURL = gate.url
        let log = fleet.scratch.url.appendingPathComponent("push.log")
        let push = try fleet.laptop.start("vfs-push", ["-d", "phone", file, "--retry-for", "2m"], log: log)
        defer { if push.isRunning { kill(push.processIdentifier, SIGKILL) } }
        try #require(eventually { fleet.storedFiles().contains { (try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) ?? 0 > 1 << 20 } },
                     "\(text(log))")
        fleet.relay.crash()
        try gate.open()
        // The push, sealed to the end into its spool, waits for the relay (the proxy
        // closes each connection while nothing listens behind it).
        let outgoing = fleet.laptop.path + "/outgoing"
        try #require(eventually {
            let spools = (try? FileManager.default.contentsOfDirectory(atPath: outgoing)) ?? []
            guard spools.count == 1, let record = FileManager.default.contents(atPath: outgoing + "/" + spools[0] + "/push.json") else { return false }
            return String(decoding: record, as: UTF8.self).contains("\"length\"")
        }, "\(text(log))")
        #expect(push.isRunning, "\(text(log))")
        try restart(fleet, on: port)
        push.waitUntilExit()
        #expect(push.terminationStatus == 0, "\(text(log))")
        #expect(Set(ids(log)).count == 1, "\(text(log))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outgoing).isEmpty)

        let inbox = fleet.scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let listed = jsonArray(try fleet.phone.run("vfs-fetch", ["--json"]))
        #expect(listed.count == 1, "\(listed)")
        let fetched = try fleet.phone.run("vfs-fetch", ["--all", "-C", inbox])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox) == ["big.bin"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: inbox + "/big.bin")) == content)
        // It was resumed, not sent again: the relay saw one upload made.
        let audit = try Tools.run("sqlite3", [fleet.data.appendingPathComponent("relay.sqlite").path,
                                              "SELECT count(*) FROM audit WHERE action = 'upload.create'"])
        #expect(audit.out == "1\n", "\(audit.stderr)")
    }

    @Test("what can never pass is reported at once whatever --retry-for (66 no such device, 66 no such cloud file); --retry-for 0 reports a relay that is down at once (69); a spent --retry-for names the last cause on one line")
    func permanentAndSpent() throws {
        let fleet = try Fleet()
        let file = try fleet.scratch.write("a.txt", Data("a".utf8))
        var started = Date()
        let nobody = try fleet.laptop.run("vfs-push", ["-d", "nosuch", file, "--retry-for", "10m"])
        #expect(nobody.status == 66, "\(nobody.stderr)")
        #expect(Date().timeIntervalSince(started) < 30)
        started = Date()
        let missing = try fleet.laptop.run("vfs-cloud", ["get", "/nothing.txt", "-o", fleet.scratch.path("x"), "--retry-for", "10m"])
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(try fleet.laptop.run("vfs-push", ["-d", "phone", file, "--retry-for", "soon"]).status == 64)

        fleet.relay.crash()
        started = Date()
        let never = try fleet.laptop.run("vfs-push", ["-d", "phone", file, "--retry-for", "0"])
        #expect(never.status == 69, "\(never.stderr)")
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(!never.stderr.contains("--retry-for"), "\(never.stderr)")

        started = Date()
        let spent = try fleet.phone.run("vfs-fetch", ["--retry-for", "3s"])
        let took = Date().timeIntervalSince(started)
        #expect(spent.status == 69, "\(spent.stderr)")
        #expect(took >= 3 && took < 30, "\(took)")
        let errors = spent.stderr.split(separator: "\n").filter { $0.hasPrefix("vfs-fetch: error: ") }
        #expect(errors.count == 1 && errors[0].contains("relay unreachable at") && errors[0].contains("connection refused")
                && errors[0].contains("after trying again for 3s"), "\(spent.stderr)")
        // $VFS_RETRY_FOR is the default; the option wins over it.
        started = Date()
        let fromEnvironment = try Tools.run("vfs-cloud", ["ls"], environment: fleet.laptop.environment.merging(["VFS_RETRY_FOR": "2s"]) { $1 })
        #expect(fromEnvironment.status == 69 && fromEnvironment.stderr.contains("after trying again for 2s"), "\(fromEnvironment.stderr)")
        #expect(Date().timeIntervalSince(started) >= 2)
    }
}
