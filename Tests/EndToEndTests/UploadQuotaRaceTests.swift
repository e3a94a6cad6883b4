import Foundation
import Testing
import VFSTestSupport

/// Issue 25, defect 2: parallel creations each read the user's usage before any of them
/// was counted in it, and together passed the quota (20 × 900 kB under 1 MB: 4 accepted).
/// The relay now checks and reserves in one transaction (the user row's lock on
/// PostgreSQL, the write transaction on SQLite).
@Suite("vfs-relay: concurrent upload creations never pass the quota", .serialized)
struct UploadQuotaRaceTests {
    static let quota = 1_000_000, length = 900_000, attempts = 20

    /// Threads that wait for each other: each connects, then all send at once.
    final class Barrier: @unchecked Sendable {
        private let condition = NSCondition()
        private var waiting: Int
        init(_ count: Int) { waiting = count }
        func wait() {
            condition.lock()
            defer { condition.unlock() }
            waiting -= 1
            if waiting == 0 { condition.broadcast() }
            let deadline = Date().addingTimeInterval(60)
            while waiting > 0 && condition.wait(until: deadline) {}
        }
    }

    /// `attempts` requests of `token`'s, spread over the relays, each on a connection of its
    /// own opened first and all sent at once; every answer that is not `ok` must be 413
    /// quota_exceeded. The answers' statuses.
    static func atOnce(_ ports: [Int], token: String, ok: Int,
                       _ request: @escaping @Sendable (Int) -> (method: String, path: String, headers: [String: String], body: [UInt8]))
        -> [Int] {
        let statuses = ScaleOutTests.Locked([(status: Int, text: String)]())
        let barrier = Barrier(attempts)
        let failures = ScaleOutTests.parallel(attempts, threads: attempts) { n in
            let connection = try RawConnection(port: ports[n % ports.count])
            let (method, path, headers, body) = request(n)
            barrier.wait()
            try connection.sendHead(method, path, headers: headers.merging([
                "Authorization": "Bearer \(token)", "Tus-Resumable": "1.0.0", "Content-Length": "\(body.count)", "Connection": "close",
            ]) { $1 })
            if !body.isEmpty { try connection.send(body) }
            let answer = try connection.readAnswer(method: method)
            statuses.with { $0.append((answer.status, answer.text)) }
        }
        #expect(failures.isEmpty, "\(failures)")
        let answers = statuses.with { $0 }
        for answer in answers where answer.status != ok {
            #expect(answer.status == 413 && answer.text.contains("quota_exceeded"), "\(answer.status) \(answer.text)")
        }
        return answers.map(\.status)
    }

    /// `attempts` creations of `length` bytes at once.
    static func createAtOnce(_ ports: [Int], token: String) -> [Int] {
        atOnce(ports, token: token, ok: 201) { _ in ("POST", "/v1/uploads", ["Upload-Length": "\(length)"], []) }
    }

    /// What the user holds, as the relay reports it.
    static func used(_ relay: RelayClient, token: String) throws -> Int? {
        let answer = try relay.request("GET", "/v1/cloud-usage", token: token)
        return (try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])?["used"] as? Int
    }

    @Test("SQLite: 20 parallel creations of 900 kB under a 1 MB quota: one accepted, the others 413, 900 kB held")
    func sqlite() throws {
        let setup = try RelayTests.Setup(arguments: ["--quota", "\(Self.quota)"])
        let statuses = Self.createAtOnce([setup.relay.port], token: setup.laptop.token)
        #expect(statuses.count == Self.attempts)
        #expect(statuses.filter { $0 == 201 }.count == 1, "\(statuses)")
        #expect(try Self.used(setup.client, token: setup.laptop.token) == Self.length)
        #expect(setup.relay.stop() == 0)
    }

    /// `attempts` uploads of deferred length, created one by one; their paths.
    static func deferredUploads(port: Int, token: String) throws -> [String] {
        try (0..<attempts).map { _ in
            let created = try RelayClient(port: port).request("POST", "/v1/uploads", token: token,
                                                              headers: RelayClient.tus.merging(["Upload-Defer-Length": "1"]) { $1 })
            return try #require(created.headers["location"], "\(created.status) \(created.text)")
        }
    }

    /// `attempts` uploads of deferred length, created one by one, then each declaring
    /// `length` bytes in a PATCH (with one byte), all at once; the PATCHes' statuses.
    static func declareAtOnce(_ ports: [Int], token: String) throws -> [Int] {
        let paths = try deferredUploads(port: ports[0], token: token)
        return atOnce(ports, token: token, ok: 204) { n in
            ("PATCH", paths[n], ["Upload-Offset": "0", "Upload-Length": "\(length)", "Content-Type": "application/offset+octet-stream"],
             [7])
        }
    }

    /// `attempts` uploads of deferred length, each sent 900 kB in one PATCH that declares
    /// no length (the bytes stream in), all at once; the PATCHes' statuses.
    static func streamAtOnce(_ ports: [Int], token: String) throws -> [Int] {
        let paths = try deferredUploads(port: ports[0], token: token)
        let body = [UInt8](repeating: 9, count: length)
        return atOnce(ports, token: token, ok: 204) { n in
            ("PATCH", paths[n], ["Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"], body)
        }
    }

    @Test("SQLite: 20 uploads of deferred length each streaming 900 kB in parallel under a 1 MB quota: one accepted, at most 1 MB held")
    func sqliteStreamed() throws {
        let setup = try RelayTests.Setup(arguments: ["--quota", "\(Self.quota)"])
        let statuses = try Self.streamAtOnce([setup.relay.port], token: setup.laptop.token)
        #expect(statuses.filter { $0 == 204 }.count == 1, "\(statuses)")
        // The one accepted holds 900 kB; a PATCH that started after it ended may keep what
        // fitted under the quota (tus keeps what arrived), never more, and no reservation stays.
        let used = try #require(try Self.used(setup.client, token: setup.laptop.token))
        #expect(used >= Self.length && used <= Self.quota, "\(used)")
        #expect(setup.relay.stop() == 0)
    }

    @Test("SQLite: 20 uploads of deferred length declaring 900 kB in parallel PATCHes under a 1 MB quota: one accepted, 900 kB held")
    func sqliteDeferred() throws {
        let setup = try RelayTests.Setup(arguments: ["--quota", "\(Self.quota)"])
        let statuses = try Self.declareAtOnce([setup.relay.port], token: setup.laptop.token)
        #expect(statuses.filter { $0 == 204 }.count == 1, "\(statuses)")
        #expect(try Self.used(setup.client, token: setup.laptop.token) == Self.length)
        #expect(setup.relay.stop() == 0)
    }

    @Test("PostgreSQL, two relays on one database, a 1 MB quota: 20 parallel creations of 900 kB, 20 parallel PATCHes declaring 900 kB, 20 streaming 900 kB undeclared: one of each accepted, 900 kB held")
    func postgres() throws {
        let shared = try ScaleOutTests.Shared("quota-race")
        let code = try shared.addUser("alice@acme.example")
        let arguments = shared.options + ["--quota", "\(Self.quota)"]
        let a = try RelayProcess(data: shared.scratch.url.appendingPathComponent("a"), arguments: arguments)
        defer { a.stop() }
        let b = try RelayProcess(data: shared.scratch.url.appendingPathComponent("b"), arguments: arguments)
        defer { b.stop() }
        let relays = [RelayClient(port: a.port), RelayClient(port: b.port)]
        let laptop = try relays[0].enroll(code: code, name: "laptop")
        let statuses = Self.createAtOnce([a.port, b.port], token: laptop.token)
        #expect(statuses.count == Self.attempts)
        #expect(statuses.filter { $0 == 201 }.count == 1, "\(statuses)")
        #expect(try Self.used(relays[1], token: laptop.token) == Self.length)

        // Lengths declared late, by another user: the same.
        let phone = try relays[1].enroll(code: try shared.addUser("bob@acme.example"), name: "phone")
        let declared = try Self.declareAtOnce([a.port, b.port], token: phone.token)
        #expect(declared.filter { $0 == 204 }.count == 1, "\(declared)")
        #expect(try Self.used(relays[0], token: phone.token) == Self.length)

        // Bytes streamed into uploads of deferred length, by a third user: the same.
        let tablet = try relays[0].enroll(code: try shared.addUser("carol@acme.example"), name: "tablet")
        let streamed = try Self.streamAtOnce([a.port, b.port], token: tablet.token)
        #expect(streamed.filter { $0 == 204 }.count == 1, "\(streamed)")
        let used = try #require(try Self.used(relays[1], token: tablet.token))
        #expect(used >= Self.length && used <= Self.quota, "\(used)")
    }
}
