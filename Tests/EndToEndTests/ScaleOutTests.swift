import Foundation
import Testing
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Several relays on one PostgreSQL database (the tests' private cluster, PostgresCluster)
/// and one shared blob folder, as issue 15 describes; nginx in front (docs/nginx-relay.conf
/// with two upstream servers, round robin).
@Suite("vfs-relay scaled out on PostgreSQL", .serialized)
struct ScaleOutTests {
    /// One database and blob folder (or, with `s3`, a bucket of Ceph's RADOS Gateway), the CLI pointed at them.
    struct Shared {
        let cluster: PostgresCluster
        let database: String
        let url: String
        let blobs: String
        let scratch: TestFolder
        /// `--blobs s3://…` and `--s3-credentials FILE`, when the blobs are in a bucket.
        let bucket: [String]?

        init(_ name: String, s3: Bool = false) throws {
            cluster = try PostgresCluster.start()
            database = try cluster.createDatabase()
            url = cluster.url(database: database)
            scratch = try TestFolder(name)
            blobs = scratch.path("blobs")
            if s3 {
                let gateway = try RGWFixture.start()
                let credentials = try scratch.write("s3-credentials", Data("""
                    [default]
                    aws_access_key_id = \(gateway.accessKey)
                    aws_secret_access_key = \(gateway.secretKey)

                    """.utf8))
                bucket = ["--blobs", "s3://\(try gateway.newBucket())/relays?endpoint=\(gateway.endpoint)&region=\(gateway.region)",
                          "--s3-credentials", credentials]
            } else {
                bucket = nil
            }
        }

        var options: [String] { ["--database", url] + (bucket ?? ["--blobs", blobs]) }

        @discardableResult
        func admin(_ arguments: [String]) throws -> Run {
            let run = try Tools.run("vfs-relay", arguments + options)
            guard run.status == 0 else { throw HarnessError("vfs-relay \(arguments): \(run.stderr)") }
            return run
        }

        func addUser(_ email: String, org: String = "acme", admin isAdmin: Bool = false) throws -> String {
            _ = try? Tools.run("vfs-relay", ["org", "add", org] + options)
            return try admin(["user", "add", email, "--org", org] + (isAdmin ? ["--admin"] : []))
                .out.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func invite(_ email: String) throws -> String {
            try admin(["invite", email]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// A relay instance; `--event-poll 3600` leaves NOTIFY as the only way events
        /// stored by another instance wake its streams.
        func relay(_ name: String) throws -> RelayProcess {
            try RelayProcess(data: scratch.url.appendingPathComponent(name), arguments: options + ["--event-poll", "3600"])
        }

        /// Blob rows whose reference count is not their count of live rows, and the number of blob rows.
        func referenceAudit() throws -> (wrong: [String], blobs: Int) {
            let rows = try cluster.psql(database, """
                SELECT b.id, b.refs, (SELECT COUNT(*) FROM outbox o JOIN transfers t ON t.id = o.transfer_id
                  WHERE t.blob_id = b.id AND o.status IN ('unattended', 'initiated'))
                  + (SELECT COUNT(*) FROM cloud c WHERE c.blob_id = b.id) FROM blobs b
                """).split(separator: "\n").map { $0.split(separator: "|").map(String.init) }
            return (rows.filter { $0.count != 3 || $0[1] != $0[2] }.map { $0.joined(separator: "|") }, rows.count)
        }
    }

    static func content(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7 &+ ($0 >> 9)) }
    }

    /// A value threads share under a lock.
    final class Locked<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Value
        init(_ value: Value) { self.value = value }
        func with<T>(_ body: (inout Value) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&value)
        }
    }

    /// Runs `body(i)` for i in 0..<count on `threads` threads at once; returns the failures.
    static func parallel(_ count: Int, threads: Int = 16, _ body: @escaping @Sendable (Int) throws -> Void) -> [String] {
        let index = Locked(0), errors = Locked([String]())
        let group = DispatchGroup()
        for _ in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                while true {
                    let i = index.with { n in defer { n += 1 }; return n }
                    guard i < count else { return }
                    do { try body(i) } catch {
                        errors.with { $0.append("\(i): \(error)") }
                    }
                }
            }
        }
        group.wait()
        return errors.with { $0 }
    }

    @Test("two relays behind nginx, blobs in a shared folder or in an S3 bucket (RGW): push through A, fetch through B; B's stream gets A's event; A killed mid-upload, the upload resumes through B; with S3, no blob file on either relay's disk",
          arguments: [false, true])
    func twoRelaysBehindNginx(s3: Bool) throws {
        let shared = try Shared("scale", s3: s3)
        let code = try shared.addUser("alice@acme.example")
        let a = try shared.relay("a")
        defer { a.stop() }
        let b = try shared.relay("b")
        defer { b.stop() }
        let relayA = RelayClient(port: a.port), relayB = RelayClient(port: b.port)
        // Enrolled through A, known to B at once (one database).
        let laptop = try relayA.enroll(code: code, name: "laptop")
        let phone = try relayB.enroll(code: try shared.invite("alice@acme.example"), name: "phone")
        #expect(try relayB.request("GET", "/v1/devices", token: laptop.token).status == 200)

        // nginx in front of both (docs/nginx-relay.conf, two upstream servers).
        let scratch = shared.scratch
        let (cert, key) = try NginxProxyTests.certificate(in: scratch)
        let prefix = scratch.url.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: prefix, withIntermediateDirectories: true)
        let port = try freeLoopbackPort()
        let conf = prefix.appendingPathComponent("nginx.conf")
        try NginxProxyTests.nginxConfiguration(port: port, relayPorts: [a.port, b.port], cert: cert, key: key, prefix: prefix)
            .write(to: conf, atomically: true, encoding: .utf8)
        let errorLog = prefix.appendingPathComponent("error.log").path
        let nginx = try BackgroundProcess("nginx", ["-c", conf.path, "-p", prefix.path, "-e", errorLog])
        defer { nginx.stop() }
        let base = "https://127.0.0.1:\(port)"
        var health: Run?
        for _ in 0..<250 where health?.status != 0 {
            health = try NginxProxyTests.curl(["-f", "\(base)/v1/health"], ca: cert)
            if health?.status != 0 { usleep(40_000) }
        }
        let answered = try #require(health)
        #expect(NginxProxyTests.json(answered)["database"] as? String == "ok", "nginx: \(answered.stderr)")

        // The phone watches through B; the laptop pushes through A.
        let stream = try EventStream(port: b.port, token: phone.token)
        #expect(stream.status == 200)
        let first = Self.content(200_000, seed: 1)
        let upload = try relayA.upload(first, token: laptop.token, pieces: 2)
        let transfer = try relayA.send(upload: upload, to: [phone.id], token: laptop.token)
        let event = try stream.next()
        #expect(event?.event == "transfer")
        #expect(event?.data == #"{"transfer":"\#(transfer)"}"#)
        // The event stays in the table: a stream resumed on A with Last-Event-ID before it replays it.
        let id = try #require(event?.id.flatMap { Int64($0) })
        let replay = try EventStream(port: a.port, token: phone.token, lastEventID: "\(id - 1)")
        #expect(try replay.next()?.id == "\(id)")
        let fetched = try relayB.request("GET", "/v1/transfers/\(transfer)/content", token: phone.token)
        #expect(fetched.status == 200)
        #expect(fetched.body == first)
        #expect(try relayB.request("POST", "/v1/transfers/\(transfer)/ack", token: phone.token).status == 204)

        // An upload into A, killed (SIGKILL) in the middle of a PATCH.
        let length = 20 << 20
        let big = Self.content(length, seed: 2)
        let location = try relayA.createUpload(length: length, token: laptop.token)
        let patch = try RawConnection(port: a.port)
        try patch.sendHead("PATCH", location, headers: [
            "Authorization": "Bearer \(laptop.token)", "Tus-Resumable": "1.0.0", "Upload-Offset": "0",
            "Content-Type": "application/offset+octet-stream", "Content-Length": "\(length)",
        ])
        try patch.send(Array(big[..<(12 << 20)]))
        // B sees the offset A recorded (every 8 MiB) in the database.
        var recorded = 0
        for _ in 0..<500 where recorded < 8 << 20 {
            recorded = try relayB.offset(location, token: laptop.token)
            if recorded < 8 << 20 { usleep(20_000) }
        }
        #expect(recorded >= 8 << 20)
        a.crash()
        #expect(!a.isRunning)

        // The client resumes through nginx, which can only reach B now.
        let auth = ["-H", "Authorization: Bearer \(laptop.token)", "-H", "Tus-Resumable: 1.0.0"]
        let head = try NginxProxyTests.curl(["-I"] + auth + ["\(base)\(location)"], ca: cert)
        let offsetLine = head.out.split(separator: "\r\n").first { $0.lowercased().hasPrefix("upload-offset: ") }
        let offset = try #require(offsetLine.flatMap { Int($0.dropFirst("upload-offset: ".count)) })
        #expect(offset >= 8 << 20 && offset <= 12 << 20)
        let rest = try scratch.write("rest", Data(big[offset...]))
        let patched = try NginxProxyTests.curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "PATCH", "-H", "Upload-Offset: \(offset)",
                                                "-H", "Content-Type: application/offset+octet-stream", "--data-binary", "@\(rest)"]
                                               + auth + ["\(base)\(location)"], ca: cert)
        #expect(patched.out == "204", "\(patched.stderr)")
        let resumed = try relayB.send(upload: String(location.split(separator: "/").last!), to: [phone.id], token: laptop.token)
        #expect(try stream.next()?.data == #"{"transfer":"\#(resumed)"}"#)
        let whole = try NginxProxyTests.curl(["-H", "Authorization: Bearer \(phone.token)", "\(base)/v1/transfers/\(resumed)/content"], ca: cert)
        #expect(whole.stdout == Data(big))
        if s3 {
            for relay in [a, b] {
                #expect(relayStoredFiles(in: relay.data).isEmpty, "\(relayStoredFiles(in: relay.data))")
            }
            #expect(!FileManager.default.fileExists(atPath: shared.blobs), "no shared blob folder")
        }
    }

    @Test("one writer per upload across relays: a PATCH reaching B while A writes the same upload is refused (409); the file and the recorded offset agree; the upload completes and downloads whole")
    func oneWriterPerUpload() throws {
        let shared = try Shared("scale-writer")
        let code = try shared.addUser("alice@acme.example")
        let a = try shared.relay("a")
        defer { a.stop() }
        let b = try shared.relay("b")
        defer { b.stop() }
        let relayA = RelayClient(port: a.port), relayB = RelayClient(port: b.port)
        let laptop = try relayA.enroll(code: code, name: "laptop")
        let phone = try relayB.enroll(code: try shared.invite("alice@acme.example"), name: "phone")

        // Under the 8 MiB checkpoint: A records no offset until its body has ended.
        let length = 3 << 20
        let content = Self.content(length, seed: 5)
        let location = try relayA.createUpload(length: length, token: laptop.token)
        let id = String(location.split(separator: "/").last!)
        let patch = try RawConnection(port: a.port)
        try patch.sendHead("PATCH", location, headers: [
            "Authorization": "Bearer \(laptop.token)", "Tus-Resumable": "1.0.0", "Upload-Offset": "0",
            "Content-Type": "application/offset+octet-stream", "Content-Length": "\(length)",
        ])
        try patch.send(Array(content[..<(1 << 20)]))
        // A is writing: the upload's file in the shared folder has its first MiB.
        let file = shared.blobs + "/uploads/" + id
        var size = 0
        for _ in 0..<1000 where size < 1 << 20 {
            size = ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int) ?? 0
            if size < 1 << 20 { usleep(10_000) }
        }
        #expect(size == 1 << 20)

        // Another PATCH of the upload from the offset the database still has (0), other bytes, through B.
        let refused = try relayB.patch(location, token: laptop.token, offset: 0, Self.content(64 << 10, seed: 6))
        #expect(refused.status == 409, "\(refused.status) \(refused.text)")
        #expect(try relayB.offset(location, token: laptop.token) == 0)

        try patch.send(Array(content[(1 << 20)...]))
        let answer = try patch.readAnswer(method: "PATCH")
        #expect(answer.status == 204, "\(answer.text)")
        #expect(answer.headers["upload-offset"] == "\(length)")
        // The offset either instance reports, the file and A's bytes agree.
        #expect(try relayB.offset(location, token: laptop.token) == length)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(content))
        let transfer = try relayB.send(upload: id, to: [phone.id], token: laptop.token)
        let fetched = try relayA.request("GET", "/v1/transfers/\(transfer)/content", token: phone.token)
        #expect(fetched.status == 200)
        #expect(fetched.body == content)
    }

    @Test("200 concurrent transfers over two relays, acknowledged and cancelled racing: every reference count equals its live rows")
    func concurrentTransfers() throws {
        let shared = try Shared("scale-race")
        let code = try shared.addUser("alice@acme.example")
        let a = try shared.relay("a")
        defer { a.stop() }
        let b = try shared.relay("b")
        defer { b.stop() }
        let relays = [RelayClient(port: a.port), RelayClient(port: b.port)]
        let laptop = try relays[0].enroll(code: code, name: "laptop")
        let phone = try relays[1].enroll(code: try shared.invite("alice@acme.example"), name: "phone")
        let tablet = try relays[0].enroll(code: try shared.invite("alice@acme.example"), name: "tablet")

        let count = 200
        let made = Locked([Int: String]())
        let failed = Self.parallel(count) { i in
            let relay = relays[i % 2]
            let upload = try relay.upload(Self.content(2048, seed: i), token: laptop.token)
            let id = try relay.send(upload: upload, to: [phone.id, tablet.id], token: laptop.token)
            made.with { $0[i] = id }
        }
        #expect(failed.isEmpty, "\(failed.prefix(3))")
        let transfers = made.with { $0 }
        #expect(transfers.count == count)
        let before = try shared.referenceAudit()
        #expect(before.wrong.isEmpty && before.blobs == count)

        // The phone acknowledges every copy, through one instance; the sender cancels every
        // fourth transfer through the other at the same time.
        let raced = Self.parallel(count * 2) { n in
            let i = n / 2
            let id = transfers[i]!
            if n % 2 == 0 {
                let answer = try relays[i % 2].request("POST", "/v1/transfers/\(id)/ack", token: phone.token)
                guard answer.status == 204 || (i % 4 == 0 && answer.status == 404) else {
                    throw HarnessError("ack \(id): \(answer.status) \(answer.text)")
                }
            } else if i % 4 == 0 {
                let answer = try relays[(i + 1) % 2].request("DELETE", "/v1/transfers/\(id)", token: laptop.token)
                guard answer.status == 204 || answer.status == 200 else { throw HarnessError("cancel \(id): \(answer.status) \(answer.text)") }
            }
        }
        #expect(raced.isEmpty, "\(raced.prefix(3))")
        let after = try shared.referenceAudit()
        #expect(after.wrong.isEmpty, "\(after.wrong.prefix(3))")
        // The tablet's copies of the transfers not cancelled are all that is left.
        #expect(after.blobs == count - count / 4)
        let inbox = try relays[1].request("GET", "/v1/inbox", token: tablet.token)
        let waiting = (try JSONSerialization.jsonObject(with: Data(inbox.body)) as? [[String: Any]])?.count
        #expect(waiting == count - count / 4)
        let files = try FileManager.default.contentsOfDirectory(atPath: shared.blobs + "/blobs")
        #expect(files.count == count - count / 4)
    }

    @Test("migrate, then copy an embedded relay (devices, groups, transfers, cloud files, policy) into PostgreSQL: all readable there; health follows the database")
    func copyEmbeddedRelay() throws {
        let shared = try Shared("scale-copy")
        let migrated = try shared.admin(["migrate"])
        #expect(migrated.out.hasPrefix("applied v1-tables\n"))
        #expect(try shared.admin(["migrate"]).out == "up to date\n")

        // The embedded relay and its data.
        let data = shared.scratch.url.appendingPathComponent("embedded")
        let embedded = RelayAdmin(data: data)
        let code = try embedded.addUser("alice@acme.example", org: "acme", admin: true)
        let relay = try RelayProcess(data: data)
        let client = RelayClient(port: relay.port)
        let laptop = try client.enroll(code: code, name: "laptop")
        let phone = try client.enroll(code: try embedded.invite("alice@acme.example"), name: "phone")
        #expect(try client.request("POST", "/v1/groups", token: laptop.token, json: #"{"name":"home","members":["\#(phone.id)"]}"#).status == 201)
        let pushed = Self.content(50_000, seed: 3)
        let transfer = try client.send(upload: try client.upload(pushed, token: laptop.token), to: [phone.id], token: laptop.token)
        #expect(try client.request("POST", "/v1/cloud/docs", token: laptop.token, json: #"{"kind":"folder"}"#).status == 201)
        let stored = Self.content(30_000, seed: 4)
        let put = try client.request("PUT", "/v1/cloud/docs/a.age", token: laptop.token,
                                     json: #"{"upload":"\#(try client.upload(stored, token: laptop.token))"}"#)
        #expect(put.status == 201 || put.status == 200, "\(put.text)")
        #expect(try client.request("POST", "/v1/items", token: laptop.token, json: #"{"app":"okular","name":"Okular"}"#).status == 201)
        let items = try client.request("GET", "/v1/items", token: laptop.token).text
        #expect(relay.stop() == 0)

        let copied = try Tools.run("vfs-relay", ["copy", "--from", data.path, "--to", shared.url, "--blobs", shared.blobs])
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(copied.out.contains("devices 2\n") && copied.out.contains("items 1\n"), "\(copied.out)")
        // A second copy would mix two relays: refused, nothing written.
        let again = try Tools.run("vfs-relay", ["copy", "--from", data.path, "--to", shared.url])
        #expect(again.status == 73)
        // postgres-nio may log a retried connection first on a loaded machine; the error is the tool's line.
        #expect(again.stderr.split(separator: "\n").contains { $0.hasPrefix("vfs-relay: error: the PostgreSQL database already holds a relay") },
                "\(again.stderr)")

        let pg = try shared.relay("pg")
        defer { pg.stop() }
        let moved = RelayClient(port: pg.port)
        let devices = try moved.request("GET", "/v1/devices", token: laptop.token)
        #expect(devices.status == 200 && devices.text.contains(phone.id))
        #expect(try moved.request("GET", "/v1/groups/home", token: laptop.token).text.contains(phone.id))
        #expect(try moved.request("GET", "/v1/inbox", token: phone.token).text.contains(transfer))
        #expect(try moved.request("GET", "/v1/transfers/\(transfer)/content", token: phone.token).body == pushed)
        #expect(try moved.request("GET", "/v1/cloud/docs/a.age", token: laptop.token).body == stored)
        #expect(try moved.request("GET", "/v1/items", token: laptop.token).text == items)
        // The copied events replay from Last-Event-ID 0.
        let stream = try EventStream(port: pg.port, token: phone.token, lastEventID: "0")
        #expect(try stream.next()?.data == #"{"group":"home"}"#)
        #expect(try stream.next()?.data == #"{"transfer":"\#(transfer)"}"#)

        // Health follows the database: 503 while it refuses connections, 200 again after.
        #expect(try moved.request("GET", "/v1/health").status == 200)
        try shared.cluster.psql("postgres", "ALTER DATABASE \(shared.database) ALLOW_CONNECTIONS false")
        try shared.cluster.psql("postgres", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(shared.database)'")
        let down = try moved.request("GET", "/v1/health")
        try shared.cluster.psql("postgres", "ALTER DATABASE \(shared.database) ALLOW_CONNECTIONS true")
        #expect(down.status == 503, "\(down.text)")
        var up = 0
        for _ in 0..<100 where up != 200 {
            up = try moved.request("GET", "/v1/health").status
            if up != 200 { usleep(50_000) }
        }
        #expect(up == 200)
    }
}
