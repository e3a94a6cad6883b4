import Foundation
import Testing
import VFSCore
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// vfs-cloud (and vfs-push --cloud) against a real relay on 127.0.0.1, port 0.
@Suite("vfs-cloud end to end", .serialized)
struct CloudToolsTests {
    func ok(_ run: Run, _ what: String = "") {
        #expect(run.status == 0, "\(what): \(run.stderr)")
    }

    func blobFiles(_ fleet: Fleet) -> [URL] {
        fleet.storedFiles().filter { $0.deletingLastPathComponent().lastPathComponent == "blobs" }
    }

    func names(_ run: Run) -> [String] { jsonArray(run).compactMap { $0["path"] as? String } }

    @Test("mkdir, put (files and trees), ls (-l, -R, --json), get (-o, -C, --stdout), mv, rm, du; clashes, moves into a descendant, exit codes")
    func commands() throws {
        let fleet = try Fleet(relayArguments: ["--quota", "\(3 << 20)"])
        let laptop = fleet.laptop, phone = fleet.phone
        let report = try fleet.scratch.write("report.pdf", testBytes(300_000, seed: 7))
        try FileManager.default.createDirectory(atPath: fleet.scratch.path("photos/2026"), withIntermediateDirectories: true)
        try fleet.scratch.write("photos/a.jpg", testBytes(70_000, seed: 1))
        try fleet.scratch.write("photos/2026/b.jpg", testBytes(10, seed: 2))
        try fleet.scratch.write("photos/2026/empty", Data())

        ok(try laptop.run("vfs-cloud", ["mkdir", "/docs"]))
        let exists = try laptop.run("vfs-cloud", ["mkdir", "/docs"])
        #expect(exists.status == 73)
        #expect(exists.stderr.hasPrefix("vfs-cloud: error: ") && exists.stderr.contains("already exists"))
        ok(try laptop.run("vfs-cloud", ["mkdir", "-p", "/docs/2026/q1", "/docs"]))
        #expect(try laptop.run("vfs-cloud", ["mkdir", "/none/x"]).status == 66)

        ok(try laptop.run("vfs-cloud", ["put", report, "/docs/2026/"]), "put")
        ok(try laptop.run("vfs-cloud", ["put", "-r", fleet.scratch.path("photos"), "/docs/2026/"]), "put -r")
        #expect(try laptop.run("vfs-cloud", ["put", fleet.scratch.path("photos"), "/docs/"]).status == 64)
        #expect(try laptop.run("vfs-cloud", ["put", fleet.scratch.path("nothing"), "/docs/"]).status == 66)
        // A folder cannot replace a file.
        #expect(try laptop.run("vfs-cloud", ["put", "-r", fleet.scratch.path("photos"), "/docs/2026/report.pdf"]).status == 73)

        let tree = try laptop.run("vfs-cloud", ["ls", "-R", "--json", "/docs"])
        ok(tree)
        #expect(names(tree) == ["/docs/2026", "/docs/2026/photos", "/docs/2026/photos/2026", "/docs/2026/photos/2026/b.jpg",
                                "/docs/2026/photos/2026/empty", "/docs/2026/photos/a.jpg", "/docs/2026/q1", "/docs/2026/report.pdf"])
        let reportEntry = jsonArray(tree).first { $0["path"] as? String == "/docs/2026/report.pdf" }
        #expect(reportEntry?["kind"] as? String == "file" && (reportEntry?["size"] as? Int ?? 0) > 300_000)
        #expect(try laptop.run("vfs-cloud", ["ls", "/docs/2026"]).out == "photos/\nq1/\nreport.pdf\n")
        let long = try laptop.run("vfs-cloud", ["ls", "-l", "/docs/2026/report.pdf"])
        #expect(long.out.hasPrefix("-\t") && long.out.hasSuffix("\treport.pdf\n"))
        #expect(try laptop.run("vfs-cloud", ["ls", "/nope"]).status == 66)
        // The relay holds ciphertext only.
        for blob in blobFiles(fleet) {
            #expect(try Data(contentsOf: blob).starts(with: Data("age-encryption.org/v1\n".utf8)))
        }

        // Another device of the user reads them, in all three ways.
        let out = fleet.scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        ok(try phone.run("vfs-cloud", ["get", "/docs/2026/report.pdf", "-o", out + "/r.pdf"]), "get -o")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/r.pdf")) == testBytes(300_000, seed: 7))
        ok(try phone.run("vfs-cloud", ["get", "/docs/2026/photos/a.jpg", "-C", out]), "get -C")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/a.jpg")) == testBytes(70_000, seed: 1))
        let streamed = try phone.run("vfs-cloud", ["get", "/docs/2026/photos/2026/b.jpg", "--stdout"])
        #expect(streamed.status == 0 && streamed.stdout == testBytes(10, seed: 2))
        let empty = try phone.run("vfs-cloud", ["get", "/docs/2026/photos/2026/empty", "--stdout"])
        #expect(empty.status == 0 && empty.stdout.isEmpty)
        #expect(try phone.run("vfs-cloud", ["get", "/docs/2026/missing.pdf", "-C", out]).status == 66)
        #expect(try phone.run("vfs-cloud", ["get", "/docs/2026", "-C", out]).status == 64)
        // Bob sees none of it.
        #expect(try fleet.desktop.run("vfs-cloud", ["get", "/docs/2026/report.pdf", "-C", out]).status == 66)
        #expect(try fleet.desktop.run("vfs-cloud", ["ls"]).out.isEmpty)

        // Moves: rename, into a folder, into its own descendant (refused), onto a name (73, then -f).
        ok(try laptop.run("vfs-cloud", ["mv", "/docs/2026/q1", "/docs/2026/photos/2026/q1"]))
        let intoItself = try laptop.run("vfs-cloud", ["mv", "/docs/2026", "/docs/2026/photos/2026/q1/x"])
        #expect(intoItself.status == 73)
        #expect(intoItself.stderr.contains("into itself"))
        ok(try laptop.run("vfs-cloud", ["mkdir", "/archive"]))
        ok(try laptop.run("vfs-cloud", ["mv", "/docs/2026", "/archive"]))
        #expect(try laptop.run("vfs-cloud", ["ls", "/archive"]).out == "2026/\n")
        ok(try laptop.run("vfs-cloud", ["put", report, "/archive/other.pdf"]))
        let clash = try laptop.run("vfs-cloud", ["mv", "/archive/other.pdf", "/archive/2026/report.pdf"])
        #expect(clash.status == 73)
        #expect(clash.stderr.contains("already exists"))
        ok(try laptop.run("vfs-cloud", ["mv", "-f", "/archive/other.pdf", "/archive/2026/report.pdf"]))
        #expect(try laptop.run("vfs-cloud", ["ls", "/archive"]).out == "2026/\n")
        #expect(try laptop.run("vfs-cloud", ["mv", "/archive/none", "/x"]).status == 66)

        // du, and the quota as a clear message.
        let du = try laptop.run("vfs-cloud", ["du", "--json"])
        ok(du)
        let usage = (try? JSONSerialization.jsonObject(with: du.stdout)) as? [String: Any] ?? [:]
        #expect(usage["files"] as? Int == 4 && usage["folders"] as? Int == 6 && usage["quota"] as? Int == 3 << 20)
        #expect((usage["bytes"] as? Int ?? 0) > 370_000)
        #expect(try laptop.run("vfs-cloud", ["du"]).out.contains("4 files in 6 folders"))
        let big = try fleet.scratch.write("big.bin", testBytes(3 << 20, seed: 3))
        let quota = try laptop.run("vfs-cloud", ["put", big, "/big.bin"])
        #expect(quota.status == 73)
        #expect(quota.stderr.contains("quota"), "\(quota.stderr)")

        // rm: a folder needs -r, and -f without a terminal. The removed files' versions keep
        // their blobs (issue 50): the four files' and that of the report mv -f replaced.
        #expect(blobFiles(fleet).count == 5)
        #expect(try laptop.run("vfs-cloud", ["rm", "/archive/2026"]).status == 64)
        let unconfirmed = try laptop.run("vfs-cloud", ["rm", "-r", "/archive/2026"])
        #expect(unconfirmed.status == 64 && unconfirmed.stderr.contains("-f"))
        ok(try laptop.run("vfs-cloud", ["rm", "/archive/2026/report.pdf"]))
        #expect(blobFiles(fleet).count == 5)
        #expect(try laptop.run("vfs-cloud", ["rm", "/archive/2026/report.pdf"]).status == 66)
        ok(try laptop.run("vfs-cloud", ["rm", "-f", "/archive/2026/report.pdf"]))
        ok(try laptop.run("vfs-cloud", ["rm", "-r", "-f", "/archive", "/docs"]))
        #expect(blobFiles(fleet).count == 5)
        #expect(jsonArray(try laptop.run("vfs-cloud", ["trash", "--json"])).count == 5)
        #expect(try laptop.run("vfs-cloud", ["ls", "-R", "/"]).out.isEmpty)
    }

    /// The bytes after the age header (the payload) of an age file.
    func payload(_ file: Data) -> Data {
        let marker = Data("\n--- ".utf8)
        guard let range = file.range(of: marker) else { return Data() }
        return file[(range.lowerBound + 49)...]
    }

    @Test("rekey: a device enrolled later reads after a rekey, the payload on the relay is unchanged; a revoked device's key is dropped")
    func rekey() throws {
        let fleet = try Fleet()
        let laptop = fleet.laptop
        let content = testBytes(200_000, seed: 9)
        let file = try fleet.scratch.write("notes.bin", content)
        ok(try laptop.run("vfs-cloud", ["put", file, "/notes.bin"]))
        let out = fleet.scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)

        let watch = try Machine("watch", in: fleet.scratch)
        try watch.enroll(port: fleet.relay.port, code: try fleet.admin.invite("alice@acme.example"))
        let before = try laptop.run("vfs-cloud", ["get", "/notes.bin", "-C", out])
        ok(before)
        let unreadable = try watch.run("vfs-cloud", ["get", "/notes.bin", "-o", out + "/w.bin"])
        #expect(unreadable.status == 66)
        #expect(unreadable.stderr.contains("vfs-cloud rekey"))
        #expect(!FileManager.default.fileExists(atPath: out + "/w.bin"))

        // Only a device the user's devices approved is rekeyed to.
        try laptop.approve(watch)
        let oldBlob = try Data(contentsOf: try #require(blobFiles(fleet).first))
        let phoneKey = fleet.scratch.path("phone-key.txt")
        try fleet.phone.exportIdentity(to: phoneKey)
        ok(try fleet.phone.run("vfs-cloud", ["rekey"]), "rekey from the phone")
        ok(try watch.run("vfs-cloud", ["get", "/notes.bin", "-o", out + "/w.bin"]), "the new device reads")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/w.bin")) == content)
        let newBlob = try Data(contentsOf: try #require(blobFiles(fleet).first))
        #expect(blobFiles(fleet).count == 1)
        #expect(newBlob != oldBlob)
        #expect(payload(newBlob) == payload(oldBlob) && payload(oldBlob).count > 200_000)
        #expect(fleet.relay.stderrText.components(separatedBy: "PATCH /v1/uploads").count == 2, "one upload only")

        // Revoke the phone and rekey: its key no longer opens the file (its old copy still would).
        ok(try laptop.run("vfs-device", ["revoke", "phone"]))
        ok(try laptop.run("vfs-cloud", ["rekey"]))
        let rekeyed = try #require(blobFiles(fleet).first)
        #expect(payload(try Data(contentsOf: rekeyed)) == payload(oldBlob))
        let denied = try Tools.run("vfs-decrypt", ["-i", phoneKey, "-o", out + "/p.bin", rekeyed.path])
        #expect(denied.status != 0)
        let oldCopy = try fleet.scratch.write("old.age", oldBlob)
        ok(try Tools.run("vfs-decrypt", ["-i", phoneKey, "-o", out + "/p.bin", oldCopy]))
        ok(try watch.run("vfs-cloud", ["get", "/notes.bin", "-o", out + "/w2.bin"]))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/w2.bin")) == content)
        #expect(try fleet.phone.run("vfs-cloud", ["get", "/notes.bin", "--stdout"]).status == 77)
    }

    @Test("resume: a put killed halfway continues from the relay's offset; a get killed halfway resumes with Range; byte-identical")
    func resume() throws {
        let fleet = try Fleet()
        let content = testBytes(6 << 20, seed: 42)
        let big = try fleet.scratch.write("big.bin", content)
        var proxy: SlowProxy? = try SlowProxy(to: fleet.relay.port, bytesPerSecond: 1 << 20)
        let direct = "http://127.0.0.1:\(fleet.relay.port)"
        fleet.laptop.relayURL = "http://127.0.0.1:\(proxy!.port)"
        let put = try fleet.laptop.start("vfs-cloud", ["put", big, "/big.bin"], log: fleet.scratch.url.appendingPathComponent("put.log"))
        #expect(eventually { fleet.storedFiles().contains { (try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) ?? 0 > 1 << 20 } })
        kill(put.processIdentifier, SIGKILL)
        put.waitUntilExit()
        proxy = nil
        let spools = try FileManager.default.contentsOfDirectory(atPath: fleet.laptop.path + "/cloud-outgoing")
        #expect(spools.count == 1)
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: fleet.laptop.path + "/cloud-outgoing/\(spools[0])/put.json"))) as? [String: Any]
        let location = state?["location"] as? String ?? ""
        let token = String(decoding: try fleet.laptop.keychainEntries().first { $0.service == "vfs-relay" }!.secret.bytes, as: UTF8.self)
        var offset = 0
        #expect(eventually { offset = (try? RelayClient(port: fleet.relay.port).offset(location, token: token)) ?? 0; return offset > 0 })
        #expect(offset > 0 && offset < content.count)
        #expect(try fleet.laptop.run("vfs-cloud", ["ls"]).out.isEmpty)

        fleet.laptop.relayURL = direct
        ok(try fleet.laptop.run("vfs-cloud", ["put", big, "/big.bin"]), "put again")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fleet.laptop.path + "/cloud-outgoing").isEmpty)
        #expect(fleet.relay.stderrText.components(separatedBy: "POST /v1/uploads ").count == 2, "one upload, resumed")

        proxy = try SlowProxy(to: fleet.relay.port, bytesPerSecond: 1 << 20)
        fleet.phone.relayURL = "http://127.0.0.1:\(proxy!.port)"
        let out = fleet.scratch.path("out.bin")
        let get = try fleet.phone.start("vfs-cloud", ["get", "/big.bin", "-o", out], log: fleet.scratch.url.appendingPathComponent("get.log"))
        let incoming = fleet.phone.path + "/cloud-incoming"
        func partialSize() -> Int {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: incoming)) ?? []
            return names.compactMap { try? FileManager.default.attributesOfItem(atPath: incoming + "/" + $0)[.size] as? Int }.max() ?? 0
        }
        #expect(eventually { partialSize() > 1 << 20 })
        kill(get.processIdentifier, SIGKILL)
        get.waitUntilExit()
        proxy = nil
        #expect(partialSize() > 0 && partialSize() < content.count)
        #expect(!FileManager.default.fileExists(atPath: out))
        fleet.phone.relayURL = direct
        ok(try fleet.phone.run("vfs-cloud", ["get", "/big.bin", "-o", out]), "get again")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == content)
        #expect(fleet.relay.stderrText.contains("GET /v1/cloud/big.bin 206"))
        #expect(partialSize() == 0)
    }

    @Test("get --stdout decrypts while it downloads: a chunk tampered with in the middle fails (65) after the authenticated chunks before it")
    func tamperedStream() throws {
        let fleet = try Fleet()
        // Larger than the batches age decrypts ahead, so the bad chunk is met before the
        // end of the download (where the SHA-256 would fail the whole).
        let content = testBytes(24 << 20, seed: 11)
        ok(try fleet.laptop.run("vfs-cloud", ["put", try fleet.scratch.write("t.bin", content), "/t.bin"]), "put")
        let blobs = blobFiles(fleet)
        #expect(blobs.count == 1)
        let blob = try #require(blobs.first)
        var bytes = try Data(contentsOf: blob)
        // The payload starts after the header's MAC line and the 16-byte nonce.
        let macLine = try #require(bytes.range(of: Data("\n--- ".utf8)))
        let headerEnd = try #require(bytes[macLine.upperBound...].firstIndex(of: 0x0A)) + 1
        let payload = headerEnd + 16
        let tampered = bytes.count / 3
        bytes[tampered] ^= 0x01
        try bytes.write(to: blob)
        let goodChunks = (tampered - payload) / (64 * 1024 + 16)

        let got = try fleet.phone.run("vfs-cloud", ["get", "/t.bin", "--stdout"])
        #expect(got.status == 65, "\(got.stderr)")
        #expect(got.stderr.hasPrefix("vfs-cloud: error: "))
        // What reached the pipe is exactly the authenticated chunks before the bad one.
        #expect(goodChunks > 0)
        #expect(got.stdout.count == goodChunks * 64 * 1024)
        #expect(got.stdout == content.prefix(got.stdout.count))
        // Nothing is kept to resume from: those bytes are not authentic.
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: fleet.phone.path + "/cloud-incoming")) ?? []).isEmpty)
    }

    @Test("vfs-push --cloud: one upload, one blob shared by the transfer and the cloud file; every device of the user reads the cloud copy")
    func pushCloud() throws {
        let fleet = try Fleet()
        let memo = try fleet.scratch.write("memo.txt", "kept and sent")
        ok(try fleet.laptop.run("vfs-cloud", ["mkdir", "/backup"]))
        let pushed = try fleet.laptop.run("vfs-push", ["-d", "phone", "--cloud", "/backup/memo.vfs", memo])
        ok(pushed, "push --cloud")
        #expect(blobFiles(fleet).count == 1)
        #expect(fleet.relay.stderrText.components(separatedBy: "POST /v1/uploads ").count == 2)
        let listing = try fleet.laptop.run("vfs-cloud", ["ls", "-R", "--json", "/backup"])
        #expect(names(listing) == ["/backup/memo.vfs"])
        // The phone fetches the transfer; the tablet (not a target) reads the cloud copy.
        let inbox = fleet.scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        ok(try fleet.phone.run("vfs-fetch", ["--all", "-C", inbox]))
        #expect(try String(contentsOfFile: inbox + "/memo.txt", encoding: .utf8) == "kept and sent")
        #expect(blobFiles(fleet).count == 1)
        let bundle = fleet.scratch.path("memo.vfs")
        ok(try fleet.tablet.run("vfs-cloud", ["get", "--raw", "/backup/memo.vfs", "-o", bundle]))
        let unwrapped = fleet.scratch.path("unwrapped")
        try FileManager.default.createDirectory(atPath: unwrapped, withIntermediateDirectories: true)
        ok(try fleet.tablet.run("vfs-unwrap", ["-K", "vfs-device", "-C", unwrapped, bundle]), "unwrap on the tablet")
        #expect(try String(contentsOfFile: unwrapped + "/memo.txt", encoding: .utf8) == "kept and sent")
        ok(try fleet.laptop.run("vfs-cloud", ["rm", "/backup/memo.vfs"]))
        // Its version keeps the blob (issue 50).
        #expect(blobFiles(fleet).count == 1)
        // A missing cloud folder: the transfer goes, the copy is refused with a clear message.
        let missing = try fleet.laptop.run("vfs-push", ["-d", "phone", "--cloud", "/none/memo.vfs", memo])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("was sent, but the cloud copy"))
    }
}
