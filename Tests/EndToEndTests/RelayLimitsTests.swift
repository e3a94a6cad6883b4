import Foundation
import Testing
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What one client may hold of the relay (issue 25, defect 4), one `serve` per data
/// folder and the log level (the operator's walk).
@Suite("vfs-relay connection limits, folder lock and log level", .serialized)
struct RelayLimitsTests {
    @Test("connections that send nothing, or half a request head, are closed after --idle-timeout; past --max-connections, a request waits for one to close and is answered")
    func idleConnections() throws {
        let setup = try RelayTests.Setup(arguments: ["--idle-timeout", "2", "--max-connections", "6"])
        // Five silent connections and one that stops in the middle of its head: the cap is full.
        var idle = try (0..<5).map { _ in try RawConnection(port: setup.relay.port) }
        let slow = try RawConnection(port: setup.relay.port)
        try slow.send(Array("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
        idle.append(slow)
        // The seventh waits in the backlog until the timeout frees a place (a relay without
        // the timeout never answers it: the read below times out after 120 s and fails).
        let answer = try setup.client.request("GET", "/v1/health")
        #expect(answer.status == 200)
        for (index, connection) in idle.enumerated() {
            #expect(connection.closedByPeer(), "connection \(index) still open")
        }
        // A connection that keeps sending is not idle: a keep-alive connection used every
        // second for longer than the timeout stays open.
        let busy = try RawConnection(port: setup.relay.port)
        for _ in 0..<4 {
            try busy.sendHead("GET", "/v1/health", headers: [:])
            #expect(try busy.readAnswer(method: "GET").status == 200)
            usleep(900_000)
        }
        #expect(setup.relay.isRunning)
        #expect(setup.relay.stop() == 0)
    }

    @Test("--max-open-uploads and --max-cloud-entries set the per-user caps: one more upload is 429, one more cloud entry 507 too_many_entries; 0 is a usage error")
    func userCaps() throws {
        let setup = try RelayTests.Setup(arguments: ["--max-open-uploads", "2", "--max-cloud-entries", "3"])
        _ = try setup.client.createUpload(length: 10, token: setup.laptop.token)
        _ = try setup.client.createUpload(length: 10, token: setup.phone.token)
        let third = try setup.client.request("POST", "/v1/uploads", token: setup.laptop.token,
                                             headers: RelayClient.tus.merging(["Upload-Length": "10"]) { $1 })
        #expect(third.status == 429, "\(third.text)")
        for name in ["a", "b", "c"] {
            let made = try setup.client.request("POST", "/v1/cloud/\(name)", token: setup.laptop.token, json: #"{"kind":"folder"}"#)
            #expect(made.status == 201, "\(made.text)")
        }
        let fourth = try setup.client.request("POST", "/v1/cloud/d", token: setup.laptop.token, json: #"{"kind":"folder"}"#)
        #expect(fourth.status == 507 && fourth.text.contains("too_many_entries"), "\(fourth.status) \(fourth.text)")
        #expect(setup.relay.stop() == 0)

        let zero = try Tools.run("vfs-relay", ["serve", "--data", setup.scratch.url.appendingPathComponent("other").path,
                                               "--listen", "127.0.0.1:0", "--max-open-uploads", "0"])
        #expect(zero.status == 64 && zero.stderr.contains("--max-open-uploads"), "\(zero.stderr)")
    }

    @Test("one device holds at most --max-event-streams streams: one more is 429 with Retry-After, other devices are not affected, a closed stream frees its place")
    func eventStreams() throws {
        let setup = try RelayTests.Setup(arguments: ["--max-event-streams", "2", "--keep-alive", "1"])
        var streams: [EventStream?] = try (0..<2).map { _ in try EventStream(port: setup.relay.port, token: setup.laptop.token) }
        #expect(streams.allSatisfy { $0?.status == 200 })
        let third = try setup.client.request("GET", "/v1/events", token: setup.laptop.token)
        #expect(third.status == 429)
        #expect(third.headers["retry-after"] == "30")
        #expect(third.text.contains("already holds 2 event streams"), "\(third.text)")
        let phone = try EventStream(port: setup.relay.port, token: setup.phone.token)
        #expect(phone.status == 200, "another device's stream")
        // Close one; the relay notices at its next keep-alive and gives the place back.
        streams[0] = nil
        let deadline = Date().addingTimeInterval(60)
        var reopened: EventStream?
        while Date() < deadline {
            let attempt = try EventStream(port: setup.relay.port, token: setup.laptop.token)
            if attempt.status == 200 { reopened = attempt; break }
            #expect(attempt.status == 429)
            usleep(200_000)
        }
        #expect(reopened != nil, "no place given back within 60 s")
        #expect(try reopened?.waitForKeepAlive() == true)
        _ = streams
        #expect(setup.relay.stop() == 0)
    }

    @Test("a second serve on the same data folder exits 75 naming the pid of the first; admin commands work beside it; a killed relay leaves no stale lock")
    func oneServePerFolder() throws {
        let setup = try RelayTests.Setup()
        let data = setup.admin.data.path
        let second = try Tools.run("vfs-relay", ["serve", "--listen", "127.0.0.1:0", "--data", data])
        #expect(second.status == 75)
        let pid = setup.relay.server.process.processIdentifier
        #expect(second.stderr.hasPrefix("vfs-relay: error: another vfs-relay serve (pid \(pid)) is using the data folder \"\(data)\"\n"),
                "\(second.stderr)")
        #expect(second.stdout.isEmpty, "no ready line")
        #expect(try setup.admin.run(["users"]).status == 0, "admin commands beside serve")
        setup.relay.crash()
        let after = try RelayProcess(data: setup.admin.data)
        #expect(try RelayClient(port: after.port).request("GET", "/v1/health").status == 200)
        #expect(after.stop() == 0)
    }

    @Test("--log-level: access lines only from info; warning (the default) logs none; an unknown level is a usage error (64)")
    func logLevel() throws {
        let setup = try RelayTests.Setup(arguments: ["--log-level", "warning"])
        #expect(try setup.client.request("GET", "/v1/health").status == 200)
        #expect(try setup.client.request("GET", "/v1/devices", token: setup.laptop.token).status == 200)
        #expect(setup.relay.stop() == 0)
        #expect(!setup.relay.stderrText.contains("/v1/health"), "\(setup.relay.stderrText)")
        #expect(!setup.relay.stderrText.contains("/v1/devices"))

        let chatty = try RelayProcess(data: setup.admin.data, arguments: ["--log-level", "info"])
        #expect(try RelayClient(port: chatty.port).request("GET", "/v1/health").status == 200)
        #expect(chatty.stop() == 0)
        #expect(chatty.stderrText.contains("GET /v1/health 200"))

        let bad = try Tools.run("vfs-relay", ["serve", "--listen", "127.0.0.1:0", "--data", setup.admin.data.path, "--log-level", "loud"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--log-level"), "\(bad.stderr)")
    }
}
