import Foundation
import Testing
import VFSTestSupport

/// Issue 48 end to end, through the binaries against a live relay: a server enrolled with
/// `--send-only` pushes every night to people's devices, which verify its pushes as
/// "SERVER of USER (send-only)", and no other device ever adds a stanza for it.
@Suite("send-only devices: approval, pushes, never a recipient", .serialized)
struct SendOnlyDeviceTests {
    func ok(_ run: Run, _ what: String = "") {
        #expect(run.status == 0, "\(what): \(run.stderr)")
    }

    /// The recipient stanzas in an age file's header ("-> TYPE …" lines before "---"); nil
    /// for a file that is not age.
    static func stanzas(_ url: URL) -> Int? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        let head = String(decoding: handle.readData(ofLength: 64 << 10), as: UTF8.self)
        guard head.hasPrefix("age-encryption.org/v1\n"), let end = head.range(of: "\n---") else { return nil }
        return head[..<end.lowerBound].split(separator: "\n").filter { $0.hasPrefix("-> ") }.count
    }

    /// The age files the relay stored since `before`, and their stanza counts.
    static func newStanzas(_ fleet: Fleet, since before: Set<URL>) -> [Int] {
        fleet.storedFiles().filter { !before.contains($0) }.compactMap { stanzas($0) }
    }

    func status(_ machine: Machine, of name: String) throws -> (status: String?, fingerprint: String?) {
        let run = try machine.run("vfs-device", ["list", "--json"])
        ok(run, "list")
        let row = jsonArray(run).first { $0["name"] as? String == name }
        return (row?["status"] as? String, row?["fingerprint"] as? String)
    }

    /// `vfs-fetch --all -v` of `machine` into `folder` (made first): its run, and the folder.
    func fetchAll(_ machine: Machine, into folder: String) throws -> (run: Run, folder: String) {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return (try machine.run("vfs-fetch", ["--all", "-v", "--no-backup", "-C", folder]), folder)
    }

    /// The state `vfs-relay devices` shows for a machine's device (its line's last column).
    func operatorState(_ fleet: Fleet, of machine: Machine) throws -> String? {
        let listed = try fleet.admin.run(["devices"])
        ok(listed, "vfs-relay devices")
        return listed.out.split(separator: "\n").first { $0.contains(machine.id) }.map { String($0.split(separator: "\t").last ?? "") }
    }

    /// Where the relay keeps its data: SQLite and a blob folder, or PostgreSQL and a bucket
    /// of Ceph's RADOS Gateway made with S3 Object Lock (under a minimum retention of 30 days).
    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgresS3
        var testDescription: String { self == .sqlite ? "SQLite, blob folder" : "PostgreSQL, S3 on RGW with Object Lock" }

        /// A fleet on it, and a query of its database (sqlite3 or psql): the rows, one a line.
        func fleet() throws -> (Fleet, query: (String) throws -> [String]) {
            guard self == .postgresS3 else {
                let fleet = try Fleet()
                return (fleet, { sql in
                    let run = try Tools.run("sqlite3", [fleet.data.appendingPathComponent("relay.sqlite").path, sql])
                    guard run.status == 0 else { throw HarnessError("sqlite3: \(run.stderr)") }
                    return run.out.split(separator: "\n").map(String.init)
                })
            }
            let gateway = try RGWFixture.start()
            let bucket = try gateway.newBucket(objectLock: true)
            let credentials = gateway.folder + "/s3-credentials-\(bucket)"
            try Data("[default]\naws_access_key_id = \(gateway.accessKey)\naws_secret_access_key = \(gateway.secretKey)\n".utf8)
                .write(to: URL(fileURLWithPath: credentials))
            let cluster = try PostgresCluster.start()
            let database = try cluster.createDatabase()
            let fleet = try Fleet(database: cluster.url(database: database),
                                  storeArguments: ["--blobs", "s3://\(bucket)/relay?endpoint=\(gateway.endpoint)&region=\(gateway.region)",
                                                   "--s3-credentials", credentials],
                                  bucket: (gateway, bucket))
            return (fleet, { sql in try cluster.psql(database, sql).split(separator: "\n").map(String.init) })
        }
    }

    /// With a locked bucket: each of `blobs` (copies `storedFiles` made) is locked in
    /// governance mode for the 30 days of the organisation's retention.
    static func expectLocked(_ fleet: Fleet, _ blobs: [URL], _ what: String) {
        guard fleet.bucket != nil else { return }
        let days = [-1.0, 1.0].map { ISO8601DateFormatter().string(from: Date().addingTimeInterval(30 * 86400 + $0 * 3600)).prefix(10) }
        for blob in blobs {
            let retention = fleet.retention(of: blob) ?? ""
            #expect(retention.contains("<Mode>GOVERNANCE</Mode>"), "\(what): \(blob.lastPathComponent) \(retention)")
            #expect(days.contains { retention.contains("<RetainUntilDate>\($0)") }, "\(what): \(retention)")
        }
    }

    @Test("a send-only server, approved as such, pushes nightly to two people's devices; they verify it as SERVER of USER (send-only); cloud put, rekey, group and --to pushes by others never add a stanza for it, a push to it is refused (77), and it signs nothing in the chain; on PostgreSQL with S3 blobs, each push's blob is locked (Object Lock, governance)",
          arguments: Store.allCases)
    func nightlyPushes(_ store: Store) throws {
        let (fleet, _) = try store.fleet()
        if fleet.bucket != nil { ok(try fleet.admin.run(["org", "set", "acme", "--min-retention", "30d"]), "org set") }
        let laptop = fleet.laptop
        let server = try Machine("server", in: fleet.scratch)
        try server.enroll(port: fleet.relay.port, code: try fleet.admin.invite("alice@acme.example"), arguments: ["--send-only"])
        let fingerprint = try server.fingerprint()

        // Pending, shown with its fingerprint as a reader would have: not the one it shows.
        let pending = try status(laptop, of: "server")
        #expect(pending.status == "pending")
        #expect(pending.fingerprint != nil && pending.fingerprint != fingerprint)
        #expect(try operatorState(fleet, of: server) == "pending")
        // Approved as a reader with its fingerprint: refused (77), and told why.
        let asReader = try laptop.run("vfs-device", ["approve", "server", "--fingerprint", fingerprint])
        #expect(asReader.status == 77)
        #expect(asReader.stderr.contains("approve it with --send-only"), "\(asReader.stderr)")
        // A reader approved with --send-only: refused too.
        let other = try Machine("other", in: fleet.scratch)
        try other.enroll(port: fleet.relay.port, code: try fleet.admin.invite("alice@acme.example"))
        let readerAsSender = try laptop.run("vfs-device", ["approve", "other", "--send-only", "--fingerprint", try other.fingerprint()])
        #expect(readerAsSender.status == 77)
        #expect(readerAsSender.stderr.contains("enrolled as a reader"), "\(readerAsSender.stderr)")
        ok(try laptop.run("vfs-device", ["approve", "server", "--send-only", "--fingerprint", fingerprint]), "approve --send-only")
        let approved = try status(laptop, of: "server")
        #expect(approved.status == "send-only")
        #expect(approved.fingerprint == fingerprint)
        #expect(try status(fleet.phone, of: "server").status == "send-only")
        // The operator sees it approved, and send-only (the readers stay plain active).
        #expect(try operatorState(fleet, of: server) == "active (send-only)")
        #expect(try operatorState(fleet, of: laptop) == "active")

        // Three nights: each push to bob (his desktop) and alice (--cc-me: her readers,
        // laptop, phone, tablet) has four stanzas, none of them the server's.
        for night in 1...3 {
            let before = Set(fleet.storedFiles())
            let dump = try fleet.scratch.write("dump-\(night).sql", Data("night \(night)\n".utf8))
            let push = try server.run("vfs-push", ["--to", "bob@acme.example", "--cc-me", dump])
            ok(push, "night \(night)")
            #expect(Self.newStanzas(fleet, since: before) == [4], "night \(night)")
            Self.expectLocked(fleet, fleet.storedFiles().filter { !before.contains($0) && Self.stanzas($0) != nil }, "night \(night)")
        }
        // Receivers verify them as the server of alice's, send-only.
        let (fetched, out) = try fetchAll(fleet.phone, into: fleet.scratch.path("phone-out"))
        ok(fetched, "phone fetch")
        #expect(fetched.stderr.contains("is from \"server\" of alice@acme.example (send-only) (verified)"), "\(fetched.stderr)")
        for night in 1...3 {
            #expect(try String(contentsOfFile: out + "/dump-\(night).sql", encoding: .utf8) == "night \(night)\n")
        }
        let (bob, bobOut) = try fetchAll(fleet.desktop, into: fleet.scratch.path("desktop-out"))
        ok(bob, "desktop fetch")
        #expect(bob.stderr.contains("is from \"server\" of alice@acme.example (send-only) (pinned, not confirmed)"), "\(bob.stderr)")
        #expect(try String(contentsOfFile: bobOut + "/dump-3.sql", encoding: .utf8) == "night 3\n")

        // The others never encrypt to it: a cloud put (alice's three readers), a push to a
        // group it is in (the phone alone), bob's push --to alice (her three readers).
        let file = try fleet.scratch.write("note.txt", Data("for readers only\n".utf8))
        var before = Set(fleet.storedFiles())
        let put = try laptop.run("vfs-cloud", ["put", file, "/note.txt"])
        ok(put, "cloud put")
        #expect(!put.stderr.contains("server"), "\(put.stderr)")
        #expect(Self.newStanzas(fleet, since: before) == [3])
        ok(try laptop.run("vfs-device", ["group", "create", "nightly", "phone", "server"]))
        before = Set(fleet.storedFiles())
        ok(try laptop.run("vfs-push", ["-g", "nightly", file]), "group push")
        #expect(Self.newStanzas(fleet, since: before) == [1])
        before = Set(fleet.storedFiles())
        ok(try fleet.desktop.run("vfs-push", ["--to", "alice@acme.example", file]), "bob --to alice")
        #expect(Self.newStanzas(fleet, since: before) == [3])
        before = Set(fleet.storedFiles())
        // A push's cloud copy is for every device of the user: the three readers.
        ok(try laptop.run("vfs-push", ["--cloud", "/copy.txt", "-d", "phone", file]), "push --cloud")
        #expect(Self.newStanzas(fleet, since: before) == [3])
        // Named outright, it is refused as a recipient (77), by the chain's word.
        let toServer = try laptop.run("vfs-push", ["-d", "server", file])
        #expect(toServer.status == 77)
        #expect(toServer.stderr.contains("\"server\" of alice@acme.example is a send-only device"), "\(toServer.stderr)")
        ok(try laptop.run("vfs-cloud", ["rekey"]), "rekey")

        // Nothing the relay stores opens with the server's identity; all of it with the laptop's.
        let serverKey = fleet.scratch.path("server-identity.txt"), laptopKey = fleet.scratch.path("laptop-identity.txt")
        try server.exportIdentity(to: serverKey)
        try laptop.exportIdentity(to: laptopKey)
        let stored = fleet.storedFiles().filter { Self.stanzas($0) != nil }
        #expect(stored.count >= 4)
        for blob in stored {
            #expect(try Tools.run("vfs-decrypt", ["-i", serverKey, "-o", "/dev/null", blob.path]).status != 0, "\(blob.lastPathComponent)")
        }
        let cloudBlobs = stored.filter { Self.stanzas($0) == 3 }
        #expect(!cloudBlobs.isEmpty)
        for blob in cloudBlobs {
            ok(try Tools.run("vfs-decrypt", ["-i", laptopKey, "-o", "/dev/null", blob.path]), "laptop opens \(blob.lastPathComponent)")
        }

        // Its token is scoped (issue 48, item 2): it reads nothing and deletes nothing; the
        // tools say so and exit 77 (the relay's 403).
        for (tool, arguments) in [("vfs-fetch", ["--json"]), ("vfs-fetch", ["--all"]), ("vfs-cloud", ["ls", "/"]),
                                  ("vfs-cloud", ["get", "/note.txt", "-o", fleet.scratch.path("stolen.txt")]),
                                  ("vfs-cloud", ["put", file, "/planted.txt"]), ("vfs-device", ["invite"]),
                                  ("vfs-device", ["rename", "phone", "mine"])] {
            let refused = try server.run(tool, arguments)
            #expect(refused.status == 77, "\(tool) \(arguments): \(refused.status) \(refused.stderr)")
            #expect(refused.stderr.contains("send-only device's token"), "\(tool) \(arguments): \(refused.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: fleet.scratch.path("stolen.txt")))

        // It signs nothing in the chain: it approves nobody, and logs nobody out.
        let approve = try server.run("vfs-device", ["approve", "other", "--fingerprint", try other.fingerprint()])
        #expect(approve.status == 77)
        #expect(try server.run("vfs-device", ["revoke", "-y", "phone"]).status == 77)
        #expect(try status(laptop, of: "phone").status == "active")
        // Revoked by an approved device: removed from the chain.
        ok(try laptop.run("vfs-device", ["revoke", "-y", "server"]), "revoke the server")
        let gone = try status(fleet.phone, of: "server").status
        #expect(gone == nil || gone == "revoked")
    }

    /// The ids of the transfers a machine sent (vfs-push outbox --json), newest last.
    func sentIDs(_ machine: Machine) throws -> [String] {
        let run = try machine.run("vfs-push", ["outbox", "--json"])
        ok(run, "outbox")
        return jsonArray(run).compactMap { $0["id"] as? String }
    }

    @Test("under vfs-relay org set --min-retention 30d no device cancels a push that still waits, the send-only server's own included (77, one line that says why); vfs-relay transfers rm removes it before its time and the audit log shows it; on PostgreSQL with S3 blobs in a bucket with Object Lock, the removal leaves no version of its blob, and the other push's stays locked",
          arguments: Store.allCases)
    func retainedPushes(_ store: Store) throws {
        let (fleet, query) = try store.fleet()
        let server = try Machine("server", in: fleet.scratch)
        try server.enroll(port: fleet.relay.port, code: try fleet.admin.invite("alice@acme.example"), arguments: ["--send-only"])
        ok(try fleet.laptop.run("vfs-device", ["approve", "server", "--send-only", "--fingerprint", try server.fingerprint()]), "approve")

        // The setting, and what it refuses: a number without a unit, an unknown organisation.
        let set = try fleet.admin.run(["org", "set", "acme", "--min-retention", "30d"])
        ok(set, "org set")
        #expect(set.stderr.contains("acme: transfers are kept until delivered or 30d"), "\(set.stderr)")
        let bare = try fleet.admin.run(["org", "set", "acme", "--min-retention", "30"])
        #expect(bare.status == 64 && bare.stderr.contains("has no unit"), "\(bare.stderr)")
        #expect(try fleet.admin.run(["org", "set", "acme"]).status == 64)
        #expect(try fleet.admin.run(["org", "set", "nowhere", "--min-retention", "30d"]).status == 66)

        let dump = try fleet.scratch.write("dump.sql", Data("night 1\n".utf8))
        ok(try server.run("vfs-push", ["--to", "bob@acme.example", dump]), "server push")
        let pushed = try #require(try sentIDs(server).last)
        // Its own token may not cancel (the send-only scope), nor may the laptop's its own push.
        let byServer = try server.run("vfs-push", ["cancel", pushed])
        #expect(byServer.status == 77, "\(byServer.stderr)")
        ok(try fleet.laptop.run("vfs-push", ["-d", "phone", dump]), "laptop push")
        let own = try #require(try sentIDs(fleet.laptop).last)
        let byLaptop = try fleet.laptop.run("vfs-push", ["cancel", own])
        #expect(byLaptop.status == 77, "\(byLaptop.stderr)")
        #expect(byLaptop.stderr.hasPrefix("vfs-push: error: the relay refused: your organisation retains this transfer until it is delivered or until 20"),
                "\(byLaptop.stderr)")
        #expect(byLaptop.stderr.contains("(403 retained)"), "\(byLaptop.stderr)")
        #expect(byLaptop.stderr.contains("vfs-relay transfers rm"), "\(byLaptop.stderr)")
        #expect(inboxIDs(fleet.desktop).contains(pushed) && inboxIDs(fleet.phone).contains(own))

        // The operator removes the server's push: gone from bob's inbox, and audited.
        let blobs = try [pushed, own].map { try #require(try query("SELECT blob_id FROM transfers WHERE id = '\($0)'").first) }
        let removed = try fleet.admin.run(["transfers", "rm", pushed])
        ok(removed, "transfers rm")
        #expect(removed.stderr.contains("removed transfer \(pushed) (1 waiting copy cancelled; it was retained until 20"), "\(removed.stderr)")
        #expect(!inboxIDs(fleet.desktop).contains(pushed))
        #expect(inboxIDs(fleet.phone).contains(own))
        let audit = try query("SELECT actor || ' ' || action || ' ' || subject FROM audit WHERE action IN ('transfer.remove', 'org.min-retention') ORDER BY id")
        #expect(audit == ["operator org.min-retention organisation", "operator transfer.remove \(pushed)"], "\(audit)")
        if let bucket = fleet.bucket {
            // The removed push's blob is gone, every version (its lock bypassed); the other's stays, locked.
            let removedKey = "relay/blobs/\(blobs[0])", keptKey = "relay/blobs/\(blobs[1])"
            let left = try bucket.gateway.versions(bucket: bucket.name, key: removedKey) { $0 == 0 }
            #expect(left == 0, "\(removedKey)")
            #expect(try bucket.gateway.versions(bucket: bucket.name, key: keptKey) { $0 == 1 } == 1, "\(keptKey)")
            #expect(bucket.gateway.retention(bucket: bucket.name, key: keptKey)?.contains("<Mode>GOVERNANCE</Mode>") == true)
        }
        #expect(try fleet.admin.run(["transfers", "rm", "3f9c"]).status == 64)
        #expect(try fleet.admin.run(["transfers", "rm", String(repeating: "0", count: 32)]).status == 66)
    }

    func inboxIDs(_ machine: Machine) -> [String] {
        ((try? jsonArray(machine.run("vfs-fetch", ["--json"]))) ?? []).compactMap { $0["id"] as? String }
    }

    @Test("cron without a passcode: a send-only server with no keychain at all enrols, is approved, pushes three nights to two people and lists its receipts with its token and keys in 0600 files; then the same from a systemd unit's $CREDENTIALS_DIRECTORY (0700, 0400 copies); a token or key file others may read is refused (77, one line), before anything is sent")
    func cronWithoutKeychain() throws {
        let fleet = try Fleet()
        let server = try Machine("server", in: fleet.scratch)
        try FileManager.default.removeItem(atPath: server.keychainPath)
        let etc = fleet.scratch.path("etc-vfs-send")
        try FileManager.default.createDirectory(atPath: etc, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let files = ["--token-file", etc + "/token", "--identity-file", etc + "/identity"]
        // As cron or systemd runs it: no keychain, no passcode, no terminal.
        func cron(_ tool: String, _ arguments: [String], credentials folder: String? = nil) throws -> Run {
            var environment = server.environment
            environment["VFS_PASSCODE"] = nil
            if let folder { environment["CREDENTIALS_DIRECTORY"] = folder }
            return try Tools.run(tool, arguments, environment: environment)
        }
        func trimmed(_ run: Run) -> String { run.out.trimmingCharacters(in: .whitespacesAndNewlines) }
        let laptopPrint = trimmed(try fleet.laptop.run("vfs-device", ["fingerprint"]))
        let enrolled = try cron("vfs-device", ["enroll", "http://127.0.0.1:\(fleet.relay.port)", try fleet.admin.invite("alice@acme.example"),
                                               "--name", "server", "--send-only", "--accept-chain", laptopPrint] + files)
        ok(enrolled, "enroll")
        for name in ["token", "identity", "identity.ed25519"] {
            #expect(try FileManager.default.attributesOfItem(atPath: etc + "/" + name)[.posixPermissions] as? Int == 0o600, "\(name)")
        }
        let fingerprint = try cron("vfs-device", ["fingerprint"] + files)
        ok(fingerprint, "fingerprint")
        ok(try fleet.laptop.run("vfs-device", ["approve", "server", "--send-only", "--fingerprint", trimmed(fingerprint)]), "approve")

        // Three nights, each to bob and to alice's three readers: four stanzas, none the server's.
        for night in 1...3 {
            let before = Set(fleet.storedFiles())
            let dump = try fleet.scratch.write("cron-\(night).sql", Data("night \(night)\n".utf8))
            ok(try cron("vfs-push", ["-q", "--to", "bob@acme.example", "--cc-me", dump] + files), "night \(night)")
            #expect(Self.newStanzas(fleet, since: before) == [4], "night \(night)")
        }
        let (bob, bobOut) = try fetchAll(fleet.desktop, into: fleet.scratch.path("desktop-out"))
        ok(bob, "bob's fetch")
        #expect(bob.stderr.contains("is from \"server\" of alice@acme.example (send-only)"), "\(bob.stderr)")
        #expect(try String(contentsOfFile: bobOut + "/cron-3.sql", encoding: .utf8) == "night 3\n")
        // Its receipts: the three pushes, each delivered to bob's desktop.
        func receipts(_ run: Run) -> [[String]] {
            jsonArray(run).map { (($0["recipients"] as? [[String: Any]]) ?? []).filter { $0["user"] as? String == "bob@acme.example" }
                .compactMap { $0["status"] as? String } }
        }
        let outbox = try cron("vfs-push", ["outbox", "--json"] + files)
        ok(outbox, "outbox")
        #expect(receipts(outbox) == Array(repeating: ["delivered"], count: 3), "\(outbox.out)")

        // A systemd unit: LoadCredential= hands over 0400 copies in a 0700 folder of the run's own.
        let credentials = fleet.scratch.path("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for (file, name) in [("token", "vfs-token"), ("identity", "vfs-identity"), ("identity.ed25519", "vfs-identity.ed25519")] {
            try FileManager.default.copyItem(atPath: etc + "/" + file, toPath: credentials + "/" + name)
            try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: credentials + "/" + name)
        }
        let unitDump = try fleet.scratch.write("unit.sql", Data("from the unit\n".utf8))
        var before = Set(fleet.storedFiles())
        ok(try cron("vfs-push", ["-q", "--to", "bob@acme.example", unitDump], credentials: credentials), "push from the unit")
        #expect(Self.newStanzas(fleet, since: before) == [1])
        ok(try cron("vfs-push", ["outbox", "--json"], credentials: credentials), "outbox from the unit")
        let (unitFetch, unitOut) = try fetchAll(fleet.desktop, into: fleet.scratch.path("desktop-unit"))
        ok(unitFetch, "bob's fetch of the unit's push")
        #expect(unitFetch.stderr.contains("is from \"server\" of alice@acme.example (send-only) (pinned, not confirmed)"), "\(unitFetch.stderr)")
        #expect(try String(contentsOfFile: unitOut + "/unit.sql", encoding: .utf8) == "from the unit\n")
        // Without the folder or the files there is nothing to push with (no keychain): 66.
        #expect(try cron("vfs-push", ["--to", "bob@acme.example", unitDump]).status == 66)

        // A token or key file its group or others may read: refused, one line naming it, nothing sent.
        let laterDump = try fleet.scratch.write("later.sql", Data("not sent\n".utf8))
        for (folder, name, arguments) in [(etc, "identity.ed25519", files), (etc, "token", files), (etc, "identity", files),
                                          (credentials, "vfs-token", []), (credentials, "vfs-identity.ed25519", [])] {
            let path = folder + "/" + name
            let kept = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            before = Set(fleet.storedFiles())
            let refused = try cron("vfs-push", ["--to", "bob@acme.example", laterDump] + arguments,
                                   credentials: arguments.isEmpty ? credentials : nil)
            #expect(refused.status == 77, "\(name): \(refused.stderr)")
            #expect(refused.stderr.hasPrefix("vfs-push: error: \"\(path)\" may be read by others (mode 0644); a device's token and keys must be its owner's alone\n"),
                    "\(refused.stderr)")
            #expect(fleet.storedFiles().filter { !before.contains($0) }.isEmpty, "\(name)")
            try FileManager.default.setAttributes([.posixPermissions: kept], ofItemAtPath: path)
        }
        // 0640 (a group's) is refused too; 0600 again is taken.
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: etc + "/token")
        #expect(try cron("vfs-device", ["status"] + files).status == 77)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: etc + "/token")
        ok(try cron("vfs-push", ["-q", "--to", "bob@acme.example", laterDump] + files), "0600 is taken")
        #expect(!FileManager.default.fileExists(atPath: server.keychainPath))
    }
}
