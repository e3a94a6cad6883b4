import Foundation
import Testing
import VFSCore
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 27's findings on the relay clients, each as a user meets it: through the
/// binaries, against a relay on 127.0.0.1, port 0.
@Suite("relay clients: a new user's second walk", .serialized)
struct ClientWalkTests {
    func ok(_ run: Run, _ what: String = "") {
        #expect(run.status == 0, "\(what): \(run.stderr)")
    }

    func uploads(_ fleet: Fleet) -> Int { fleet.relay.stderrText.components(separatedBy: "POST /v1/uploads ").count - 1 }

    func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test("get and put refuse to replace a file (73, nothing written or uploaded) unless -f; push --cloud refuses an existing cloud file")
    func noSilentReplace() throws {
        let fleet = try Fleet()
        let first = try fleet.scratch.write("first.txt", "first version")
        let second = try fleet.scratch.write("second.txt", "second version")
        ok(try fleet.laptop.run("vfs-cloud", ["put", first, "/notes.txt"]), "put")
        let uploadsBefore = uploads(fleet)
        let refused = try fleet.laptop.run("vfs-cloud", ["put", second, "/notes.txt"])
        #expect(refused.status == 73)
        #expect(refused.stderr.hasPrefix("vfs-cloud: error: \"/notes.txt\" already exists"))
        #expect(refused.stderr.contains("vfs-cloud: hint: use -f"))
        #expect(uploads(fleet) == uploadsBefore, "nothing was uploaded")
        #expect(try fleet.phone.run("vfs-cloud", ["get", "/notes.txt", "--stdout"]).out == "first version")
        // A tree whose one file exists goes nowhere (checked before the first upload).
        try FileManager.default.createDirectory(atPath: fleet.scratch.path("tree"), withIntermediateDirectories: true)
        try fleet.scratch.write("tree/a.txt", "a")
        try fleet.scratch.write("tree/notes.txt", "b")
        ok(try fleet.laptop.run("vfs-cloud", ["mkdir", "/tree"]))
        ok(try fleet.laptop.run("vfs-cloud", ["put", try fleet.scratch.write("n.txt", "n"), "/tree/notes.txt"]))
        let treeUploads = uploads(fleet)
        #expect(try fleet.laptop.run("vfs-cloud", ["put", "-r", fleet.scratch.path("tree"), "/"]).status == 73)
        #expect(uploads(fleet) == treeUploads)
        #expect(try fleet.laptop.run("vfs-cloud", ["ls", "/tree"]).out == "notes.txt\n")
        ok(try fleet.laptop.run("vfs-cloud", ["put", "-f", second, "/notes.txt"]), "put -f")
        #expect(try fleet.phone.run("vfs-cloud", ["get", "/notes.txt", "--stdout"]).out == "second version")

        // get: an existing local file is kept.
        let local = try fleet.scratch.write("local.txt", "mine")
        let kept = try fleet.phone.run("vfs-cloud", ["get", "/notes.txt", "-o", local])
        #expect(kept.status == 73)
        #expect(kept.stderr.contains("already exists") && kept.stderr.contains("-f"))
        #expect(contents(local) == Data("mine".utf8))
        let intoFolder = try fleet.phone.run("vfs-cloud", ["get", "/notes.txt", "-C", fleet.scratch.path("")])
        #expect(intoFolder.status == 0, "\(intoFolder.stderr)")
        #expect(try fleet.phone.run("vfs-cloud", ["get", "/notes.txt", "-C", fleet.scratch.path("")]).status == 73)
        ok(try fleet.phone.run("vfs-cloud", ["get", "-f", "/notes.txt", "-o", local]), "get -f")
        #expect(contents(local) == Data("second version".utf8))
        // A device is written to, as before.
        ok(try fleet.phone.run("vfs-cloud", ["get", "/notes.txt", "-o", "/dev/null"]), "get -o /dev/null")

        // push --cloud onto an existing cloud file: refused before anything is sent.
        let pushUploads = uploads(fleet)
        let pushed = try fleet.laptop.run("vfs-push", ["-d", "phone", "--cloud", "/notes.txt", first])
        #expect(pushed.status == 73)
        #expect(pushed.stderr.contains("already exists"))
        #expect(uploads(fleet) == pushUploads)
    }

    @Test("get -r brings a folder down as it went up; a second get -r is refused (73) unless -f; du PATH counts one folder")
    func folderRoundTrip() throws {
        let fleet = try Fleet()
        try FileManager.default.createDirectory(atPath: fleet.scratch.path("photos/2026/empty-folder"), withIntermediateDirectories: true)
        try fleet.scratch.write("photos/a.jpg", testBytes(70_000, seed: 1))
        try fleet.scratch.write("photos/2026/b.jpg", testBytes(10, seed: 2))
        try fleet.scratch.write("photos/2026/empty", Data())
        try fleet.scratch.write("other.txt", "not in photos")
        ok(try fleet.laptop.run("vfs-cloud", ["put", "-r", fleet.scratch.path("photos"), fleet.scratch.path("other.txt"), "/docs/"]))

        let down = fleet.scratch.path("down")
        try FileManager.default.createDirectory(atPath: down, withIntermediateDirectories: true)
        let folder = try fleet.phone.run("vfs-cloud", ["get", "/docs/photos", "-C", down])
        #expect(folder.status == 64)
        #expect(folder.stderr.contains("-r"))
        ok(try fleet.phone.run("vfs-cloud", ["get", "-r", "/docs/photos", "-C", down]), "get -r")
        #expect(contents(down + "/photos/a.jpg") == testBytes(70_000, seed: 1))
        #expect(contents(down + "/photos/2026/b.jpg") == testBytes(10, seed: 2))
        #expect(contents(down + "/photos/2026/empty") == Data())
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: down + "/photos/2026/empty-folder", isDirectory: &isFolder) && isFolder.boolValue)
        #expect(!FileManager.default.fileExists(atPath: down + "/other.txt"))

        // Again: every file exists, nothing is touched; -f replaces.
        try Data("changed".utf8).write(to: URL(fileURLWithPath: down + "/photos/a.jpg"))
        let again = try fleet.phone.run("vfs-cloud", ["get", "-r", "/docs/photos", "-C", down])
        #expect(again.status == 73)
        #expect(again.stderr.contains("already exists"))
        #expect(contents(down + "/photos/a.jpg") == Data("changed".utf8))
        ok(try fleet.phone.run("vfs-cloud", ["get", "-r", "-f", "/docs/photos", "-C", down]), "get -r -f")
        #expect(contents(down + "/photos/a.jpg") == testBytes(70_000, seed: 1))
        // -o names the folder itself.
        ok(try fleet.phone.run("vfs-cloud", ["get", "-r", "/docs/photos/2026", "-o", fleet.scratch.path("year")]))
        #expect(contents(fleet.scratch.path("year/b.jpg")) == testBytes(10, seed: 2))

        let du = try fleet.laptop.run("vfs-cloud", ["du", "--json", "/docs/photos"])
        ok(du)
        let usage = (try? JSONSerialization.jsonObject(with: du.stdout)) as? [String: Any] ?? [:]
        #expect(usage["files"] as? Int == 3 && usage["folders"] as? Int == 2, "\(usage)")
        let whole = (try? JSONSerialization.jsonObject(with: try fleet.laptop.run("vfs-cloud", ["du", "--json"]).stdout)) as? [String: Any] ?? [:]
        #expect(whole["files"] as? Int == 4)
        #expect((usage["bytes"] as? Int ?? 0) > 70_000 && (usage["bytes"] as? Int ?? 0) < (whole["bytes"] as? Int ?? 0))
        #expect(try fleet.laptop.run("vfs-cloud", ["du", "/docs/photos"]).out.hasPrefix("/docs/photos: 3 files in 2 folders"))
        #expect(try fleet.laptop.run("vfs-cloud", ["du", "/nothing"]).status == 66)
    }

    @Test("enroll on an enrolled machine is refused (73, the code kept) unless --force, which revokes the old device; duplicate names refused; revoke names what it revoked; a logged-out device's status says so")
    func enrolment() throws {
        let fleet = try Fleet()
        let oldID = fleet.laptop.id
        let code = try fleet.admin.invite("alice@acme.example")
        let url = "http://127.0.0.1:\(fleet.relay.port)"
        let again = try fleet.laptop.run("vfs-device", ["enroll", url, code, "--name", "laptop"])
        #expect(again.status == 73)
        #expect(again.stderr.contains("enrolled already") && again.stderr.contains(oldID))
        #expect(again.stderr.contains("vfs-device: hint: use --force"))

        // A second machine may not take a name in use; the code stays good.
        let twin = try Machine("twin", in: fleet.scratch)
        let clash = try twin.run("vfs-device", ["enroll", url, code, "--name", "phone"])
        #expect(clash.status == 73)
        #expect(clash.stderr.contains("already have a device named \"phone\""))
        #expect(!FileManager.default.fileExists(atPath: twin.path + "/relay.json"))
        let laptopPrint = try fleet.laptop.run("vfs-device", ["fingerprint"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        ok(try twin.run("vfs-device", ["enroll", url, code, "--name", "phone2", "--accept-chain", laptopPrint]), "the same code, another name")
        #expect(try fleet.laptop.run("vfs-device", ["rename", "phone2", "tablet"]).status == 73)

        // A watcher of the old device (wiping its folder on logout) is running meanwhile.
        let kept = fleet.scratch.path("laptop-inbox")
        try FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: true)
        try fleet.scratch.write("laptop-inbox/keep.txt", "mine")
        let watchLog = fleet.scratch.url.appendingPathComponent("watch.log")
        let watcher = try fleet.laptop.start("vfs-fetch", ["--watch", "--wipe-on-logout", "-C", kept], log: watchLog)
        defer { if watcher.isRunning { kill(watcher.processIdentifier, SIGKILL) } }
        #expect(eventually { ((try? String(contentsOf: watchLog, encoding: .utf8)) ?? "").contains("watching") })

        // --force: a new device under the same name, the old one revoked (no ghost).
        let forced = try fleet.laptop.run("vfs-device", ["enroll", "--force", url, try fleet.admin.invite("alice@acme.example"), "--name", "laptop"])
        #expect(forced.status == 0, "\(forced.stderr)")
        let newID = forced.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(newID.count == 32 && newID != oldID)
        #expect(forced.stderr.contains("revoked the old device \"laptop\" (\(oldID))"))
        // The old laptop was approved (alice's root): it approved its successor and left the chain.
        #expect(forced.stderr.contains("the old device approved the new one and left your device chain"), "\(forced.stderr)")
        #expect(!forced.stderr.contains("pending"), "\(forced.stderr)")
        let chain = try fleet.phone.run("vfs-device", ["list", "--json"])
        let laptopNow = jsonArray(chain).first { $0["id"] as? String == newID }
        #expect(laptopNow?["status"] as? String == "active", "\(chain.out)")
        // The phone encrypts to the new laptop without anyone approving it again.
        let handed = try fleet.scratch.write("handed.txt", "to the new laptop\n")
        #expect(try fleet.phone.run("vfs-push", ["-d", "laptop", handed]).status == 0)
        let list = jsonArray(try fleet.phone.run("vfs-device", ["list", "--json"]))
        #expect(list.filter { $0["name"] as? String == "laptop" }.compactMap { $0["id"] as? String } == [newID])
        #expect(!list.contains { $0["id"] as? String == oldID })
        // The watcher hears the old device's logout and leaves the new credentials and its folder alone.
        try #require(eventually { !watcher.isRunning })
        #expect(watcher.terminationStatus == 77)
        let watchSaid = (try? String(contentsOf: watchLog, encoding: .utf8)) ?? ""
        #expect(watchSaid.contains("is enrolled again as \"laptop\" (\(newID)): nothing was erased"), "\(watchSaid)")
        #expect(contents(kept + "/keep.txt") == Data("mine".utf8))
        ok(try fleet.laptop.run("vfs-device", ["status"]), "the new enrolment works")

        // revoke: by a unique id prefix; names the device and its id, and points at rekey.
        let phone2 = try #require(list.first { $0["name"] as? String == "phone2" }?["id"] as? String)
        let revoked = try fleet.laptop.run("vfs-device", ["revoke", String(phone2.prefix(12))])
        ok(revoked, "revoke by prefix")
        #expect(revoked.stderr.contains("revoked \"phone2\" (\(phone2))"))
        #expect(revoked.stderr.contains("vfs-cloud rekey"))

        // On a terminal it asks; anything but yes keeps the device.
        let script = ["-qec", "\(Tools.binDir.appendingPathComponent("vfs-device").path) revoke tablet", "/dev/null"]
        let declined = try Tools.run("script", script, stdin: Data("n\n".utf8), environment: fleet.laptop.environment)
        #expect(declined.out.contains("revoke \"tablet\" (\(fleet.tablet.id))? [y/N]"), "\(declined.out)")
        #expect(jsonArray(try fleet.laptop.run("vfs-device", ["list", "--json"])).contains { $0["name"] as? String == "tablet" })
        let confirmed = try Tools.run("script", script, stdin: Data("y\n".utf8), environment: fleet.laptop.environment)
        #expect(confirmed.out.contains("revoked \"tablet\""), "\(confirmed.out)")
        #expect(!jsonArray(try fleet.laptop.run("vfs-device", ["list", "--json"])).contains { $0["name"] as? String == "tablet" })

        // The tablet learns of it (its credentials erased); its status then says it is logged out.
        #expect(try fleet.tablet.run("vfs-fetch", ["--watch", "-C", fleet.scratch.path("")]).status == 77)
        let status = try fleet.tablet.run("vfs-device", ["status"])
        #expect(status.status == 77)
        #expect(status.stderr.hasPrefix("vfs-device: error: device \"tablet\" (\(fleet.tablet.id)) is logged out"), "\(status.stderr)")
        // And it enrols again without --force (nothing live to replace).
        ok(try fleet.tablet.run("vfs-device", ["enroll", url, try fleet.admin.invite("alice@acme.example"), "--name", "tablet"]))
    }

    @Test("push -g home --wait from a member of home: the sender is left out, the id reaches the pipe at once, wait and outbox take id prefixes")
    func groupWaitAndIDs() throws {
        let fleet = try Fleet()
        ok(try fleet.laptop.run("vfs-device", ["group", "create", "home", "laptop", "phone"]))
        let memo = try fleet.scratch.write("memo.txt", "for the group")
        let log = fleet.scratch.url.appendingPathComponent("push.log")
        let push = try fleet.laptop.start("vfs-push", ["-g", "home", "--wait", memo], log: log)
        defer { if push.isRunning { kill(push.processIdentifier, SIGKILL) } }
        func loggedID() -> String? {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map(String.init).first { $0.count == 32 && $0.allSatisfy(\.isHexDigit) }
        }
        // The id is on the pipe while the push still waits for the phone.
        #expect(eventually { loggedID() != nil })
        let id = try #require(loggedID())
        #expect(push.isRunning)
        let outbox = try fleet.laptop.run("vfs-push", ["outbox", "--json", String(id.prefix(8))])
        ok(outbox)
        let rows = jsonArray(outbox)
        #expect(rows.count == 1 && rows.first?["id"] as? String == id)
        #expect((rows.first?["recipients"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["phone"])

        let inbox = fleet.scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        ok(try fleet.phone.run("vfs-fetch", [String(id.prefix(6)), "-C", inbox]), "fetch by prefix")
        #expect(contents(inbox + "/memo.txt") == Data("for the group".utf8))
        try #require(eventually { !push.isRunning }, "the --wait push returns once the phone fetched")
        #expect(push.terminationStatus == 0)
        ok(try fleet.laptop.run("vfs-push", ["wait", String(id.prefix(10))]), "wait by prefix")
        #expect(try fleet.laptop.run("vfs-push", ["wait", "ffffffffffffffffffffffffffffffff"]).status == 66)

        // A group holding only the sender has no one to send to.
        ok(try fleet.laptop.run("vfs-device", ["group", "create", "solo", "laptop"]))
        #expect(try fleet.laptop.run("vfs-push", ["-g", "solo", memo]).status == 66)
    }

    @Test("Ctrl-C while a push seals removes its spool and dies of SIGINT (130), so resume has nothing to refuse; a push cut off names vfs-push resume, which finishes it")
    func interruptedPush() throws {
        let fleet = try Fleet()
        // Larger than the push's 24 MiB window: sealing waits for the slow relay.
        let big = try fleet.scratch.write("big.bin", testBytes(64 << 20, seed: 5))
        var proxy: SlowProxy? = try SlowProxy(to: fleet.relay.port, bytesPerSecond: 1 << 20)
        fleet.laptop.relayURL = "http://127.0.0.1:\(proxy!.port)"
        let outgoing = fleet.laptop.path + "/outgoing"
        let push = try fleet.laptop.start("vfs-push", ["-d", "phone", big], log: fleet.scratch.url.appendingPathComponent("push.log"))
        defer { if push.isRunning { kill(push.processIdentifier, SIGKILL) } }
        func spoolRecord() -> [String: Any]? {
            let dirs = (try? FileManager.default.contentsOfDirectory(atPath: outgoing)) ?? []
            guard let dir = dirs.first, let data = FileManager.default.contents(atPath: outgoing + "/" + dir + "/push.json") else { return nil }
            return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        }
        #expect(eventually { spoolRecord()?["location"] != nil && fleet.storedFiles().contains { ((try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) ?? 0 > 1 << 20 } })
        #expect(spoolRecord()?["length"] == nil, "still sealing")
        kill(push.processIdentifier, SIGINT)
        try #require(eventually { !push.isRunning }, "Ctrl-C ends the push")
        #expect(push.terminationReason == .uncaughtSignal && push.terminationStatus == SIGINT)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: outgoing)) ?? []).isEmpty)
        let nothing = try fleet.laptop.run("vfs-push", ["resume"])
        #expect(nothing.status == 0 && nothing.stderr.contains("no interrupted push"), "\(nothing.stderr)")

        // A small push whose connection drops once sealed: kept, and the error says how to go on.
        let small = try fleet.scratch.write("small.bin", testBytes(6 << 20, seed: 6))
        let cut = try fleet.laptop.start("vfs-push", ["-d", "phone", small], log: fleet.scratch.url.appendingPathComponent("cut.log"))
        defer { if cut.isRunning { kill(cut.processIdentifier, SIGKILL) } }
        #expect(eventually { spoolRecord()?["length"] != nil })
        proxy = nil
        try #require(eventually { !cut.isRunning })
        #expect(cut.terminationStatus == 69)
        let said = (try? String(contentsOf: fleet.scratch.url.appendingPathComponent("cut.log"), encoding: .utf8)) ?? ""
        #expect(said.contains("vfs-push: hint: the sealed push was kept: \"vfs-push resume\""), "\(said)")
        fleet.laptop.relayURL = nil
        let resumed = try fleet.laptop.run("vfs-push", ["resume"])
        ok(resumed, "resume")
        #expect(resumed.out.trimmingCharacters(in: .whitespacesAndNewlines).count == 32)
    }

    @Test("--timeout: a relay that accepts but never answers costs the given seconds (69, said plainly); VFS_RELAY is checked as the enrolment URL is")
    func timeoutAndRelayURL() throws {
        let fleet = try Fleet()
        // A listening socket nobody reads: connections complete, requests get no answer.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        #expect(listen(fd, 16) == 0)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        fleet.laptop.relayURL = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
        for (tool, arguments) in [("vfs-device", ["status"]), ("vfs-cloud", ["ls"]), ("vfs-fetch", []), ("vfs-push", ["outbox"])] {
            let hung = try fleet.laptop.run(tool, arguments + ["--timeout", "1"])
            #expect(hung.status == 69, "\(tool): \(hung.stderr)")
            #expect(hung.stderr.contains("no answer in time (--timeout 1)"), "\(tool): \(hung.stderr)")
        }
        #expect(try fleet.laptop.run("vfs-device", ["status", "--timeout", "0"]).status == 64)

        for bad in ["127.0.0.1:8787", "ftp://relay.example", "http://", "http://relay.example/?x=1"] {
            fleet.laptop.relayURL = bad
            let refused = try fleet.laptop.run("vfs-device", ["status"])
            #expect(refused.status == 64, "\(bad): \(refused.stderr)")
            #expect(refused.stderr.hasPrefix("vfs-device: error: invalid relay URL \"\(bad)\" (VFS_RELAY)"), "\(refused.stderr)")
            #expect(refused.stderr.contains("hint: write it as http://HOST:PORT"))
        }
        fleet.laptop.relayURL = "http://127.0.0.1:\(fleet.relay.port)/"
        ok(try fleet.laptop.run("vfs-device", ["status"]), "a good VFS_RELAY")
        let enrol = try Machine("new", in: fleet.scratch)
        #expect(try enrol.run("vfs-device", ["enroll", "relay.example", "CODE", "--name", "new"]).status == 64)
    }

    @Test("Ctrl-C during a fetch: the process dies of SIGINT (130) without an error line, nothing is placed, and the next fetch continues")
    func interruptedFetch() throws {
        let fleet = try Fleet()
        let content = testBytes(8 << 20, seed: 8)
        ok(try fleet.laptop.run("vfs-push", ["-d", "phone", try fleet.scratch.write("big.bin", content)]), "push")
        var proxy: SlowProxy? = try SlowProxy(to: fleet.relay.port, bytesPerSecond: 1 << 20)
        fleet.phone.relayURL = "http://127.0.0.1:\(proxy!.port)"
        let inbox = fleet.scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let log = fleet.scratch.url.appendingPathComponent("fetch.log")
        let fetch = try fleet.phone.start("vfs-fetch", ["--all", "-C", inbox], log: log)
        defer { if fetch.isRunning { kill(fetch.processIdentifier, SIGKILL) } }
        let incoming = fleet.phone.path + "/incoming"
        func partSize() -> Int {
            ((try? FileManager.default.contentsOfDirectory(atPath: incoming)) ?? [])
                .compactMap { try? FileManager.default.attributesOfItem(atPath: incoming + "/" + $0)[.size] as? Int }.max() ?? 0
        }
        #expect(eventually { partSize() > 1 << 20 && ((try? FileManager.default.contentsOfDirectory(atPath: inbox)) ?? []).contains { $0.hasPrefix(".vfs-unwrap-") } })
        kill(fetch.processIdentifier, SIGINT)
        try #require(eventually { !fetch.isRunning }, "Ctrl-C ends the fetch")
        #expect(fetch.terminationReason == .uncaughtSignal && fetch.terminationStatus == SIGINT, "\(fetch.terminationStatus)")
        let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(said.isEmpty, "\(said)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: inbox)) ?? []).isEmpty)
        proxy = nil
        fleet.phone.relayURL = nil
        ok(try fleet.phone.run("vfs-fetch", ["--all", "-C", inbox]), "fetch again")
        #expect(contents(inbox + "/big.bin") == content)
    }

    @Test("fetch -v lists what it unpacked; --exec gets every top-level path as \"$@\"")
    func fetchVerboseAndExec() throws {
        let fleet = try Fleet()
        try FileManager.default.createDirectory(atPath: fleet.scratch.path("docs/sub"), withIntermediateDirectories: true)
        try fleet.scratch.write("docs/sub/a.txt", "a")
        try fleet.scratch.write("memo.txt", "memo")
        ok(try fleet.laptop.run("vfs-push", ["-d", "phone", "-r", fleet.scratch.path("docs"), fleet.scratch.path("memo.txt")]))
        let inbox = fleet.scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let fetched = try fleet.phone.run("vfs-fetch", ["--all", "-v", "-C", inbox])
        ok(fetched, "fetch -v")
        let listed = Set(fetched.stderr.split(separator: "\n").map(String.init))
        #expect(listed.isSuperset(of: ["docs/", "docs/sub/", "docs/sub/a.txt", "memo.txt"]), "\(fetched.stderr)")
        #expect(try fleet.phone.run("vfs-fetch", ["-v"]).status == 64)

        ok(try fleet.laptop.run("vfs-push", ["-d", "tablet", "-r", fleet.scratch.path("docs"), fleet.scratch.path("memo.txt")]))
        let tabletInbox = fleet.scratch.path("tablet-inbox")
        try FileManager.default.createDirectory(atPath: tabletInbox, withIntermediateDirectories: true)
        let hookOut = fleet.scratch.path("hook.txt")
        let watcher = try fleet.tablet.start("vfs-fetch", ["--watch", "-C", tabletInbox, "--exec", "printf '%s\\n' \"$@\" > '\(hookOut)'"],
                                             log: fleet.scratch.url.appendingPathComponent("watch.log"))
        defer { if watcher.isRunning { kill(watcher.processIdentifier, SIGKILL) } }
        func hookLines() -> [String] { ((try? String(contentsOfFile: hookOut, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        #expect(eventually { hookLines().count >= 2 })
        let paths = hookLines().joined(separator: "\n")
        #expect(Set(paths.split(separator: "\n").map(String.init)) == [tabletInbox + "/docs", tabletInbox + "/memo.txt"], "\(paths)")
    }

    @Test("one listing style: tab-separated without a header when piped, a header on a terminal, -h sizes, --help still help; ls -l shows plaintext sizes; outbox says pending")
    func listings() throws {
        let fleet = try Fleet()
        let file = try fleet.scratch.write("r.bin", testBytes(300_000, seed: 4))
        ok(try fleet.laptop.run("vfs-cloud", ["put", file, "/r.bin"]))
        let long = try fleet.laptop.run("vfs-cloud", ["ls", "-l", "/"])
        ok(long)
        #expect(long.out.hasPrefix("-\t300000\t") && long.out.hasSuffix("\tr.bin\n"), "\(long.out)")
        #expect(try fleet.laptop.run("vfs-cloud", ["ls", "-lh", "/"]).out.hasPrefix("-\t293.0 KiB\t"))
        let stored = jsonArray(try fleet.laptop.run("vfs-cloud", ["ls", "--json", "/"])).first?["size"] as? Int ?? 0
        #expect(stored > 300_000, "the JSON keeps the ciphertext's size")
        #expect(try fleet.laptop.run("vfs-cloud", ["ls", "--help"]).out.contains("USAGE"))

        let id = try fleet.laptop.run("vfs-push", ["-d", "phone", file]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let inbox = try fleet.phone.run("vfs-fetch", [])
        ok(inbox)
        let fields = inbox.out.trimmingCharacters(in: .newlines).split(separator: "\t").map(String.init)
        #expect(fields.count == 5 && fields[0] == id && fields[1] == "laptop", "\(inbox.out)")
        #expect(!inbox.out.contains("expires"))
        let human = try fleet.phone.run("vfs-fetch", ["-h"]).out.split(separator: "\t").map(String.init)
        #expect(human.count == 5 && human[2].hasSuffix(" KiB"), "\(human)")
        #expect(try fleet.phone.run("vfs-fetch", ["--help"]).out.contains("USAGE"))
        let outbox = try fleet.laptop.run("vfs-push", ["outbox"])
        #expect(outbox.out.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }.contains { $0.first == id && $0.suffix(2) == ["phone", "pending"] },
                "\(outbox.out)")

        // On a terminal: a header, then aligned columns.
        func onTerminal(_ command: String) throws -> String {
            try Tools.run("script", ["-qec", "\(Tools.binDir.path)/\(command)", "/dev/null"], environment: fleet.laptop.environment).out
        }
        let devices = try onTerminal("vfs-device list")
        #expect(devices.hasPrefix("NAME") && devices.contains("PLATFORM") && devices.contains("laptop *"), "\(devices)")
        #expect(!devices.contains("\t"))
        let listing = try onTerminal("vfs-cloud ls -l /")
        #expect(listing.hasPrefix("KIND  SIZE    MODIFIED"), "\(listing)")
    }
}
