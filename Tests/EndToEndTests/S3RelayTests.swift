import Foundation
import Testing
import VFSCore
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

    /// Options of relays on one new PostgreSQL database and the test's bucket.
    func sharedOptions() throws -> [String] {
        ["--database", try PostgresCluster.start().newDatabase(), "--blobs", blobs, "--s3-credentials", credentials]
    }

    /// An admin command on the shared database; its output.
    func admin(_ arguments: [String], _ options: [String]) throws -> String {
        let run = try Tools.run("vfs-relay", arguments + options + ["--data", scratch.path("admin")])
        guard run.status == 0 else { throw HarnessError("vfs-relay \(arguments): \(run.stderr)") }
        return run.out.trimmingCharacters(in: .whitespacesAndNewlines)
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

        // An open multipart upload can't be read back: no transfer streams from it (409, as
        // for any unfinished upload; vfs-push above made its transfer after the upload).
        let api = RelayClient(port: fleet.relay.port)
        let device = try api.enroll(code: try fleet.admin.invite("alice@acme.example"), name: "api")
        let location = try api.createUpload(length: 100, token: device.token)
        #expect(try api.patch(location, token: device.token, offset: 0, Array(content[0..<10])).status == 204)
        let upload = String(location.split(separator: "/").last!)
        let streaming = try api.request("POST", "/v1/transfers", token: device.token,
                                        json: #"{"upload":"\#(upload)","devices":["\#(fleet.phone.id)"],"streaming":true}"#)
        #expect(streaming.status == 409, "\(streaming.status) \(streaming.text)")
    }

    @Test("two relays on one PostgreSQL database and one bucket: a push through one, fetched through the other; no blob file on either relay's disk")
    func scaledOut() throws {
        let options = try sharedOptions()
        func admin(_ arguments: [String]) throws -> String { try self.admin(arguments, options) }
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

    static func hex(_ bytes: [UInt8]) -> String { SHA256.hash(bytes).map { String(format: "%02x", $0) }.joined() }

    /// Starts a PATCH of `location` from `offset` whose body is `total` bytes long, and sends the first `sent` of `content` after the offset.
    static func startPatch(port: Int, _ location: String, token: String, content: [UInt8], offset: Int, sending sent: Int) throws -> RawConnection {
        let patch = try RawConnection(port: port)
        try patch.sendHead("PATCH", location, headers: [
            "Authorization": "Bearer \(token)", "Tus-Resumable": "1.0.0", "Upload-Offset": "\(offset)",
            "Content-Type": "application/offset+octet-stream", "Content-Length": "\(content.count - offset)",
        ])
        try patch.send(Array(content[offset..<offset + sent]))
        return patch
    }

    /// What is in the bucket once an upload became a blob: one blob object, no upload object, no multipart upload open.
    func expectOnlyOneBlob() throws {
        let keys = try gateway.objectKeys(bucket: bucket)
        #expect(keys.count == 1 && keys.allSatisfy { $0.hasPrefix("relay/blobs/") }, "\(keys)")
        #expect(try gateway.multipartUploads(bucket: bucket).contains("<UploadId>") == false)
    }

    @Test("a relay killed (SIGKILL) mid-upload and restarted: the tus upload resumes after its last part; a tail kept over a restart; the object fetched intact (its SHA-256); nothing on the relay's disk")
    func killedMidUpload() throws {
        let data = scratch.url.appendingPathComponent("killed")
        let admin = RelayAdmin(data: data)
        let code = try admin.addUser("alice@acme.example", org: "acme")
        let arguments = ["--blobs", blobs, "--s3-credentials", credentials]
        var relay = try RelayProcess(data: data, arguments: arguments)
        defer { relay.stop() }
        let laptop = try RelayClient(port: relay.port).enroll(code: code, name: "laptop")
        let phone = try RelayClient(port: relay.port).enroll(code: try admin.invite("alice@acme.example"), name: "phone")
        let content = [UInt8](testBytes((20 << 20) + 5, seed: 13))
        let location = try RelayClient(port: relay.port).createUpload(length: content.count, token: laptop.token)
        let id = String(location.split(separator: "/").last!)

        // 12 MiB of the body, then SIGKILL once the first 8 MiB part is recorded.
        let patch = try Self.startPatch(port: relay.port, location, token: laptop.token, content: content, offset: 0, sending: 12 << 20)
        try eventually("the first part recorded") { try RelayClient(port: relay.port).offset(location, token: laptop.token) >= 8 << 20 }
        relay.crash()
        _ = patch
        let open = try gateway.multipartUploads(bucket: bucket)
        #expect(open.contains("<Key>relay/uploads/\(id)</Key>"), "\(open)")

        relay = try RelayProcess(data: data, arguments: arguments)
        var client = RelayClient(port: relay.port)
        // The part is kept; the bytes after it were only in the killed relay's memory.
        let offset = try client.offset(location, token: laptop.token)
        #expect(offset == 8 << 20)
        // 3 MiB more (a tail, less than a part), then a stop and a start: the tail object keeps them.
        let more = try client.patch(location, token: laptop.token, offset: offset, Array(content[offset..<offset + (3 << 20)]))
        #expect(more.status == 204, "\(more.text)")
        #expect(relay.stop() == 0)
        relay = try RelayProcess(data: data, arguments: arguments)
        client = RelayClient(port: relay.port)
        #expect(try client.offset(location, token: laptop.token) == 11 << 20)
        let rest = try client.patch(location, token: laptop.token, offset: 11 << 20, Array(content[(11 << 20)...]))
        #expect(rest.status == 204, "\(rest.text)")

        let transfer = try client.send(upload: id, to: [phone.id], token: laptop.token)
        try expectOnlyOneBlob()
        let fetched = try client.request("GET", "/v1/transfers/\(transfer)/content", token: phone.token)
        #expect(fetched.status == 200)
        #expect(fetched.headers["etag"] == "\"\(Self.hex(content))\"", "the SHA-256 the relay recorded is the content's")
        #expect(Self.hex(fetched.body) == Self.hex(content))
        #expect(relayStoredFiles(in: data).isEmpty, "\(relayStoredFiles(in: data))")
    }

    @Test("PostgreSQL + RGW: a PATCH through relay B continues an upload begun through relay A; B killed mid-PATCH, A finishes it; fetched whole through B's replacement")
    func continuedThroughAnotherRelay() throws {
        let options = try sharedOptions()
        func admin(_ arguments: [String]) throws -> String { try self.admin(arguments, options) }
        _ = try admin(["org", "add", "acme"])
        let code = try admin(["user", "add", "alice@acme.example", "--org", "acme"])
        let relayA = try RelayProcess(data: scratch.url.appendingPathComponent("a"), arguments: options)
        var relayB = try RelayProcess(data: scratch.url.appendingPathComponent("b"), arguments: options)
        defer {
            relayA.stop()
            relayB.stop()
        }
        let a = RelayClient(port: relayA.port)
        let laptop = try a.enroll(code: code, name: "laptop")
        let phone = try RelayClient(port: relayB.port).enroll(code: try admin(["invite", "alice@acme.example"]), name: "phone")
        let content = [UInt8](testBytes((21 << 20) + 3, seed: 14))
        let location = try a.createUpload(length: content.count, token: laptop.token)
        let id = String(location.split(separator: "/").last!)

        // A: 3 MiB (a tail object). B: from there, a PATCH that gets 7 MiB more before B is killed.
        #expect(try a.patch(location, token: laptop.token, offset: 0, Array(content[..<(3 << 20)])).status == 204)
        let patch = try Self.startPatch(port: relayB.port, location, token: laptop.token, content: content, offset: 3 << 20, sending: 7 << 20)
        // A sees the part B cut (A's tail and B's first 5 MiB) in the database.
        try eventually("B's part recorded") { try a.offset(location, token: laptop.token) == 8 << 20 }
        relayB.crash()
        _ = patch
        #expect(try a.offset(location, token: laptop.token) == 8 << 20)

        // A takes the rest, in two PATCHes.
        #expect(try a.patch(location, token: laptop.token, offset: 8 << 20, Array(content[(8 << 20)..<(17 << 20)])).status == 204)
        #expect(try a.patch(location, token: laptop.token, offset: 17 << 20, Array(content[(17 << 20)...])).status == 204)
        relayB = try RelayProcess(data: scratch.url.appendingPathComponent("b"), arguments: options)
        let b = RelayClient(port: relayB.port)
        let transfer = try b.send(upload: id, to: [phone.id], token: laptop.token)
        try expectOnlyOneBlob()
        let fetched = try b.request("GET", "/v1/transfers/\(transfer)/content", token: phone.token)
        #expect(fetched.status == 200)
        #expect(fetched.headers["etag"] == "\"\(Self.hex(content))\"")
        #expect(Self.hex(fetched.body) == Self.hex(content))
        for relay in ["a", "b"] {
            #expect(relayStoredFiles(in: scratch.url.appendingPathComponent(relay)).isEmpty)
        }
    }

    @Test("copy-blobs switches a relay from its folder to the bucket: every referenced blob uploaded (one over a part: multipart) and its size checked, a second run copies nothing, the relay on the bucket serves the old transfer and cloud file; bad uses refused")
    func copyBlobsIntoTheBucket() throws {
        let data = scratch.url.appendingPathComponent("switched")
        let admin = RelayAdmin(data: data)
        let code = try admin.addUser("alice@acme.example", org: "acme")
        var relay = try RelayProcess(data: data)
        defer { relay.stop() }
        var client = RelayClient(port: relay.port)
        let laptop = try client.enroll(code: code, name: "laptop")
        let phone = try client.enroll(code: try admin.invite("alice@acme.example"), name: "phone")
        // More than one 16 MiB part, so it goes up as a multipart upload.
        let sent = [UInt8](testBytes((17 << 20) + 3, seed: 21)), kept = [UInt8](testBytes(1000, seed: 22))
        let transfer = try client.send(upload: try client.upload(sent, token: laptop.token), to: [phone.id], token: laptop.token)
        let put = try client.request("PUT", "/v1/cloud/notes.age", token: laptop.token,
                                     json: #"{"upload":"\#(try client.upload(kept, token: laptop.token))"}"#)
        #expect(put.status == 201)
        #expect(relay.stop() == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("blobs").path).sorted()
        #expect(files.count == 2)

        let copy = ["copy-blobs", "--from", data.path, "--data", data.path, "--blobs", blobs, "--s3-credentials", credentials]
        let first = try Tools.run("vfs-relay", copy)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.out == "copied 2 (\(sent.count + kept.count) bytes)\npresent 0\n")
        #expect(try gateway.objectKeys(bucket: bucket) == files.map { "relay/blobs/\($0)" })
        #expect(try gateway.multipartUploads(bucket: bucket).contains("<UploadId>") == false)
        let again = try Tools.run("vfs-relay", copy)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.out == "copied 0 (0 bytes)\npresent 2\n")

        // Refused: no bucket to copy into (64); a --from without blobs/ (66).
        let noBucket = try Tools.run("vfs-relay", ["copy-blobs", "--from", data.path, "--data", data.path])
        #expect(noBucket.status == 64 && noBucket.stderr.hasPrefix("vfs-relay: error: copy-blobs needs the bucket"), "\(noBucket.stderr)")
        let noFolder = try Tools.run("vfs-relay", ["copy-blobs", "--from", scratch.path("nowhere"), "--data", data.path, "--blobs", blobs,
                                                   "--s3-credentials", credentials])
        #expect(noFolder.status == 66 && noFolder.stderr.hasPrefix("vfs-relay: error: no blobs folder in"), "\(noFolder.stderr)")

        // The relay on the bucket: the folder's files are not read any more.
        try FileManager.default.removeItem(at: data.appendingPathComponent("blobs"))
        relay = try RelayProcess(data: data, arguments: ["--blobs", blobs, "--s3-credentials", credentials])
        client = RelayClient(port: relay.port)
        let fetched = try client.request("GET", "/v1/transfers/\(transfer)/content", token: phone.token)
        #expect(fetched.status == 200)
        #expect(fetched.body == sent)
        let file = try client.request("GET", "/v1/cloud/notes.age", token: laptop.token)
        #expect(file.status == 200)
        #expect(file.body == kept)
    }

    @Test("serve checks the bucket before it listens: unreachable 69, a refused key 77, no such bucket 66, each one line with a hint; a good one serves")
    func serveChecksTheBucket() throws {
        let data = scratch.path("checked")
        #expect(try Tools.run("vfs-relay", ["init", "--data", data]).status == 0)
        // A bounded run: a serve that passed the check would listen until killed.
        func serve(_ location: String, secret: String = gateway.secretKey) throws -> Run {
            try Tools.run("timeout", ["60", Tools.binDir.appendingPathComponent("vfs-relay").path, "serve", "--listen", "127.0.0.1:0",
                                      "--data", data, "--blobs", location],
                          environment: ["AWS_ACCESS_KEY_ID": gateway.accessKey, "AWS_SECRET_ACCESS_KEY": secret], removing: ["AWS_SESSION_TOKEN"])
        }
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let closed = refusing.port
        let unreachable = try serve("s3://\(bucket)?endpoint=http://127.0.0.1:\(closed)&region=\(gateway.region)")
        #expect(unreachable.status == 69, "\(unreachable.stderr)")
        #expect(unreachable.stderr.hasPrefix("vfs-relay: error: cannot reach the S3 store s3://\(bucket)/ at http://127.0.0.1:\(closed)"),
                "\(unreachable.stderr)")
        #expect(unreachable.stderr.contains("vfs-relay: hint: check endpoint="))
        #expect(!unreachable.out.contains("listening"))
        let denied = try serve(blobs, secret: "wrong")
        #expect(denied.status == 77, "\(denied.stderr)")
        #expect(denied.stderr.hasPrefix("vfs-relay: error: the S3 store refused the key for s3://\(bucket)/relay/ at \(gateway.endpoint): SignatureDoesNotMatch"),
                "\(denied.stderr)")
        #expect(!denied.stderr.contains("wrong"), "the secret is never shown")
        let absent = try serve("s3://no-such-\(bucket)?endpoint=\(gateway.endpoint)&region=\(gateway.region)")
        #expect(absent.status == 66, "\(absent.stderr)")
        #expect(absent.stderr.hasPrefix("vfs-relay: error: no bucket \"no-such-\(bucket)\" in the S3 store at \(gateway.endpoint)"), "\(absent.stderr)")
        #expect(absent.stderr.contains("vfs-relay: hint: create the bucket first"))
        for run in [unreachable, denied, absent] {
            #expect(run.stderr.split(separator: "\n").filter { $0.contains("error:") }.count == 1, "\(run.stderr)")
        }
        // The right key and bucket: it listens.
        let relay = try RelayProcess(data: URL(fileURLWithPath: data), arguments: ["--blobs", blobs, "--s3-credentials", credentials])
        #expect(relay.isRunning)
        #expect(relay.stop() == 0)
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
        #expect(wrong.stderr.hasPrefix("vfs-relay: error: cannot sweep the blobs: cannot list the uploads in s3://\(bucket)/relay/: S3 answered 403 SignatureDoesNotMatch"),
                "\(wrong.stderr)")
        #expect(wrong.stderr.contains("vfs-relay: hint: check --blobs"), "\(wrong.stderr)")
    }
}
