import Foundation
import Testing
import VFSCore
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The built `vfs-relay` on 127.0.0.1, port 0, in a scratch folder.
@Suite("vfs-relay live", .serialized)
struct RelayTests {
    /// A relay with alice (laptop and phone) enrolled.
    struct Setup {
        let scratch: TestFolder
        let admin: RelayAdmin
        let relay: RelayProcess
        let client: RelayClient
        let laptop: (id: String, token: String)
        let phone: (id: String, token: String)

        init(arguments: [String] = []) throws {
            scratch = try TestFolder()
            let data = scratch.url.appendingPathComponent("data")
            admin = RelayAdmin(data: data)
            let code = try admin.addUser("alice@acme.example", org: "acme", admin: true)
            relay = try RelayProcess(data: data, arguments: arguments)
            client = RelayClient(port: relay.port)
            laptop = try client.enroll(code: code, name: "laptop")
            phone = try client.enroll(code: try admin.invite("alice@acme.example"), name: "phone")
        }
    }

    @Test("serve prints its ready line, logs a line per request, stops cleanly on SIGTERM; admin commands work beside it")
    func serveAndAdmin() throws {
        let setup = try Setup()
        let health = try setup.client.request("GET", "/v1/health")
        #expect(health.status == 200)
        #expect(setup.relay.stdoutText == "vfs-relay: listening on http://127.0.0.1:\(setup.relay.port)\n")

        let users = try setup.admin.run(["users", "--json"])
        #expect(users.status == 0)
        let list = try JSONSerialization.jsonObject(with: users.stdout) as? [[String: Any]]
        #expect(list?.first?["email"] as? String == "alice@acme.example")
        #expect(list?.first?["devices"] as? Int == 2)
        let devices = try setup.admin.run(["devices"])
        #expect(devices.out.contains(setup.laptop.id) && devices.out.contains(setup.phone.id))
        let stats = try JSONSerialization.jsonObject(with: try setup.admin.run(["stats", "--json"]).stdout) as? [String: Any]
        #expect(stats?["activeDevices"] as? Int == 2)
        #expect(stats?["organisations"] as? Int == 1)

        let duplicate = try setup.admin.run(["org", "add", "acme"])
        #expect(duplicate.status == 65)
        #expect(duplicate.stderr.hasPrefix("vfs-relay: error: organisation \"acme\" already exists"))
        let noOrg = try setup.admin.run(["user", "add", "bob@x.example", "--org", "nope"])
        #expect(noOrg.status == 66)
        #expect(noOrg.stdout.isEmpty)
        #expect(try setup.admin.run(["user", "add", "not-an-email", "--org", "acme"]).status == 64)
        #expect(try setup.admin.run(["invite", "nobody@acme.example"]).status == 66)

        let backup = setup.scratch.path("backup.sqlite")
        #expect(try setup.admin.run(["backup", "-o", backup]).status == 0)
        #expect(FileManager.default.fileExists(atPath: backup))
        let again = try setup.admin.run(["backup", "-o", backup])
        #expect(again.status == 73)
        // The copy is a relay database: the admin commands read it.
        let copy = setup.scratch.url.appendingPathComponent("copy")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: backup, toPath: copy.appendingPathComponent("relay.sqlite").path)
        #expect(try RelayAdmin(data: copy).run(["users"]).out.contains("alice@acme.example"))

        // A second relay on the same port (its own data folder: one serve per folder) cannot listen: 69.
        let busy = try Tools.run("vfs-relay", ["serve", "--listen", "127.0.0.1:\(setup.relay.port)", "--data", copy.path])
        #expect(busy.status == 69)
        // (serve logs on stderr too; the error is the last line)
        let lines = busy.stderr.split(separator: "\n").suffix(2).map(String.init)
        #expect(lines == ["vfs-relay: error: cannot serve on 127.0.0.1:\(setup.relay.port): the address is in use",
                          "vfs-relay: hint: another program listens there: choose another port (--listen 127.0.0.1:0 picks a free one)"])

        #expect(setup.relay.stop() == 0)
        #expect(setup.relay.stderrText.contains("GET /v1/health 200"))
        #expect(!setup.relay.stderrText.contains(setup.laptop.token))
    }

    @Test("--data defaults to $VFS_HOME/relay; admin commands on a missing folder fail with 66")
    func dataDefault() throws {
        let scratch = try TestFolder()
        let home = scratch.url.appendingPathComponent("home").path
        let missing = try Tools.run("vfs-relay", ["users"], environment: ["VFS_HOME": home])
        #expect(missing.status == 66)
        #expect(missing.stderr.hasPrefix("vfs-relay: error: no relay database in"))
        // Only init (or serve) makes a relay: org add on no relay is 66 and creates nothing.
        let orphan = try Tools.run("vfs-relay", ["org", "add", "acme"], environment: ["VFS_HOME": home])
        #expect(orphan.status == 66)
        #expect(orphan.stderr.hasSuffix("vfs-relay: hint: give the folder of the relay with --data DIR (or VFS_RELAY_DATA), or make a new relay there with `vfs-relay init`\n"), "\(orphan.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home + "/relay"))
        let made = try Tools.run("vfs-relay", ["init"], environment: ["VFS_HOME": home])
        #expect(made.status == 0)
        #expect(made.stderr == "vfs-relay: created: the relay database in \"\(home)/relay\"\n")
        #expect(try Tools.run("vfs-relay", ["init"], environment: ["VFS_HOME": home]).stderr.hasPrefix("vfs-relay: already there:"))
        #expect(try Tools.run("vfs-relay", ["org", "add", "acme"], environment: ["VFS_HOME": home]).status == 0)
        #expect(FileManager.default.fileExists(atPath: home + "/relay/relay.sqlite"))
        // VFS_RELAY_DATA names the folder when --data does not.
        let elsewhere = scratch.url.appendingPathComponent("elsewhere").path
        #expect(try Tools.run("vfs-relay", ["init"], environment: ["VFS_HOME": home, "VFS_RELAY_DATA": elsewhere]).status == 0)
        #expect(try Tools.run("vfs-relay", ["org", "add", "other"], environment: ["VFS_HOME": home, "VFS_RELAY_DATA": elsewhere]).status == 0)
        let orgs = try Tools.run("vfs-relay", ["stats"], environment: ["VFS_HOME": home, "VFS_RELAY_DATA": elsewhere])
        #expect(orgs.status == 0)
        #expect(FileManager.default.fileExists(atPath: elsewhere + "/relay.sqlite"))
        #expect(try Tools.run("vfs-relay", ["serve", "--listen", "nonsense"], environment: ["VFS_HOME": home]).status == 64)
        // An address beyond loopback is warned about (192.0.2.1, TEST-NET-1, is no local address: nothing listens).
        let remote = try Tools.run("vfs-relay", ["serve", "--listen", "192.0.2.1:0"], environment: ["VFS_HOME": home])
        #expect(remote.status == 69)
        #expect(remote.stderr.hasPrefix("vfs-relay: warning: listening on 192.0.2.1, beyond loopback without TLS"))
        #expect(remote.stderr.hasSuffix("vfs-relay: error: cannot serve on 192.0.2.1:0: no such local address\n"))
    }

    @Test("--tls-cert/--tls-key: the relay serves HTTPS with that certificate; one without the other is a usage error")
    func tls() throws {
        let scratch = try TestFolder()
        let cert = scratch.path("cert.pem"), key = scratch.path("key.pem")
        let made = try Tools.run("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                             "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                                             "-addext", "subjectAltName=IP:127.0.0.1"])
        #expect(made.status == 0)
        let data = scratch.url.appendingPathComponent("data")
        let relay = try RelayProcess(data: data, arguments: ["--tls-cert", cert, "--tls-key", key])
        #expect(relay.stdoutText == "vfs-relay: listening on https://127.0.0.1:\(relay.port)\n")
        let health = try Tools.run("curl", ["-sS", "--cacert", cert, "https://127.0.0.1:\(relay.port)/v1/health"])
        #expect(health.status == 0)
        #expect(health.out.contains("\"status\":\"ok\""))
        // Plain HTTP on the TLS port gets no answer.
        #expect(try Tools.run("curl", ["-sS", "-m", "5", "http://127.0.0.1:\(relay.port)/v1/health"]).out.isEmpty)
        #expect(relay.stop() == 0)
        let half = try Tools.run("vfs-relay", ["serve", "--listen", "127.0.0.1:0", "--data", data.path, "--tls-cert", cert])
        #expect(half.status == 64)
        #expect(half.stderr.hasPrefix("vfs-relay: error: --tls-cert and --tls-key go together"))
    }

    @Test("tus: a dropped connection keeps what arrived; the upload resumes from there")
    func resumeAfterDrop() throws {
        let setup = try Setup()
        let content = Array(testBytes(3_000_000, seed: 7))
        let location = try setup.client.createUpload(length: content.count, token: setup.laptop.token)
        do {
            let connection = try RawConnection(port: setup.relay.port)
            try connection.sendHead("PATCH", location, headers: [
                "Authorization": "Bearer \(setup.laptop.token)", "Tus-Resumable": "1.0.0", "Upload-Offset": "0",
                "Content-Type": "application/offset+octet-stream", "Content-Length": "\(content.count)",
            ])
            try connection.send(Array(content[0..<1_000_000]))
        }
        // The relay notices the drop and records the offset: wait for it.
        var offset = 0
        let deadline = Date().addingTimeInterval(30)
        while offset < 1_000_000 && Date() < deadline {
            offset = try setup.client.offset(location, token: setup.laptop.token)
            if offset < 1_000_000 { usleep(50_000) }
        }
        #expect(offset == 1_000_000)
        var answer = try setup.client.patch(location, token: setup.laptop.token, offset: offset, Array(content[offset...]))
        while answer.status == 409 && Date() < deadline {
            usleep(50_000)
            answer = try setup.client.patch(location, token: setup.laptop.token, offset: offset, Array(content[offset...]))
        }
        #expect(answer.status == 204)
        let upload = String(location.split(separator: "/").last!)
        let transfer = try setup.client.send(upload: upload, to: [setup.phone.id], token: setup.laptop.token)
        let download = try setup.client.request("GET", "/v1/transfers/\(transfer)/content", token: setup.phone.token)
        #expect(download.status == 200)
        #expect(download.body == content)
        // SIGINT stops it cleanly too.
        kill(setup.relay.server.process.processIdentifier, SIGINT)
        setup.relay.server.process.waitUntilExit()
        #expect(setup.relay.server.process.terminationReason == .exit)
        #expect(setup.relay.server.process.terminationStatus == 0)
    }

    @Test("tus: a chunked PATCH that runs past Upload-Length is 413, keeps the bytes up to the length, and the upload is usable")
    func pastTheLength() throws {
        let setup = try Setup()
        let content = Array(testBytes(1500, seed: 5))
        let location = try setup.client.createUpload(length: 1000, token: setup.laptop.token)
        let connection = try RawConnection(port: setup.relay.port)
        try connection.sendHead("PATCH", location, headers: [
            "Authorization": "Bearer \(setup.laptop.token)", "Tus-Resumable": "1.0.0", "Upload-Offset": "0",
            "Content-Type": "application/offset+octet-stream", "Transfer-Encoding": "chunked", "Connection": "close",
        ])
        try connection.send(Array("5dc\r\n".utf8) + content + Array("\r\n0\r\n\r\n".utf8))
        #expect(try connection.readAnswer(method: "PATCH").status == 413)
        #expect(try setup.client.offset(location, token: setup.laptop.token) == 1000)
        let transfer = try setup.client.send(upload: String(location.split(separator: "/").last!), to: [setup.phone.id],
                                             token: setup.laptop.token)
        let download = try setup.client.request("GET", "/v1/transfers/\(transfer)/content", token: setup.phone.token)
        #expect(download.body == Array(content[0..<1000]))
    }

    @Test("tus: the offset survives a restart, even one in the middle of a PATCH; Range downloads resume")
    func resumeAfterRestart() throws {
        let setup = try Setup()
        let content = Array(testBytes(2_500_000, seed: 9))
        let location = try setup.client.createUpload(length: content.count, token: setup.laptop.token)
        #expect(try setup.client.patch(location, token: setup.laptop.token, offset: 0, Array(content[0..<1_000_000])).status == 204)
        // A PATCH in flight when SIGTERM comes: the relay still stops, keeping what arrived.
        let connection = try RawConnection(port: setup.relay.port)
        try connection.sendHead("PATCH", location, headers: [
            "Authorization": "Bearer \(setup.laptop.token)", "Tus-Resumable": "1.0.0", "Upload-Offset": "1000000",
            "Content-Type": "application/offset+octet-stream", "Content-Length": "1500000",
        ])
        try connection.send(Array(content[1_000_000..<1_200_000]))
        usleep(300_000)
        #expect(setup.relay.stop() == 0)

        let relay = try RelayProcess(data: setup.relay.data)
        let client = RelayClient(port: relay.port)
        let offset = try client.offset(location, token: setup.laptop.token)
        #expect(offset == 1_200_000)
        #expect(try client.patch(location, token: setup.laptop.token, offset: offset, Array(content[offset...])).status == 204)
        let transfer = try client.send(upload: String(location.split(separator: "/").last!), to: [setup.phone.id], token: setup.laptop.token)

        let path = "/v1/transfers/\(transfer)/content"
        let first = try client.request("GET", path, token: setup.phone.token, headers: ["Range": "bytes=0-999999"])
        #expect(first.status == 206)
        #expect(first.headers["content-range"] == "bytes 0-999999/2500000")
        let etag = try #require(first.headers["etag"])
        let rest = try client.request("GET", path, token: setup.phone.token, headers: ["Range": "bytes=1000000-", "If-Range": etag])
        #expect(rest.status == 206)
        #expect(first.body + rest.body == content)
        #expect(etag == "\"\(SHA256.hash(content).map { String(format: "%02x", $0) }.joined())\"")
        #expect(try client.request("GET", path, token: setup.phone.token, headers: ["Range": "bytes=2500000-"]).status == 416)
        #expect(relay.stop() == 0)
    }

    @Test("events: delivery, Last-Event-ID resume with stored events, keep-alive comments, logout closes the stream")
    func events() throws {
        let setup = try Setup(arguments: ["--keep-alive", "1"])
        let stream = try EventStream(port: setup.relay.port, token: setup.phone.token)
        #expect(stream.status == 200)
        let first = try setup.client.send(upload: try setup.client.upload([1, 2, 3], token: setup.laptop.token),
                                          to: [setup.phone.id], token: setup.laptop.token)
        let delivered = try #require(try stream.next())
        #expect(delivered.event == "transfer")
        #expect(delivered.data.contains(first))
        #expect(try stream.waitForKeepAlive())
        // An alert stored by the admin command (another process) reaches the open stream.
        #expect(try setup.admin.run(["alert", "alice@acme.example", "hello"]).status == 0)
        let live = try #require(try stream.next())
        #expect(live.event == "alert")
        #expect(live.data == #"{"message":"hello"}"#)
        let lastID = try #require(live.id)

        // Offline: events are stored, including an alert made by the admin command.
        let second = try setup.client.send(upload: try setup.client.upload([4], token: setup.laptop.token),
                                           to: [setup.phone.id], token: setup.laptop.token)
        #expect(try setup.admin.run(["alert", "alice@acme.example", "rotate your keys"]).status == 0)
        let resumed = try EventStream(port: setup.relay.port, token: setup.phone.token, lastEventID: lastID)
        let replay = [try resumed.next(), try resumed.next()].compactMap { $0 }
        #expect(replay.map(\.event) == ["transfer", "alert"])
        #expect(replay.first?.data.contains(second) == true)
        #expect(replay.last?.data.contains("rotate your keys") == true)
        let ids = ([delivered.id!, lastID] + replay.compactMap(\.id)).compactMap { Int($0) }
        #expect(ids == ids.sorted() && Set(ids).count == 4)
        // From the start: everything again, in order.
        let all = try EventStream(port: setup.relay.port, token: setup.phone.token, lastEventID: "0")
        #expect(try all.next()?.id == delivered.id)
        #expect(try all.next()?.id == lastID)

        // Log the phone out: its open stream gets `logout` and ends.
        #expect(try setup.client.request("DELETE", "/v1/devices/\(setup.phone.id)", token: setup.laptop.token).status == 204)
        var kinds = [String]()
        while let event = try resumed.next() { kinds.append(event.event ?? "") }
        #expect(kinds == ["logout"])
        #expect(try EventStream(port: setup.relay.port, token: setup.phone.token).status == 401)
        #expect(setup.relay.stop() == 0)
    }

    @Test("a device invalidated mid-download loses access on its next request")
    func invalidatedMidDownload() throws {
        let setup = try Setup()
        let content = Array(testBytes(1_000_000, seed: 3))
        let transfer = try setup.client.send(upload: try setup.client.upload(content, token: setup.laptop.token, pieces: 3),
                                             to: [setup.phone.id], token: setup.laptop.token)
        let path = "/v1/transfers/\(transfer)/content"
        let part = try setup.client.request("GET", path, token: setup.phone.token, headers: ["Range": "bytes=0-499999"])
        #expect(part.status == 206)
        #expect(try setup.client.request("DELETE", "/v1/devices/\(setup.phone.id)", token: setup.laptop.token).status == 204)
        let next = try setup.client.request("GET", path, token: setup.phone.token, headers: ["Range": "bytes=500000-"])
        #expect(next.status == 401)
        // Its copy expired and the blob is gone.
        let stats = try JSONSerialization.jsonObject(with: try setup.admin.run(["stats", "--json"]).stdout) as? [String: Any]
        #expect(stats?["blobs"] as? Int == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.relay.data.appendingPathComponent("blobs").path).isEmpty)
    }

    @Test("crash: kill -9 during 20 concurrent uploads and fan-outs; after restart and gc every finished transfer is intact and the counts agree")
    func crash() throws {
        let setup = try Setup()
        let tablet = try setup.client.enroll(code: try setup.admin.invite("alice@acme.example"), name: "tablet")
        let client = setup.client
        let laptop = setup.laptop, phone = setup.phone
        let relay = setup.relay
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var done = [(transfer: String, sha256: String)]()
            func add(_ transfer: String, _ sha256: String) { lock.lock(); done.append((transfer, sha256)); lock.unlock() }
        }
        let results = Results()
        let started = Date()
        DispatchQueue.concurrentPerform(iterations: 21) { n in
            if n == 20 {
                // Kill once some transfers finished (or after a few seconds), while others are mid-flight.
                while results.lock.withLock({ results.done.count }) < 5 && Date().timeIntervalSince(started) < 20 { usleep(10_000) }
                relay.crash()
                return
            }
            for round in 0..<50 {
                let content = Array(testBytes(200_000 + n * 10_000, seed: UInt64(n * 100 + round + 1)))
                guard let upload = try? client.upload(content, token: laptop.token, pieces: 4),
                      let transfer = try? client.send(upload: upload, to: [phone.id, tablet.id], token: laptop.token) else { return }
                results.add(transfer, SHA256.hash(content).map { String(format: "%02x", $0) }.joined())
            }
        }
        #expect(!setup.relay.isRunning)
        let finished = results.done
        #expect(finished.count >= 5)

        let gc = try setup.admin.run(["gc", "--grace", "0", "--json"])
        #expect(gc.status == 0)
        // A second pass finds nothing left to fix: counts equal live rows, files match rows.
        let second = try JSONSerialization.jsonObject(with: try setup.admin.run(["gc", "--grace", "0", "--json"]).stdout) as? [String: Int]
        #expect(second == ["releasedBlobs": 0, "expiredUploads": 0, "orphanFiles": 0, "orphanRows": 0,
                           "fixedReferenceCounts": 0, "prunedEvents": 0, "droppedVersions": 0])
        let stats = try JSONSerialization.jsonObject(with: try setup.admin.run(["stats", "--json"]).stdout) as? [String: Any]
        let files = try FileManager.default.contentsOfDirectory(atPath: setup.relay.data.appendingPathComponent("blobs").path)
        #expect(stats?["blobs"] as? Int == files.count)
        #expect(files.count >= finished.count)

        let restarted = try RelayProcess(data: setup.relay.data)
        let after = RelayClient(port: restarted.port)
        for (transfer, sha256) in finished {
            for device in [phone, tablet] {
                let download = try after.request("GET", "/v1/transfers/\(transfer)/content", token: device.token)
                #expect(download.status == 200)
                #expect(SHA256.hash(download.body).map { String(format: "%02x", $0) }.joined() == sha256)
            }
        }
        #expect(restarted.stop() == 0)
    }
}
