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

    static func enroll(_ client: RelayClient, code: String, name: String) throws -> HTTPAnswer {
        try client.request("POST", "/v1/enroll", json: #"{"code":"\#(code)","name":"\#(name)","platform":"linux","recipient":"age1x"}"#)
    }

    @Test("one token mints neither invitation codes nor devices without end: past --max-open-invites 429, past --max-devices 403 (the code left unused), each with a message; --max-org-devices counts every user of the organisation; other users enrol")
    func deviceAndInviteCaps() throws {
        let setup = try RelayTests.Setup(arguments: ["--max-open-invites", "3", "--max-devices", "5", "--max-org-devices", "7"])
        // The laptop's token asks for codes as fast as it can: three, then 429.
        var codes: [String] = []
        for _ in 0..<3 {
            let invite = try setup.client.request("POST", "/v1/invites", token: setup.laptop.token)
            #expect(invite.status == 201, "\(invite.text)")
            codes.append(try #require((try JSONSerialization.jsonObject(with: Data(invite.body)) as? [String: Any])?["code"] as? String))
        }
        let fourth = try setup.client.request("POST", "/v1/invites", token: setup.laptop.token)
        #expect(fourth.status == 429 && fourth.headers["retry-after"] != nil, "\(fourth.status)")
        #expect(fourth.text.contains("your devices hold 3 unused invitation codes, the most a user may at once"), "\(fourth.text)")
        // Used, they make devices up to the cap (the laptop and the phone, then three more).
        var tokens: [String] = []
        for (n, code) in codes.enumerated() {
            let made = try Self.enroll(setup.client, code: code, name: "minted\(n)")
            #expect(made.status == 201)
            tokens.append(try #require((try JSONSerialization.jsonObject(with: Data(made.body)) as? [String: Any])?["token"] as? String))
        }
        let invite = try setup.client.request("POST", "/v1/invites", token: setup.laptop.token)
        #expect(invite.status == 201, "the used codes no longer count: \(invite.text)")
        let code = try #require((try JSONSerialization.jsonObject(with: Data(invite.body)) as? [String: Any])?["code"] as? String)
        let sixth = try Self.enroll(setup.client, code: code, name: "minted-too-many")
        #expect(sixth.status == 403, "\(sixth.status) \(sixth.text)")
        #expect(sixth.text.contains("you have 5 devices, the most a user may on this relay"), "\(sixth.text)")
        // The refused enrolment used nothing: with a device gone (one logs itself out), the same code works.
        let devices = try setup.client.request("GET", "/v1/devices", token: tokens[0])
        let minted = try #require((try JSONSerialization.jsonObject(with: Data(devices.body)) as? [[String: Any]])?
            .first { $0["name"] as? String == "minted0" }?["id"] as? String)
        #expect(try setup.client.request("DELETE", "/v1/devices/\(minted)", token: tokens[0]).status == 204)
        #expect(try Self.enroll(setup.client, code: code, name: "minted-again").status == 201)
        // Another user of the organisation: two devices fit under --max-org-devices 7, the third does not.
        #expect(try Self.enroll(setup.client, code: try setup.admin.addUser("bob@acme.example", org: "acme"), name: "bob1").status == 201)
        #expect(try Self.enroll(setup.client, code: try setup.admin.invite("bob@acme.example"), name: "bob2").status == 201)
        let orgFull = try Self.enroll(setup.client, code: try setup.admin.invite("bob@acme.example"), name: "bob3")
        #expect(orgFull.status == 403 && orgFull.text.contains("your organisation has 7 devices"), "\(orgFull.text)")
        // Another organisation is not affected.
        let carol = try setup.admin.addUser("carol@other.example", org: "other")
        #expect(try Self.enroll(setup.client, code: carol, name: "carol").status == 201)
        #expect(setup.relay.stop() == 0)
        for option in ["--max-devices", "--max-org-devices", "--max-open-invites", "--max-user-event-streams", "--max-org-event-streams",
                       "--max-user-requests", "--max-org-requests"] {
            let zero = try Tools.run("vfs-relay", ["serve", "--data", setup.scratch.url.appendingPathComponent("other").path,
                                                   "--listen", "127.0.0.1:0", option, "0"])
            #expect(zero.status == 64 && zero.stderr.contains("\(option) must be at least 1"), "\(option): \(zero.stderr)")
        }
    }

    @Test("the client tools at a cap say why in one error line: vfs-device invite past --max-open-invites exits 75 (try again later), vfs-device enroll past --max-devices exits 77")
    func capsInTools() throws {
        // Alice's laptop, phone and tablet: her three devices, the cap.
        let fleet = try Fleet(relayArguments: ["--max-open-invites", "1", "--max-devices", "3"])
        let first = try fleet.laptop.run("vfs-device", ["invite"])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try fleet.laptop.run("vfs-device", ["invite"])
        #expect(second.status == 75, "\(second.stderr)")
        let errors = second.stderr.split(separator: "\n").filter { $0.hasPrefix("vfs-device: error: ") }
        #expect(errors == ["vfs-device: error: the relay refused: your devices hold 1 unused invitation code, the most a user may at once; use one, or wait until one expires (429 too_many_requests)"],
                "\(second.stderr)")
        let extra = try Machine("extra", in: fleet.scratch)
        let code = first.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let enrolled = try extra.run("vfs-device", ["enroll", "http://127.0.0.1:\(fleet.relay.port)", code, "--name", "extra"])
        #expect(enrolled.status == 77, "\(enrolled.stderr)")
        #expect(enrolled.stderr.split(separator: "\n").filter { $0.hasPrefix("vfs-device: error: ") }.count == 1, "\(enrolled.stderr)")
        #expect(enrolled.stderr.contains("you have 3 devices, the most a user may on this relay"), "\(enrolled.stderr)")
    }

    @Test("one user's devices hold at most --max-user-event-streams streams and --max-user-requests requests at once: one more is 429 with a message, another user's streams and requests are answered, a closed stream frees its place")
    func streamAndRequestCaps() throws {
        let streamsCapped = try RelayTests.Setup(arguments: ["--max-user-event-streams", "2", "--keep-alive", "1"])
        var streams: [EventStream?] = [try EventStream(port: streamsCapped.relay.port, token: streamsCapped.laptop.token),
                                       try EventStream(port: streamsCapped.relay.port, token: streamsCapped.phone.token)]
        #expect(streams.allSatisfy { $0?.status == 200 })
        let third = try streamsCapped.client.request("GET", "/v1/events", token: streamsCapped.phone.token)
        #expect(third.status == 429 && third.headers["retry-after"] == "30", "\(third.status)")
        #expect(third.text.contains("your devices hold 2 event streams, the most this relay allows"), "\(third.text)")
        let bob = try streamsCapped.client.enroll(code: try streamsCapped.admin.addUser("bob@acme.example", org: "acme"), name: "bob")
        let bobs = try EventStream(port: streamsCapped.relay.port, token: bob.token)
        #expect(bobs.status == 200, "another user's stream")
        streams[0] = nil
        var reopened: EventStream?
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let attempt = try EventStream(port: streamsCapped.relay.port, token: streamsCapped.laptop.token)
            if attempt.status == 200 { reopened = attempt; break }
            usleep(200_000)
        }
        #expect(reopened != nil, "no place given back within 60 s")
        _ = (streams, bobs)
        #expect(streamsCapped.relay.stop() == 0)

        // Requests in flight: three open streams hold all of alice's three; her next request waits its turn (429), bob's is answered.
        let requestsCapped = try RelayTests.Setup(arguments: ["--max-user-requests", "3", "--keep-alive", "1"])
        let open = try (0..<3).map { _ in try EventStream(port: requestsCapped.relay.port, token: requestsCapped.laptop.token) }
        #expect(open.allSatisfy { $0.status == 200 })
        let refused = try requestsCapped.client.request("GET", "/v1/devices", token: requestsCapped.phone.token)
        #expect(refused.status == 429 && refused.headers["retry-after"] != nil, "\(refused.status)")
        #expect(refused.text.contains("your devices have 3 requests in progress at once"), "\(refused.text)")
        let other = try requestsCapped.client.enroll(code: try requestsCapped.admin.addUser("bob@acme.example", org: "acme"), name: "bob")
        #expect(try requestsCapped.client.request("GET", "/v1/devices", token: other.token).status == 200)
        _ = open
        #expect(requestsCapped.relay.stop() == 0)
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
