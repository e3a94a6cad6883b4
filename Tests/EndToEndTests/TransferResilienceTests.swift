import Foundation
import Testing
import VFSCore
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The transfer tools when things go wrong: policy, a lying relay, interruptions,
/// a watcher across disconnections and a revoke, and interop with age and bsdtar.
@Suite("transfer tools: policy, pinning, resume, watch, interop", .serialized)
struct TransferResilienceTests {
    func pushed(_ run: Run) -> String {
        #expect(run.status == 0, "\(run.stderr)")
        return run.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func inboxCount(_ machine: Machine) -> Int {
        (try? jsonArray(machine.run("vfs-fetch", ["--json"])).count) ?? -1
    }

    @Test("--for APP: the policy gate refuses (77, nothing written, still in the inbox) until the app is approved for the group and type")
    func policyGate() throws {
        let fleet = try Fleet()
        try fleet.scratch.write("memo.txt", Data("policy guarded".utf8))
        #expect(try fleet.laptop.run("vfs-device", ["group", "create", "home", "phone"]).status == 0)
        let id = pushed(try fleet.laptop.run("vfs-push", ["-g", "home", fleet.scratch.path("memo.txt")]))
        let inbox = fleet.scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        #expect(try fleet.phone.run("vfs-policy", ["add", "viewer", "--group", "work", "--type", "txt"]).status == 0)
        let denied = try fleet.phone.run("vfs-fetch", ["--all", "-C", inbox, "--for", "viewer"])
        #expect(denied.status == 77)
        #expect(denied.stderr.hasPrefix("vfs-fetch: error: "))
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox).isEmpty)
        #expect(inboxCount(fleet.phone) == 1)
        #expect(try fleet.phone.run("vfs-policy", ["update", "viewer", "--group", "home"]).status == 0)
        let allowed = try fleet.phone.run("vfs-fetch", [id, "-C", inbox, "--for", "viewer"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try String(contentsOfFile: inbox + "/memo.txt", encoding: .utf8) == "policy guarded")
        #expect(inboxCount(fleet.phone) == 0)
    }

    @Test("pinning: a device key swapped in the relay's database is refused (77, names vfs-device trust), and stays refused: the device chain holds the real key")
    func pinning() throws {
        let fleet = try Fleet()
        try fleet.scratch.write("a.txt", Data("pinned".utf8))
        _ = pushed(try fleet.laptop.run("vfs-push", ["-d", "phone", fleet.scratch.path("a.txt")]))
        let keygen = try Tools.run("vfs-keygen", ["-o", fleet.scratch.path("evil.key")])
        #expect(keygen.status == 0)
        let evil = try String(contentsOfFile: fleet.scratch.path("evil.key"), encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("# public key: ") }!.dropFirst("# public key: ".count)
        try fleet.sql("UPDATE devices SET recipient = '\(evil)' WHERE id = '\(fleet.phone.id)'")
        let refused = try fleet.laptop.run("vfs-push", ["-d", "phone", fleet.scratch.path("a.txt")])
        #expect(refused.status == 77)
        #expect(refused.stderr.contains("vfs-push: error: the relay reports a new key for device \"phone\""))
        #expect(refused.stderr.contains("vfs-push: hint:") && refused.stderr.contains("vfs-device trust phone"))
        #expect(refused.stdout.isEmpty)
        #expect(inboxCount(fleet.phone) == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fleet.laptop.path + "/outgoing").isEmpty)
        let list = jsonArray(try fleet.laptop.run("vfs-device", ["list", "--json"]))
        #expect(list.first { $0["name"] as? String == "phone" }?["status"] as? String == "key-changed")
        // Accepting the new key locally does not let it through: the user's device chain
        // holds the phone's real key, which the relay cannot change (issue 24).
        #expect(try fleet.laptop.run("vfs-device", ["trust", "phone"]).status == 0)
        let still = try fleet.laptop.run("vfs-push", ["-d", "phone", fleet.scratch.path("a.txt")])
        #expect(still.status == 77)
        #expect(still.stderr.contains("a new key for device \"phone\""))
        #expect(inboxCount(fleet.phone) == 1)
    }

    @Test("resume: a push killed halfway continues from the relay's offset; a fetch killed halfway resumes with Range; byte-identical")
    func resume() throws {
        let fleet = try Fleet()
        let content = testBytes(6 << 20, seed: 42)
        try fleet.scratch.write("big.bin", content)
        var proxy: SlowProxy? = try SlowProxy(to: fleet.relay.port, bytesPerSecond: 1 << 20)
        let direct = "http://127.0.0.1:\(fleet.relay.port)"

        fleet.laptop.relayURL = "http://127.0.0.1:\(proxy!.port)"
        let push = try fleet.laptop.start("vfs-push", ["-d", "phone", fleet.scratch.path("big.bin")],
                                          log: fleet.scratch.url.appendingPathComponent("push.log"))
        #expect(eventually { fleet.storedFiles().contains { (try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) ?? 0 > 1 << 20 } })
        kill(push.processIdentifier, SIGKILL)
        push.waitUntilExit()
        proxy = nil  // the connection drops with it
        let spools = try FileManager.default.contentsOfDirectory(atPath: fleet.laptop.path + "/outgoing")
        #expect(spools.count == 1)
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: fleet.laptop.path + "/outgoing/\(spools[0])/push.json"))) as? [String: Any]
        let location = state?["location"] as? String ?? ""
        let token = String(decoding: try fleet.laptop.keychainEntries().first { $0.service == "vfs-relay" }!.secret.bytes, as: UTF8.self)
        var offset = 0
        #expect(eventually { offset = (try? RelayClient(port: fleet.relay.port).offset(location, token: token)) ?? 0; return offset > 0 })
        #expect(offset > 0 && offset < content.count)

        fleet.laptop.relayURL = direct
        let resumed = try fleet.laptop.run("vfs-push", ["resume"])
        let id = pushed(resumed)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fleet.laptop.path + "/outgoing").isEmpty)
        #expect(try fleet.laptop.run("vfs-push", ["resume"]).stderr.contains("no interrupted push"))

        proxy = try SlowProxy(to: fleet.relay.port, bytesPerSecond: 1 << 20)
        fleet.phone.relayURL = "http://127.0.0.1:\(proxy!.port)"
        let inbox = fleet.scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let fetch = try fleet.phone.start("vfs-fetch", ["--all", "-C", inbox], log: fleet.scratch.url.appendingPathComponent("fetch.log"))
        let part = fleet.phone.path + "/incoming/\(id).age"
        // The unpacking runs while the download does: its staging folder is in the inbox
        // before the download is complete (nothing is placed until it is).
        #expect(eventually { ((try? FileManager.default.contentsOfDirectory(atPath: inbox)) ?? []).contains { $0.hasPrefix(".vfs-unwrap-") } })
        #expect(((try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int) ?? 0) < content.count)
        #expect(eventually { ((try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int) ?? 0) > 1 << 20 })
        kill(fetch.processIdentifier, SIGKILL)
        fetch.waitUntilExit()
        proxy = nil
        let partial = try FileManager.default.attributesOfItem(atPath: part)[.size] as? Int ?? 0
        #expect(partial > 0 && partial < content.count)
        #expect(!FileManager.default.fileExists(atPath: inbox + "/big.bin"))

        fleet.phone.relayURL = direct
        let finished = try fleet.phone.run("vfs-fetch", ["--all", "-C", inbox])
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: inbox + "/big.bin")) == content)
        #expect(fleet.relay.stderrText.contains("GET /v1/transfers/\(id)/content 206"))
        #expect(!FileManager.default.fileExists(atPath: part))
    }

    @Test("a push streams: from a pipe, a tus upload of deferred length declared by its last PATCH; byte-identical on arrival")
    func pipeDeferredLength() throws {
        let fleet = try Fleet()
        let content = testBytes(3 << 20, seed: 7)
        let pushed = try fleet.laptop.run("vfs-push", ["-d", "phone", "--name", "piped.bin", "-"], stdin: content)
        let id = self.pushed(pushed)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fleet.laptop.path + "/outgoing").isEmpty)
        // The relay's audit names each upload's creation: this one had no length.
        let audit = try Tools.run("sqlite3", [fleet.data.appendingPathComponent("relay.sqlite").path,
                                              "SELECT detail FROM audit WHERE action = 'upload.create'"])
        #expect(audit.out == "deferred length\n", "\(audit.stderr)")
        #expect(fleet.relay.stderrText.contains("PATCH /v1/uploads/"))
        let fetched = try fleet.phone.run("vfs-fetch", [id, "--stdout"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdout == content)
    }

    @Test("fetch --stdout writes nothing before all of it checked (the signature comes last), then all of it, acknowledged after; a tampered chunk fails (65) with nothing written, not acknowledged")
    func stdoutAfterChecks() throws {
        let fleet = try Fleet()
        let content = testBytes(6 << 20, seed: 5)
        let id = pushed(try fleet.laptop.run("vfs-push", ["-d", "phone", "--name", "s.bin", "-"], stdin: content))
        let proxy = try SlowProxy(to: fleet.relay.port, bytesPerSecond: 1 << 20)
        fleet.phone.relayURL = "http://127.0.0.1:\(proxy.port)"
        let log = fleet.scratch.url.appendingPathComponent("stdout.bin")
        let fetch = try fleet.phone.start("vfs-fetch", [id, "--stdout"], log: log)
        defer { if fetch.isRunning { kill(fetch.processIdentifier, SIGKILL) } }
        let part = fleet.phone.path + "/incoming/\(id).age"
        func size(_ path: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        // Part way through the download (1 MiB/s of 6 MiB), nothing has come out.
        #expect(eventually { size(part) >= 2 << 20 })
        #expect(size(part) < content.count && size(log.path) == 0, "plaintext came out before the whole was checked")
        #expect(inboxCount(fleet.phone) == 1)
        fetch.waitUntilExit()
        #expect(fetch.terminationStatus == 0)
        #expect(try Data(contentsOf: log) == content)
        #expect(inboxCount(fleet.phone) == 0)

        fleet.phone.relayURL = "http://127.0.0.1:\(fleet.relay.port)"
        let big = testBytes(24 << 20, seed: 6)
        let second = pushed(try fleet.laptop.run("vfs-push", ["-d", "phone", "--name", "t.bin", "-"], stdin: big))
        let blob = try #require(fleet.storedFiles().first { $0.deletingLastPathComponent().lastPathComponent == "blobs" })
        var bytes = try Data(contentsOf: blob)
        bytes[bytes.count / 3] ^= 0x01
        try bytes.write(to: blob)
        let tampered = try fleet.phone.run("vfs-fetch", [second, "--stdout"])
        #expect(tampered.status == 65, "\(tampered.stderr)")
        #expect(tampered.stdout.isEmpty)
        #expect(inboxCount(fleet.phone) == 1)
    }

    /// A spool left in the laptop's outgoing folder as `name`, with its `push.json` and
    /// bundle file; returns the outgoing folder.
    private func plantSpool(_ fleet: Fleet, _ name: String, record: String, bundle: Data) throws -> String {
        let outgoing = fleet.laptop.path + "/outgoing"
        let dir = outgoing + "/" + name
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data(record.utf8).write(to: URL(fileURLWithPath: dir + "/push.json"))
        try bundle.write(to: URL(fileURLWithPath: dir + "/bundle.age"))
        return outgoing
    }

    @Test("resume: a push killed before its bundle was sealed to the end cannot go on; resume removes it, saying so (1: nothing was corrupt), and delivers the others")
    func resumeUnsealed() throws {
        let fleet = try Fleet()
        let outgoing = try plantSpool(fleet, "1-unsealed", record: #"{"devices":["\#(fleet.phone.id)"],"names":["phone"]}"#,
                                      bundle: Data("age-encryption.org/v1\n-> X25519 half".utf8))
        let resumed = try fleet.laptop.run("vfs-push", ["resume"])
        #expect(resumed.status == 1)
        #expect(resumed.stderr.contains("vfs-push: error: push 1-unsealed: the push in"), "\(resumed.stderr)")
        #expect(resumed.stderr.contains("was interrupted before its bundle was sealed; dropped"))
        #expect(resumed.stderr.contains("vfs-push: error: 1 interrupted push not sent: 1 could never be sent and was dropped"))
        #expect(resumed.stdout.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outgoing).isEmpty)
        #expect(inboxCount(fleet.phone) == 0)
    }

    @Test("resume: a spool that keeps only its bundle's tail (the relay confirmed the rest) whose upload is gone cannot start again: removed (1), nothing sent")
    func resumeTailWithoutUpload() throws {
        let fleet = try Fleet()
        // A sparse bundle file: a hole where the confirmed bytes were, then the tail.
        var bytes = Data(count: 3000)
        for i in 1000..<3000 { bytes[i] = UInt8(truncatingIfNeeded: i) }
        let outgoing = try plantSpool(fleet, "1-tail", record: #"{"devices":["\#(fleet.phone.id)"],"names":["phone"],"length":3000,"base":1000}"#,
                                      bundle: bytes)
        let resumed = try fleet.laptop.run("vfs-push", ["resume"])
        #expect(resumed.status == 1)
        #expect(resumed.stderr.contains("no longer has the upload"), "\(resumed.stderr)")
        #expect(resumed.stdout.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outgoing).isEmpty)
        #expect(!fleet.relay.stderrText.contains("POST /v1/uploads "), "no new upload of a bundle with a hole")
        #expect(inboxCount(fleet.phone) == 0)
    }

    @Test("--watch: fetches live, after its own disconnection and across a relay restart; a revoke erases its credentials and inbox and it exits 77")
    func watch() throws {
        let fleet = try Fleet()
        let inbox = fleet.scratch.path("watched")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let hooks = fleet.scratch.path("hooks.log")
        let arguments = ["--watch", "-C", inbox, "--exec", "echo \"$VFS_FILE\" >> \(hooks)", "--wipe-on-logout"]
        var watcher = try fleet.phone.start("vfs-fetch", arguments, log: fleet.scratch.url.appendingPathComponent("watch1.log"))
        defer { if watcher.isRunning { kill(watcher.processIdentifier, SIGKILL) } }
        for name in ["live.txt", "offline.txt", "restart.txt"] { try fleet.scratch.write(name, Data("content of \(name)".utf8)) }

        _ = pushed(try fleet.laptop.run("vfs-push", ["-d", "phone", fleet.scratch.path("live.txt")]))
        #expect(eventually { FileManager.default.fileExists(atPath: inbox + "/live.txt") })
        #expect(eventually { ((try? String(contentsOfFile: hooks, encoding: .utf8)) ?? "").contains(inbox + "/live.txt") })

        // Pushed while the watcher is gone: fetched when it comes back.
        kill(watcher.processIdentifier, SIGTERM)
        watcher.waitUntilExit()
        _ = pushed(try fleet.laptop.run("vfs-push", ["-d", "phone", fleet.scratch.path("offline.txt")]))
        watcher = try fleet.phone.start("vfs-fetch", arguments, log: fleet.scratch.url.appendingPathComponent("watch2.log"))
        #expect(eventually { FileManager.default.fileExists(atPath: inbox + "/offline.txt") })

        // The relay restarts on the same port; the watcher reconnects.
        let port = fleet.relay.port
        #expect(fleet.relay.stop() == 0)
        fleet.relay = try RelayProcess(data: fleet.data, arguments: ["--listen", "127.0.0.1:\(port)"])
        #expect(fleet.relay.port == port)
        _ = pushed(try fleet.laptop.run("vfs-push", ["-d", "phone", fleet.scratch.path("restart.txt")]))
        #expect(eventually { FileManager.default.fileExists(atPath: inbox + "/restart.txt") })
        #expect(try String(contentsOfFile: inbox + "/restart.txt", encoding: .utf8) == "content of restart.txt")

        // Revoked: the watcher erases the token and identity, shreds the inbox, exits 77.
        #expect(try fleet.phone.keychainEntries().count == 3, "token, identity and signing key")
        #expect(try fleet.laptop.run("vfs-device", ["revoke", "phone"]).status == 0)
        #expect(eventually { !watcher.isRunning })
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 77)
        let log = try String(contentsOf: fleet.scratch.url.appendingPathComponent("watch2.log"), encoding: .utf8)
        #expect(log.contains("vfs-fetch: error: device \"phone\" was logged out by the relay; its token and identity were erased"))
        #expect(try fleet.phone.keychainEntries().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox).isEmpty)
    }

    @Test("--watch on a device revoked while it was offline: the relay's 'revoked' answer erases its credentials and inbox, exit 77; a wrong token is 77 and erases nothing")
    func revokedWhileOffline() throws {
        let fleet = try Fleet()
        let inbox = fleet.scratch.path("offline-inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        _ = try fleet.scratch.write("offline-inbox/kept.txt", Data("fetched earlier".utf8))
        #expect(try fleet.phone.keychainEntries().count == 3, "token, identity and signing key")
        #expect(try fleet.laptop.run("vfs-device", ["revoke", "phone"]).status == 0)

        let run = try fleet.phone.run("vfs-fetch", ["--watch", "-C", inbox, "--wipe-on-logout"])
        #expect(run.status == 77, "\(run.stderr)")
        #expect(run.stderr.contains("vfs-fetch: error: device \"phone\" was logged out by the relay; its token and identity were erased"))
        #expect(try fleet.phone.keychainEntries().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox).isEmpty)

        // A token the relay never issued is refused without a word about revocation.
        let tokenFile = try fleet.scratch.write("bogus-token", Data("not-a-token\n".utf8))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile)  // the relay's refusal, not the mode's
        let other = try fleet.tablet.run("vfs-device", ["status", "--token-file", tokenFile])
        #expect(other.status == 77)
        #expect(try fleet.tablet.keychainEntries().count == 3, "token, identity and signing key")
    }

    @Test("interop: a transfer's raw ciphertext opens with age -d | bsdtar -x using the identity exported from the keychain")
    func interop() throws {
        let fleet = try Fleet()
        try FileManager.default.createDirectory(atPath: fleet.scratch.path("docs/sub"), withIntermediateDirectories: true)
        try fleet.scratch.write("docs/sub/data.bin", testBytes(200_000, seed: 3))
        try fleet.scratch.write("docs/readme.md", Data("# hello".utf8))
        let id = pushed(try fleet.laptop.run("vfs-push", ["-d", "phone", "-r", fleet.scratch.path("docs")]))
        let raw = try fleet.phone.run("vfs-fetch", [id, "--raw"])
        #expect(raw.status == 0, "\(raw.stderr)")
        #expect(raw.stdout.starts(with: Data("age-encryption.org/v1\n".utf8)))
        try fleet.scratch.write("transfer.age", raw.stdout)
        try fleet.phone.exportIdentity(to: fleet.scratch.path("phone.key"))
        let out = fleet.scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let opened = try Tools.run("sh", ["-c", "age -d -i \(fleet.scratch.path("phone.key")) \(fleet.scratch.path("transfer.age")) | bsdtar -xf - -C \(out)"])
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/docs/sub/data.bin")) == testBytes(200_000, seed: 3))
        #expect(try String(contentsOfFile: out + "/docs/readme.md", encoding: .utf8) == "# hello")
        // As the docs say: bsdtar also writes the manifest and the digests, unless excluded.
        #expect(FileManager.default.fileExists(atPath: out + "/.vfs-manifest.json"))
        #expect(FileManager.default.fileExists(atPath: out + "/.vfs-digests.json"))
        let clean = fleet.scratch.path("clean")
        try FileManager.default.createDirectory(atPath: clean, withIntermediateDirectories: true)
        let excluded = try Tools.run("sh", ["-c", "age -d -i \(fleet.scratch.path("phone.key")) \(fleet.scratch.path("transfer.age")) | bsdtar -xf - -C \(clean) --exclude '.vfs-*.json'"])
        #expect(excluded.status == 0, "\(excluded.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: clean) == ["docs"])
        // --raw does not acknowledge.
        #expect(inboxCount(fleet.phone) == 1)
    }

    @Test("a push of random content seals a plain pax archive (no zstd) and fetches byte-identical; text, and random with a third of text, are compressed")
    func compressionFromSamples() throws {
        let fleet = try Fleet()
        try fleet.phone.exportIdentity(to: fleet.scratch.path("phone.key"))
        try fleet.scratch.write("random.bin", testBytes(6 << 20, seed: 51))
        try fleet.scratch.write("log.txt", base64Text(5 << 20, seed: 52))
        try FileManager.default.createDirectory(atPath: fleet.scratch.path("mixed"), withIntermediateDirectories: true)
        try fleet.scratch.write("mixed/big.bin", testBytes(6 << 20, seed: 53))
        for i in 0..<48 { try fleet.scratch.write("mixed/part\(i).txt", base64Text(64 << 10, seed: 60 + UInt64(i))) }
        /// Pushes `path`; whether the bundle's plaintext (the raw transfer opened with the phone's key) is zstd.
        func zstd(_ path: String, _ name: String) throws -> (id: String, zstd: Bool) {
            let id = pushed(try fleet.laptop.run("vfs-push", ["-d", "phone", "-r", fleet.scratch.path(path)]))
            let raw = try fleet.phone.run("vfs-fetch", [id, "--raw"])
            #expect(raw.status == 0, "\(raw.stderr)")
            try fleet.scratch.write(name + ".age", raw.stdout)
            let plain = try Tools.run("age", ["-d", "-i", fleet.scratch.path("phone.key"), fleet.scratch.path(name + ".age")])
            #expect(plain.status == 0, "\(plain.stderr)")
            let zstd = plain.stdout.prefix(4) == Data([0x28, 0xB5, 0x2F, 0xFD])
            if !zstd { #expect(String(decoding: plain.stdout[257..<262], as: UTF8.self) == "ustar", "a plain pax archive") }
            return (id, zstd)
        }
        let random = try zstd("random.bin", "random")
        #expect(!random.zstd)
        #expect(try zstd("log.txt", "log").zstd)
        #expect(try zstd("mixed", "mixed").zstd)

        // Fetched as any other: the digests and the signature checked, the bytes the same.
        let inbox = fleet.scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let fetched = try fleet.phone.run("vfs-fetch", [random.id, "-C", inbox])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: inbox + "/random.bin")) == testBytes(6 << 20, seed: 51))
    }

    @Test("on a terminal, a large push shows its progress (sealed and sent at once) and a fetch its download; -q silences them")
    func progress() throws {
        let fleet = try Fleet()
        let content = testBytes(17 << 20, seed: 9)
        try fleet.scratch.write("large.bin", content)
        try fleet.scratch.write("quiet.bin", content)
        let withTTY = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("tools/with-tty.py").path
        func onTerminal(_ machine: Machine, _ tool: String, _ arguments: [String]) throws -> Run {
            try machine.run("python3", [withTTY, "no-prompt", "x", "--", Tools.binDir.appendingPathComponent(tool).path] + arguments)
        }
        let push = try onTerminal(fleet.laptop, "vfs-push", ["-d", "phone", fleet.scratch.path("large.bin")])
        #expect(push.status == 0)
        // Sealing and uploading run at once: one bar, of the bytes the relay has.
        #expect(push.out.contains("pushing"), "\(push.out.suffix(300))")
        let quiet = try onTerminal(fleet.laptop, "vfs-push", ["-q", "-d", "phone", fleet.scratch.path("quiet.bin")])
        #expect(quiet.status == 0)
        #expect(!quiet.out.contains("pushing"))
        let inbox = fleet.scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let fetch = try onTerminal(fleet.phone, "vfs-fetch", ["--all", "-C", inbox])
        #expect(fetch.status == 0)
        #expect(fetch.out.contains("fetching"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: inbox + "/large.bin")) == content)
        #expect(try Data(contentsOf: URL(fileURLWithPath: inbox + "/quiet.bin")) == content)
    }

    @Test("a blob corrupted on the relay fails age's authentication (65; the push deferred the relay's SHA-256): nothing extracted, not acknowledged; wrong enrolment codes end in 429 (75)")
    func corruptionAndThrottling() throws {
        let fleet = try Fleet()
        try fleet.scratch.write("doc.txt", Data("intact".utf8))
        let id = pushed(try fleet.laptop.run("vfs-push", ["-d", "phone", fleet.scratch.path("doc.txt")]))
        let blobs = fleet.storedFiles()
        #expect(blobs.count == 1)
        var bytes = try Data(contentsOf: blobs[0])
        bytes[bytes.count - 1] ^= 0xFF
        try bytes.write(to: blobs[0])
        let inbox = fleet.scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let fetched = try fleet.phone.run("vfs-fetch", [id, "-C", inbox])
        #expect(fetched.status == 65)
        // The push deferred the relay's SHA-256 (issue 46): age's authentication is what fails.
        #expect(fetched.stderr.hasPrefix("vfs-fetch: error: corrupt payload: chunk 0 failed to authenticate"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox).isEmpty)
        #expect(inboxCount(fleet.phone) == 1)

        let stranger = try Machine("stranger", in: fleet.scratch)
        let url = "http://127.0.0.1:\(fleet.relay.port)"
        var statuses: [Int32] = []
        for _ in 0..<6 { statuses.append(try stranger.run("vfs-device", ["enroll", url, "WRONG-CODE", "--name", "x"]).status) }
        #expect(statuses.prefix(5).allSatisfy { $0 == 77 })
        #expect(statuses.last == 75)
        #expect(!FileManager.default.fileExists(atPath: stranger.path + "/relay.json"))
    }
}
