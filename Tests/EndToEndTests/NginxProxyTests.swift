import Foundation
import Testing
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The relay behind nginx (Debian's nginx-light) terminating TLS, with the example
/// configuration of docs/nginx-relay.conf. The certificate is made by `openssl req` for
/// 127.0.0.1; the client is curl with that certificate as its only CA.
@Suite("vfs-relay behind nginx", .serialized)
struct NginxProxyTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A self-signed certificate for 127.0.0.1 and its key; returns their paths.
    static func certificate(in scratch: TestFolder) throws -> (cert: String, key: String) {
        let cert = scratch.path("cert.pem"), key = scratch.path("key.pem")
        let made = try Tools.run("openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert,
        ])
        guard made.status == 0 else { throw HarnessError("openssl req: \(made.stderr)") }
        return (cert, key)
    }

    /// curl trusting only `ca`; the answer's status and body (headers with `-i`).
    static func curl(_ arguments: [String], ca: String) throws -> Run {
        try Tools.run("curl", ["-sS", "--max-time", "60", "--cacert", ca] + arguments)
    }

    static func json(_ run: Run) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: run.stdout)) as? [String: Any] ?? [:]
    }

    @Test("serve refuses a certificate or key file that is not PEM (65), naming the file")
    func badTLSFiles() throws {
        let scratch = try TestFolder("tls")
        let (cert, key) = try Self.certificate(in: scratch)
        let data = scratch.path("data")
        let garbage = try scratch.write("garbage.pem", "not a pem file\n")
        for (arguments, message) in [(["--tls-cert", garbage, "--tls-key", key], "no PEM certificate in \"\(garbage)\""),
                                     (["--tls-cert", cert, "--tls-key", garbage], "no PEM private key in \"\(garbage)\"")] {
            let run = try Tools.run("vfs-relay", ["serve", "--listen", "127.0.0.1:0", "--data", data] + arguments)
            #expect(run.status == 65, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("vfs-relay: error: \(message)\n"), "\(run.stderr)")
            #expect(run.out.isEmpty)
        }
    }

    /// docs/nginx-relay.conf with this test's ports, certificate and relay.
    /// Several relay ports make an upstream of several servers (nginx: round robin).
    static func nginxConfiguration(port: Int, relayPorts: [Int], cert: String, key: String, prefix: URL) throws -> String {
        var site = try String(contentsOf: repository.appendingPathComponent("docs/nginx-relay.conf"), encoding: .utf8)
        let replacements = [
            ("server 127.0.0.1:8787;", relayPorts.map { "server 127.0.0.1:\($0);" }.joined(separator: "\n    ")),
            ("listen 443 ssl;", "listen 127.0.0.1:\(port) ssl;"),
            ("listen [::]:443 ssl;", ""),
            ("/etc/letsencrypt/live/relay.example.com/fullchain.pem", cert),
            ("/etc/letsencrypt/live/relay.example.com/privkey.pem", key),
        ]
        for (from, to) in replacements {
            guard site.contains(from) else { throw HarnessError("docs/nginx-relay.conf no longer has \"\(from)\"") }
            site = site.replacingOccurrences(of: from, with: to)
        }
        let p = prefix.path
        return """
        daemon off;
        worker_processes 1;
        pid \(p)/nginx.pid;
        error_log \(p)/error.log warn;
        events { worker_connections 256; }
        http {
          access_log \(p)/access.log;
          client_body_temp_path \(p)/body;
          proxy_temp_path \(p)/proxy;
          fastcgi_temp_path \(p)/fastcgi;
          uwsgi_temp_path \(p)/uwsgi;
          scgi_temp_path \(p)/scgi;
        \(site)
        }
        """
    }

    /// nginx running docs/nginx-relay.conf in front of `relayPorts`, answering (its
    /// /v1/health through to a relay) at the returned base URL; stopped by the caller.
    static func startNginx(relayPorts: [Int], cert: String, key: String, in scratch: TestFolder) throws -> (BackgroundProcess, String) {
        let prefix = scratch.url.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: prefix, withIntermediateDirectories: true)
        let port = try freeLoopbackPort()
        let conf = prefix.appendingPathComponent("nginx.conf")
        try nginxConfiguration(port: port, relayPorts: relayPorts, cert: cert, key: key, prefix: prefix)
            .write(to: conf, atomically: true, encoding: .utf8)
        let errorLog = prefix.appendingPathComponent("error.log").path
        let checked = try Tools.run("nginx", ["-t", "-q", "-c", conf.path, "-p", prefix.path, "-e", errorLog])
        #expect(checked.status == 0, "nginx -t: \(checked.stderr)")
        let nginx = try BackgroundProcess("nginx", ["-c", conf.path, "-p", prefix.path, "-e", errorLog])
        let base = "https://127.0.0.1:\(port)"
        var up = false
        let deadline = Date().addingTimeInterval(60)
        while !up && Date() < deadline {
            up = (try? curl(["-f", "-o", "/dev/null", "\(base)/v1/health"], ca: cert))?.status == 0
            if !up { usleep(40_000) }
        }
        #expect(up, "nginx did not answer: \((try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? "")")
        return (nginx, base)
    }

    @Test("behind docs/nginx-relay.conf with --proxy-header x-forwarded-for: a client's own Forwarded, X-Real-IP or X-Forwarded-For is not believed (wrong codes counted against it, no chosen address locked out, no forged address in the log), and /metrics in any spelling is not reachable through nginx")
    func forwardingHeadersNotBelieved() throws {
        let scratch = try TestFolder("nginx-headers")
        let (cert, key) = try Self.certificate(in: scratch)
        let data = scratch.url.appendingPathComponent("data")
        let admin = RelayAdmin(data: data)
        _ = try admin.addUser("alice@acme.example", org: "acme")
        let relay = try RelayProcess(data: data, arguments: ["--trusted-proxy", "127.0.0.1", "--proxy-header", "x-forwarded-for", "--metrics"])
        defer { relay.stop() }
        let (nginx, base) = try Self.startNginx(relayPorts: [relay.port], cert: cert, key: key, in: scratch)
        defer { nginx.stop() }

        // Each wrong code claims another client in every forwarding header a client can write.
        func enroll(_ code: String, claiming n: Int) throws -> String {
            try Self.curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Content-Type: application/json",
                           "-H", "Forwarded: for=203.0.113.\(n)", "-H", "X-Real-IP: 203.0.113.\(n)", "-H", "X-Forwarded-For: 203.0.113.\(n)",
                           "-d", #"{"code":"\#(code)","name":"n\#(n)","platform":"linux","recipient":"age1x"}"#, "\(base)/v1/enroll"], ca: cert).out
        }
        for n in 1...5 { #expect(try enroll("AAAA-BBBB-CCCC-DDDD", claiming: n) == "401") }
        // Counted against the real client (this test, on 127.0.0.1): the sixth waits, even with a valid code.
        #expect(try enroll(try admin.invite("alice@acme.example"), claiming: 6) == "429")
        // No address the client named was locked out; the real one was.
        for n in 1...6 { #expect(try admin.run(["unblock", "203.0.113.\(n)"]).status == 1) }
        #expect(try admin.run(["unblock", "127.0.0.1"]).status == 0)

        // /metrics answers loopback clients on the relay's own address, in its one spelling…
        let direct = "http://127.0.0.1:\(relay.port)"
        #expect(try Tools.run("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "\(direct)/metrics"]).out == "200")
        for path in ["/metrics/", "//metrics", "/./metrics", "/v1/../metrics", "/%6detrics", "/%2e/metrics"] {
            let answer = try Tools.run("curl", ["-sS", "--path-as-is", "-o", "/dev/null", "-w", "%{http_code}", "\(direct)\(path)"]).out
            #expect(answer == "404", "relay \(path): \(answer)")
        }
        // …and through nginx in none, whatever the client claims to be.
        for path in ["/metrics", "/metrics/", "//metrics", "/./metrics", "/v1/../metrics", "/%6detrics", "/%2e/metrics", "/metrics?x=1"] {
            for claim in [[], ["-H", "Forwarded: for=127.0.0.1"], ["-H", "X-Forwarded-For: 127.0.0.1"], ["-H", "X-Real-IP: 127.0.0.1"]] {
                let answer = try Self.curl(["--path-as-is", "-o", "/dev/null", "-w", "%{http_code}"] + claim + ["\(base)\(path)"], ca: cert).out
                #expect(answer == "404" || answer == "400", "nginx \(path) \(claim): \(answer)")
            }
        }
        #expect(relay.stop() == 0)
        // The log names the real client, never an address a client wrote.
        #expect(relay.stderrText.contains("POST /v1/enroll 401") && relay.stderrText.contains("127.0.0.1"), "\(relay.stderrText)")
        #expect(!relay.stderrText.contains("203.0.113."), "\(relay.stderrText)")
    }

    @Test("docs/nginx-relay.conf: a tus upload, a Range download and an event pass through nginx over TLS")
    func behindNginx() throws {
        let scratch = try TestFolder("nginx")
        let (cert, key) = try Self.certificate(in: scratch)
        let data = scratch.url.appendingPathComponent("data")
        let admin = RelayAdmin(data: data)
        let code = try admin.addUser("alice@acme.example", org: "acme")
        let relay = try RelayProcess(data: data)
        defer { relay.stop() }
        let laptop = try RelayClient(port: relay.port).enroll(code: code, name: "laptop")
        let phone = try RelayClient(port: relay.port).enroll(code: try admin.invite("alice@acme.example"), name: "phone")

        let (nginx, base) = try Self.startNginx(relayPorts: [relay.port], cert: cert, key: key, in: scratch)
        defer { nginx.stop() }

        // The phone's event stream, open before anything happens, through nginx.
        let events = try BackgroundProcess("curl", ["-sS", "-N", "--max-time", "60", "--cacert", cert, "-H", "Authorization: Bearer \(phone.token)",
                                                    "\(base)/v1/events"])
        defer { events.stop() }
        #expect(events.waitForOutput(containing: "retry: 3000", seconds: 30), "stream: \(events.output)")

        // tus through the proxy: create, two PATCHes, HEAD.
        let content = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let file = try scratch.write("payload.age", Data(content))
        let auth = ["-H", "Authorization: Bearer \(laptop.token)", "-H", "Tus-Resumable: 1.0.0"]
        let created = try Self.curl(["-i", "-X", "POST", "-H", "Upload-Length: \(content.count)"] + auth + ["\(base)/v1/uploads"], ca: cert)
        let location = try #require(created.out.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location: ") }
            .map { String($0.dropFirst("location: ".count)) })
        let half = try scratch.write("half", Data(content[..<100_000]))
        let rest = try scratch.write("rest", Data(content[100_000...]))
        for (piece, offset) in [(half, 0), (rest, 100_000)] {
            let patched = try Self.curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "PATCH", "-H", "Upload-Offset: \(offset)",
                                         "-H", "Content-Type: application/offset+octet-stream", "--data-binary", "@\(piece)"]
                                        + auth + ["\(base)\(location)"], ca: cert)
            #expect(patched.out == "204", "\(patched.stderr)")
        }
        let head = try Self.curl(["-I"] + auth + ["\(base)\(location)"], ca: cert)
        #expect(head.out.lowercased().contains("upload-offset: \(content.count)\r\n"))

        let upload = String(location.split(separator: "/").last!)
        let sent = try Self.curl(["-X", "POST", "-H", "Authorization: Bearer \(laptop.token)", "-H", "Content-Type: application/json",
                                  "-d", #"{"upload":"\#(upload)","devices":["\#(phone.id)"]}"#, "\(base)/v1/transfers"], ca: cert)
        let transfer = try #require(Self.json(sent)["id"] as? String)

        // The transfer event reaches the open stream through nginx.
        #expect(events.waitForOutput(containing: "event: transfer\ndata: {\"transfer\":\"\(transfer)\"}", seconds: 30),
                "stream: \(events.output)")

        // A Range download through nginx: 206 and exactly the bytes asked for.
        let part = scratch.path("part")
        let ranged = try Self.curl(["-o", part, "-w", "%{http_code}", "-H", "Authorization: Bearer \(phone.token)",
                                    "-r", "1000-70999", "\(base)/v1/transfers/\(transfer)/content"], ca: cert)
        #expect(ranged.out == "206")
        #expect(try Data(contentsOf: URL(fileURLWithPath: part)) == Data(content[1000..<71000]))
        let whole = try Self.curl(["-H", "Authorization: Bearer \(phone.token)", "\(base)/v1/transfers/\(transfer)/content"], ca: cert)
        #expect(whole.stdout == (try Data(contentsOf: URL(fileURLWithPath: file))))
    }
}


/// A child process (found on PATH) whose output is collected as it comes; stopped by
/// `stop()` or when released.
final class BackgroundProcess: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var collected = Data()

    init(_ command: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command] + arguments
        process.standardInput = FileHandle.nullDevice
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.lock()
            self.collected.append(data)
            self.lock.unlock()
        }
        try process.run()
    }

    var output: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: collected, as: UTF8.self)
    }

    func waitForOutput(containing text: String, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if output.contains(text) { return true }
            if !process.isRunning { return output.contains(text) }
            usleep(20_000)
        }
        return false
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}
