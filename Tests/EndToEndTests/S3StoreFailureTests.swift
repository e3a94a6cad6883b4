import Foundation
import Testing
import VFSCore
import VFSTestSupport

/// A relay whose S3 store hangs or goes down after `serve` checked it (Tests/tools/fake-s3.py
/// in front of the RADOS Gateway, or alone): the relay answers 503 with Retry-After in
/// time, and the clients say its storage is unavailable and exit 75 (issue 43, items 11 and 12).
@Suite("vfs-relay with an S3 store that hangs or is down", .serialized)
struct S3StoreFailureTests {
    /// A credentials file as the AWS tools write it.
    static func credentials(in scratch: TestFolder, key: String = "AKIDFAKE", secret: String = "fake-secret") throws -> String {
        try scratch.write("s3-credentials", Data("[default]\naws_access_key_id = \(key)\naws_secret_access_key = \(secret)\n".utf8))
    }

    @Test("a hung S3 store (takes the connection, never answers): a PATCH on a relay with the default settings is answered 503 unavailable with Retry-After before the 30 s idle timeout would cut it, nothing logged as a 500; the offset stays")
    func hungStorePatch() throws {
        let s3 = try FakeS3(.hang)
        let scratch = try TestFolder("s3-hung")
        let data = scratch.url.appendingPathComponent("data")
        let admin = RelayAdmin(data: data)
        let code = try admin.addUser("alice@acme.example", org: "acme")
        let relay = try RelayProcess(data: data, arguments: [
            "--blobs", "s3://vfs-test/relay?endpoint=http://127.0.0.1:\(s3.port)&region=us-east-1",
            "--s3-credentials", try Self.credentials(in: scratch),
        ])
        defer { relay.stop() }
        // The client waits up to 120 s for each answer: far past the relay's idle timeout.
        let client = RelayClient(port: relay.port)
        let laptop = try client.enroll(code: code, name: "laptop")
        let location = try client.createUpload(length: 1000, token: laptop.token)
        let patched = try client.patch(location, token: laptop.token, offset: 0, Array(repeating: 7, count: 1000))
        #expect(patched.status == 503, "\(patched.status) \(patched.text)")
        #expect(patched.headers["retry-after"] == "30")
        #expect(patched.text.contains(#""error":"unavailable""#), "\(patched.text)")
        #expect(try client.offset(location, token: laptop.token) == 0)

        // A body longer than a part (8 MiB), as a push sends it: the part's upload hangs while
        // the body still streams in. Answered 503 with Retry-After, not cut by the idle timeout.
        let length = 9 << 20
        let big = try client.createUpload(length: length, token: laptop.token)
        let file = try scratch.write("big.bin", testBytes(length, seed: 11))
        let answer = try Tools.run("curl", [
            "-sS", "--max-time", "300", "-o", scratch.path("answer.json"), "-D", scratch.path("headers.txt"), "-w", "%{http_code}",
            "-X", "PATCH", "-H", "Authorization: Bearer \(laptop.token)", "-H", "Tus-Resumable: 1.0.0", "-H", "Upload-Offset: 0",
            "-H", "Content-Type: application/offset+octet-stream", "--data-binary", "@\(file)", "http://127.0.0.1:\(relay.port)\(big)",
        ])
        #expect(answer.out == "503", "curl \(answer.status): \(answer.out) \(answer.stderr)")
        let headers = (try? String(contentsOfFile: scratch.path("headers.txt"), encoding: .utf8)) ?? ""
        #expect(headers.lowercased().contains("retry-after: 30\r\n"), "\(headers)")
        #expect(try client.offset(big, token: laptop.token) == 0)
        #expect(relay.stop() == 0)
        #expect(relay.stderrText.contains("PATCH /v1/uploads/") && relay.stderrText.contains(" 503"), "\(relay.stderrText)")
        #expect(!relay.stderrText.contains(" 500 "), "\(relay.stderrText)")
    }

    @Test("an S3 store that goes down: vfs-fetch, vfs-cloud get and vfs-push say the relay's storage is unavailable and exit 75, not 69 'is the relay running?'; once it is back the same fetch works")
    func storeDownClients() throws {
        let gateway = try RGWFixture.start()
        let bucket = try gateway.newBucket()
        let s3 = try FakeS3(upstream: try #require(URL(string: gateway.endpoint)?.port))
        let scratch = try TestFolder("s3-down")
        let credentials = try Self.credentials(in: scratch, key: gateway.accessKey, secret: gateway.secretKey)
        let fleet = try Fleet(relayArguments: [
            "--blobs", "s3://\(bucket)/relay?endpoint=http://127.0.0.1:\(s3.port)&region=\(gateway.region)", "--s3-credentials", credentials,
        ])
        let content = testBytes(300_000, seed: 43)
        let file = try scratch.write("report.bin", content)
        let pushed = try fleet.laptop.run("vfs-push", ["-d", "phone", file])
        #expect(pushed.status == 0, "\(pushed.stderr)")
        let id = pushed.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let put = try fleet.laptop.run("vfs-cloud", ["put", file, "/report.bin"])
        #expect(put.status == 0, "\(put.stderr)")

        s3.set(.down)
        let inbox = scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let runs = [
            ("vfs-fetch", try fleet.phone.run("vfs-fetch", [id, "-C", inbox])),
            ("vfs-cloud", try fleet.phone.run("vfs-cloud", ["get", "/report.bin", "-o", scratch.path("got.bin")])),
            ("vfs-push", try fleet.laptop.run("vfs-push", ["-d", "phone", try scratch.write("second.bin", testBytes(5000, seed: 44))])),
        ]
        for (tool, run) in runs {
            #expect(run.status == 75, "\(tool): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains("\(tool): error: the relay's storage is unavailable: "), "\(tool): \(run.stderr)")
            #expect(!run.stderr.contains("is the relay running"), "\(tool): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: inbox + "/report.bin"))

        s3.set(.up)
        let fetched = try fleet.phone.run("vfs-fetch", [id, "-C", inbox])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: inbox + "/report.bin")) == content)
    }
}
