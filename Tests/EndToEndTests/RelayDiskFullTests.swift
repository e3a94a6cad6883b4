import Foundation
import Testing
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A full disk is neither shared nor sticky (issue 25, defect 3): one user's uploads stop
/// at the reserve with 507 while enrolment, deletes and the database go on; a disk filled
/// by something else answers 507, never 500, and the relay recovers when space returns.
///
/// The relay runs on a 40 MiB tmpfs of its own: `unshare -rm` gives it a mount namespace
/// (no root needed), and the test reaches that tmpfs through `/proc/PID/root`.
@Suite("vfs-relay on a full disk", .serialized)
struct RelayDiskFullTests {
    /// The relay and its admin commands inside the namespace; enrolment codes come out
    /// through files in the scratch folder.
    final class SmallDiskRelay {
        let scratch: TestFolder
        let data: String
        let server: BackgroundServer
        let client: RelayClient
        let codes: URL

        init(reserve: String) throws {
            scratch = try TestFolder("disk-full")
            data = scratch.url.appendingPathComponent("data").path
            codes = scratch.url.appendingPathComponent("codes")
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: codes, withIntermediateDirectories: true)
            let script = """
                set -e
                mount -t tmpfs -o size=40m,mode=0700 tmpfs "$1"
                "$2" init --data "$1" 2>/dev/null
                "$2" org add acme --data "$1" >/dev/null
                "$2" user add alice@acme.example --org acme --admin --data "$1" >"$3/alice"
                "$2" user add bob@acme.example --org acme --data "$1" >"$3/bob"
                "$2" user add carol@acme.example --org acme --data "$1" >"$3/carol"
                exec "$2" serve --listen 127.0.0.1:0 --data "$1" --log-level info --disk-reserve "$4" --sweep-interval 1
                """
            let relay = Tools.binDir.appendingPathComponent("vfs-relay").path
            server = try BackgroundServer("/usr/bin/unshare", ["-rm", "sh", "-c", script, "sh", data, relay, codes.path, reserve],
                                          timeout: 60, grace: 30)
            client = RelayClient(port: server.port)
        }

        func code(_ user: String) throws -> String {
            try String(contentsOf: codes.appendingPathComponent(user), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// The data folder as the relay sees it (its tmpfs).
        var inside: String { "/proc/\(server.process.processIdentifier)/root\(data)" }

        /// Bytes free on the relay's tmpfs.
        func available() throws -> Int64 {
            var info = statvfs()
            guard statvfs(inside, &info) == 0 else { throw HarnessError("statvfs \(inside): \(String(cString: strerror(errno)))") }
            return Int64(info.f_bavail) * Int64(info.f_frsize)
        }

        /// Writes `count` bytes into a file on the relay's disk (all that fits when nil).
        func fill(_ name: String, _ count: Int64?) throws {
            let fd = open("\(inside)/\(name)", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard fd >= 0 else { throw HarnessError("cannot create the filler: \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            let chunk = [UInt8](repeating: 0x5A, count: 1 << 16)
            var left = count ?? .max
            while left > 0 {
                let n = chunk.withUnsafeBytes { write(fd, $0.baseAddress!, Int(min(Int64(chunk.count), left))) }
                if n < 0 {
                    if count == nil, errno == ENOSPC { return }
                    throw HarnessError("filler: \(String(cString: strerror(errno)))")
                }
                left -= Int64(n)
            }
        }

        func remove(_ name: String) { unlink("\(inside)/\(name)") }
    }

    static func createUpload(_ relay: SmallDiskRelay, length: Int?, token: String) throws -> HTTPAnswer {
        let headers = RelayClient.tus.merging(length.map { ["Upload-Length": "\($0)"] } ?? ["Upload-Defer-Length": "1"]) { $1 }
        return try relay.client.request("POST", "/v1/uploads", token: token, headers: headers)
    }

    @Test("uploads stop at --disk-reserve with 507 and Retry-After; others still enrol; a delete frees room; a disk filled by something else answers 507, not 500, and recovers")
    func reserve() throws {
        let relay = try SmallDiskRelay(reserve: "8M")
        defer { relay.server.stop() }
        let alice = try relay.client.enroll(code: try relay.code("alice"), name: "laptop")

        // 20 MiB fits above the 8 MiB reserve of a 40 MiB disk.
        let big = try relay.client.upload(Array(repeating: 0x41, count: 20 << 20), token: alice.token)
        // 16 MiB more would reach into the reserve: refused before a byte is stored.
        let refused = try Self.createUpload(relay, length: 16 << 20, token: alice.token)
        #expect(refused.status == 507, "\(refused.status) \(refused.text)")
        #expect(refused.text.contains("\"error\":\"insufficient_storage\""), "\(refused.text)")
        #expect(refused.headers["retry-after"] == "300")

        // Something else fills the disk down to 1 MiB over the reserve... and past it.
        let unfinished = try #require(Self.createUpload(relay, length: 4 << 20, token: alice.token).headers["location"])
        try relay.fill("filler", try relay.available() - (7 << 20))
        #expect(try relay.available() < 8 << 20)
        let patch = try relay.client.request("PATCH", unfinished, token: alice.token, body: Array(repeating: 1, count: 65536),
                                             headers: RelayClient.tus.merging(["Content-Type": "application/offset+octet-stream", "Upload-Offset": "0"]) { $1 })
        #expect(patch.status == 507, "\(patch.status) \(patch.text)")
        #expect(try Self.createUpload(relay, length: nil, token: alice.token).status == 507, "a deferred upload is refused too")
        // Everyone else still enrols: the database has the reserve to write in.
        let bob = try relay.client.enroll(code: try relay.code("bob"), name: "bob-laptop")
        #expect(bob.token.count > 20)

        // Deleting the big upload gives its room back.
        let deleted = try relay.client.request("DELETE", "/v1/uploads/\(big)", token: alice.token, headers: RelayClient.tus)
        #expect(deleted.status == 204, "\(deleted.status) \(deleted.text)")
        #expect(try Self.createUpload(relay, length: 4 << 20, token: alice.token).status == 201)

        // Now fill it completely, as another program might: every answer is 2xx or 507, never 500.
        try relay.fill("filler2", nil)
        let carol = try relay.client.request("POST", "/v1/enroll", json: #"{"code":"\#(try relay.code("carol"))","name":"carol","platform":"linux","recipient":"age1carol"}"#)
        #expect(carol.status == 201 || carol.status == 507, "\(carol.status) \(carol.text)")
        let patchFull = try relay.client.request("PATCH", unfinished, token: alice.token, body: Array(repeating: 1, count: 65536),
                                                 headers: RelayClient.tus.merging(["Content-Type": "application/offset+octet-stream", "Upload-Offset": "0"]) { $1 })
        #expect(patchFull.status == 507, "\(patchFull.status) \(patchFull.text)")
        let deleteFull = try relay.client.request("DELETE", unfinished, token: alice.token, headers: RelayClient.tus)
        #expect(deleteFull.status == 204, "a delete works on a full disk: \(deleteFull.status) \(deleteFull.text) \(relay.server.standardError.suffix(1500))")
        #expect(try relay.client.request("GET", "/v1/health").status == 200)
        #expect(!FileManager.default.fileExists(atPath: "\(relay.inside)/ballast"), "the ballast was given up for the delete")

        // Space comes back: everything works again, without a restart.
        relay.remove("filler")
        relay.remove("filler2")
        let again = try relay.client.upload(Array(repeating: 0x42, count: 1 << 20), token: alice.token)
        #expect(!again.isEmpty)
        // The sweep makes the ballast again once there is room.
        let deadline = Date().addingTimeInterval(60)
        var size = 0
        while Date() < deadline {
            size = ((try? FileManager.default.attributesOfItem(atPath: "\(relay.inside)/ballast"))?[.size] as? Int) ?? 0
            if size == 4 << 20 { break }
            usleep(100_000)
        }
        #expect(size == 4 << 20, "the ballast is back")
        #expect(relay.server.isRunning)
        #expect(!relay.server.standardError.contains(" 500 "), "\(relay.server.standardError.suffix(2000))")
    }
}
