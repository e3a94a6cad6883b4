import Foundation
import Testing
import VFSTestSupport

/// vfs-relay with `--blobs s3://…` on Ceph's RADOS Gateway (one gateway per test
/// process, a bucket per test), driven through the binaries.
@Suite("vfs-relay with blobs in S3 (RADOS Gateway)", .serialized)
struct S3RelayTests {
    let gateway: RGWFixture
    let bucket: String
    let scratch: TestFolder
    let credentials: String

    init() throws {
        gateway = try RGWFixture.start()
        bucket = try gateway.newBucket()
        scratch = try TestFolder("s3relay")
        credentials = try scratch.write("s3-credentials", Data("""
            # as the AWS tools write it
            [default]
            aws_access_key_id = \(gateway.accessKey)
            aws_secret_access_key = \(gateway.secretKey)

            """.utf8))
    }

    var blobs: String { "s3://\(bucket)/relay?endpoint=\(gateway.endpoint)&region=\(gateway.region)" }

    /// Waits (bounded) until `condition` holds.
    func eventually(_ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(60)
        while try !condition() {
            guard Date() < deadline else { throw HarnessError("still not \(what) after 60 s") }
            usleep(50_000)
        }
    }

    @Test("push and fetch through a relay whose blobs are objects: no blob file on the relay's disk, the fetched file whole, the object deleted once fetched")
    func pushAndFetch() throws {
        let fleet = try Fleet(relayArguments: ["--blobs", blobs, "--s3-credentials", credentials])
        let content = testBytes(3 << 20, seed: 11)
        let file = try scratch.write("holiday.bin", content)
        let pushed = try fleet.laptop.run("vfs-push", ["-d", "phone", file])
        #expect(pushed.status == 0, "\(pushed.stderr)")
        let id = pushed.out.trimmingCharacters(in: .whitespacesAndNewlines)

        let objects = try gateway.objectKeys(bucket: bucket)
        #expect(objects.count == 1 && objects.allSatisfy { $0.hasPrefix("relay/blobs/") }, "\(objects)")
        #expect(fleet.storedFiles().isEmpty, "nothing but the database on the relay's disk: \(fleet.storedFiles())")

        let inbox = scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let fetched = try fleet.phone.run("vfs-fetch", [id, "-C", inbox])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: inbox + "/holiday.bin")) == content)
        // Delivered to its only target: the blob is released and its object deleted.
        try eventually("deleted from the bucket") { try gateway.objectKeys(bucket: bucket).isEmpty }
        #expect(fleet.storedFiles().isEmpty)
    }

    @Test("two relays on one PostgreSQL database and one bucket: a push through one, fetched through the other; no blob file on either relay's disk")
    func scaledOut() throws {
        let cluster = try PostgresCluster.start()
        let options = ["--database", try cluster.newDatabase(), "--blobs", blobs, "--s3-credentials", credentials]
        func admin(_ arguments: [String]) throws -> String {
            let run = try Tools.run("vfs-relay", arguments + options + ["--data", scratch.path("admin")])
            guard run.status == 0 else { throw HarnessError("vfs-relay \(arguments): \(run.stderr)") }
            return run.out.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        _ = try admin(["org", "add", "acme"])
        let first = try admin(["user", "add", "alice@acme.example", "--org", "acme"])
        let relayA = try RelayProcess(data: scratch.url.appendingPathComponent("a"), arguments: options)
        let relayB = try RelayProcess(data: scratch.url.appendingPathComponent("b"), arguments: options)
        defer {
            relayA.stop()
            relayB.stop()
        }
        let laptop = try Machine("laptop", in: scratch), phone = try Machine("phone", in: scratch)
        try laptop.enroll(port: relayA.port, code: first)
        try phone.enroll(port: relayB.port, code: try admin(["invite", "alice@acme.example"]))
        try laptop.approve(phone)  // the laptop's chain must hold the phone before it pushes to it

        let content = testBytes((20 << 20) + 5, seed: 12)
        let file = try scratch.write("video.bin", content)
        let pushed = try laptop.run("vfs-push", ["-d", "phone", file])
        #expect(pushed.status == 0, "\(pushed.stderr)")
        let id = pushed.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try gateway.objectKeys(bucket: bucket).count == 1)
        let inbox = scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let fetched = try phone.run("vfs-fetch", [id, "-C", inbox])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: inbox + "/video.bin")) == content)
        for relay in [relayA, relayB] {
            #expect(relayStoredFiles(in: relay.data).isEmpty, "\(relayStoredFiles(in: relay.data))")
        }
        try eventually("deleted from the bucket") { try gateway.objectKeys(bucket: bucket).isEmpty }
    }

    @Test("bad --blobs s3:// settings and credentials: one-line errors with their exit status, and no key on argv")
    func refusals() throws {
        let data = scratch.path("data")
        #expect(try Tools.run("vfs-relay", ["init", "--data", data]).status == 0)
        func gc(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
            try Tools.run("vfs-relay", ["gc", "--data", data] + arguments, environment: environment,
                          removing: ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"])
        }
        let noEndpoint = try gc(["--blobs", "s3://\(bucket)"])
        #expect(noEndpoint.status == 64)
        #expect(noEndpoint.stderr.hasPrefix("vfs-relay: error: invalid --blobs \"s3://\(bucket)\": endpoint=URL is needed"), "\(noEndpoint.stderr)")
        let noKeys = try gc(["--blobs", blobs])
        #expect(noKeys.status == 64)
        #expect(noKeys.stderr.contains("error: no S3 credentials") && noKeys.stderr.contains("hint: set AWS_ACCESS_KEY_ID"), "\(noKeys.stderr)")
        let missingFile = try gc(["--blobs", blobs, "--s3-credentials", scratch.path("absent")])
        #expect(missingFile.status == 66, "\(missingFile.stderr)")
        let empty = try scratch.write("empty-credentials", Data("[default]\n".utf8))
        #expect(try gc(["--blobs", blobs, "--s3-credentials", empty]).status == 65)
        #expect(try gc(["--blobs", scratch.path("folder"), "--s3-credentials", credentials]).status == 64)
        // Right keys from the environment: the sweep runs against the bucket.
        let swept = try gc(["--blobs", blobs], environment: ["AWS_ACCESS_KEY_ID": gateway.accessKey, "AWS_SECRET_ACCESS_KEY": gateway.secretKey])
        #expect(swept.status == 0, "\(swept.stderr)")
        // Wrong keys: the gateway refuses the listing and gc says so.
        let wrong = try gc(["--blobs", blobs], environment: ["AWS_ACCESS_KEY_ID": gateway.accessKey, "AWS_SECRET_ACCESS_KEY": "wrong"])
        #expect(wrong.status == 74)
        #expect(wrong.stderr.hasPrefix("vfs-relay: error: cannot sweep the blobs: cannot list the blobs in s3://\(bucket)/relay/: S3 answered 403 SignatureDoesNotMatch"),
                "\(wrong.stderr)")
        #expect(wrong.stderr.contains("vfs-relay: hint: check --blobs"), "\(wrong.stderr)")
    }
}
