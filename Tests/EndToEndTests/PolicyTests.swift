import Foundation
import Testing
import VFSTestSupport

/// vfs-policy as a user and a script run it.
@Suite("vfs-policy end to end")
struct PolicyTests {
    /// A scratch folder whose policy is `policy.json` (through VFS_POLICY).
    final class Setup {
        let scratch: TestFolder
        let policy: String
        init() throws {
            scratch = try TestFolder()
            policy = scratch.path("policy.json")
        }
        @discardableResult
        func run(_ arguments: [String], stdin: Data? = nil) throws -> Run {
            try Tools.run("vfs-policy", arguments, stdin: stdin, environment: ["VFS_POLICY": policy])
        }
        /// Runs and expects success; returns stdout.
        @discardableResult
        func ok(_ arguments: [String]) throws -> String {
            let r = try run(arguments)
            #expect(r.status == 0, "vfs-policy \(arguments): \(r.stderr)")
            return r.out
        }
        func json(_ arguments: [String]) throws -> Any {
            try JSONSerialization.jsonObject(with: try run(arguments).stdout)
        }
        func items() throws -> [[String: Any]] { try json(["list", "--json"]) as? [[String: Any]] ?? [] }
        func item(_ app: String) throws -> [String: Any]? { try items().first { $0["app"] as? String == app } }
    }

    /// `check` with `arguments`: its status, and the reason of its --json twin.
    func check(_ setup: Setup, _ arguments: [String]) throws -> (status: Int32, reason: String?, stderr: String) {
        let plain = try setup.run(["check"] + arguments)
        let json = try setup.run(["check", "--json"] + arguments)
        #expect(json.status == plain.status)
        #expect(json.stderr.isEmpty)
        let object = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
        #expect((object?["allowed"] as? Bool) == (plain.status == 0))
        #expect(plain.out.isEmpty)
        return (plain.status, object?["reason"] as? String, plain.stderr)
    }

    @Test("a failed write to stdout is an I/O error (74), not a silent success")
    func stdoutFull() throws {
        let setup = try Setup()
        try setup.ok(["add", "evince"])
        let tool = Tools.binDir.appendingPathComponent("vfs-policy").path
        for arguments in [["list"], ["list", "--json"], ["log"], ["add", "okular"]] {
            let r = try Tools.run("sh", ["-c", "exec \"$0\" \"$@\" > /dev/full", tool] + arguments, environment: ["VFS_POLICY": setup.policy])
            #expect(r.status == 74, "\(arguments)")
            #expect(r.stderr == "vfs-policy: error: cannot write \"standard output\": no space left on device\n", "\(arguments)")
        }
    }

    @Test("default deny: no policy file approves nothing, and a check creates nothing")
    func defaultDeny() throws {
        let scratch = try TestFolder()
        let home = scratch.path("home")
        let r = try Tools.run("vfs-policy", ["check", "evince", "--file", "a.pdf"], environment: ["VFS_HOME": home])
        #expect(r.status == 1)
        #expect(r.stderr == "vfs-policy: denied: \"evince\" is not an approved app\n")
        #expect(r.out.isEmpty)
        let list = try Tools.run("vfs-policy", ["list"], environment: ["VFS_HOME": home])
        #expect(list.status == 0 && list.out.isEmpty)
        #expect(try Tools.run("vfs-policy", ["list", "--json"], environment: ["VFS_HOME": home]).out == "[]\n")
        #expect(try scratch.listing().isEmpty)
        // An empty policy denies as well; VFS_HOME/policy.json is the default place.
        let add = try Tools.run("vfs-policy", ["add", "okular"], environment: ["VFS_HOME": home])
        #expect(add.status == 0)
        #expect(FileManager.default.fileExists(atPath: home + "/policy.json"))
        #expect(try Tools.run("vfs-policy", ["remove", "okular"], environment: ["VFS_HOME": home]).status == 0)
        #expect(try Tools.run("vfs-policy", ["check", "okular"], environment: ["VFS_HOME": home]).status == 1)
        // VFS_POLICY wins over VFS_HOME.
        let other = scratch.path("other.json")
        #expect(try Tools.run("vfs-policy", ["add", "evince"], environment: ["VFS_HOME": home, "VFS_POLICY": other]).status == 0)
        #expect(try Tools.run("vfs-policy", ["check", "evince"], environment: ["VFS_HOME": home, "VFS_POLICY": other]).status == 0)
        #expect(try Tools.run("vfs-policy", ["check", "evince"], environment: ["VFS_HOME": home]).status == 1)
    }

    @Test("without HOME (cron, env -i) the files are under the password database's home, never under the current folder")
    func noHome() throws {
        let scratch = try TestFolder()
        let cwd = scratch.path("cwd")
        try FileManager.default.createDirectory(atPath: cwd, withIntermediateDirectories: true)
        let unset = ["HOME", "XDG_DATA_HOME"]
        if getuid() == 0 {
            // nobody's home is /nonexistent: the add must fail there, not write ./.local in a folder it may write.
            #expect(chown(cwd, 65534, 65534) == 0)
            let asNobody = OtherUser.setpriv
            let add = try Tools.run("setpriv", asNobody + [try OtherUser.tool("vfs-policy"), "add", "okular"],
                                    cwd: URL(fileURLWithPath: cwd), removing: unset)
            #expect(add.status != 0 && add.stderr.contains("\"/nonexistent"), "\(add.stderr)")
            let list = try Tools.run("setpriv", asNobody + [try OtherUser.tool("vfs-keychain"), "list"],
                                     cwd: URL(fileURLWithPath: cwd), removing: unset)
            #expect(list.status == 66 && list.stderr.contains("no keychain at \"/nonexistent/.local/share/vfs/keychain\""), "\(list.stderr)")
        } else {
            let list = try Tools.run("vfs-keychain", ["list"], cwd: URL(fileURLWithPath: cwd), removing: unset)
            #expect(list.stderr.contains("\"/") && !list.stderr.contains("\"./.local"), "\(list.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: cwd).isEmpty)
    }

    @Test("control characters in item names and the log are shown as escapes in list and log")
    func controlCharactersEscaped() throws {
        let s = try Setup()
        try s.ok(["add", "viewer", "--name", "a\u{1b}[2Jb\tc"])
        let list = try s.ok(["list"])
        #expect(list.contains("a\\x1b[2Jb\\tc\n") && !list.contains("\u{1b}"), "\(list.debugDescription)")
        let log = try s.ok(["log"])
        #expect(!log.contains("\u{1b}") && log.hasSuffix("\n"), "\(log.debugDescription)")
        // JSON keeps the name as it is (JSON escapes it).
        #expect(try s.item("viewer")?["name"] as? String == "a\u{1b}[2Jb\tc")
    }

    @Test("every denial reason, on stderr and as JSON")
    func denialReasons() throws {
        let s = try Setup()
        try s.ok(["add", "viewer", "--group", "finance", "--type", "pdf"])
        try s.ok(["add", "off"])
        try s.ok(["update", "off", "--disable"])
        let old = try s.run(["add", "old", "--expires", "2020-01-01"])
        #expect(old.status == 0)
        #expect(old.stderr == "vfs-policy: warning: \"old\" expired at 2020-01-02T00:00:00Z, so it denies from now on\n")

        var c = try check(s, ["nobody"])
        #expect(c.status == 1 && c.reason == "not-approved")
        c = try check(s, ["off"])
        #expect(c.status == 1 && c.reason == "disabled" && c.stderr == "vfs-policy: denied: \"off\" is approved but disabled\n")
        c = try check(s, ["old"])
        #expect(c.status == 1 && c.reason == "expired" && c.stderr.contains("expired at 2020-01-02T00:00:00Z"))
        c = try check(s, ["viewer", "--group", "hr", "--type", "pdf"])
        #expect(c.status == 1 && c.reason == "group-not-allowed" && c.stderr.contains("group \"hr\""))
        c = try check(s, ["viewer", "--group", "finance", "--file", "/tmp/setup.EXE"])
        #expect(c.status == 1 && c.reason == "type-not-allowed" && c.stderr.contains("type \"exe\""))
        c = try check(s, ["viewer", "--group", "finance", "--file", "/tmp/Q3.PDF"])
        #expect(c.status == 0 && c.reason == nil && c.stderr.isEmpty)

        let json = try s.json(["check", "--json", "off"]) as? [String: Any]
        #expect(json?["app"] as? String == "off")
        #expect(json?["message"] as? String == "\"off\" is approved but disabled")
        #expect((json?["item"] as? [String: Any])?["enabled"] as? Bool == false)
        let none = try s.json(["check", "--json", "nobody"]) as? [String: Any]
        #expect(none?["item"] is NSNull)
    }

    @Test("groups and types together; a file without group or type is denied by a restricted item")
    func groupsAndTypes() throws {
        let s = try Setup()
        try s.ok(["add", "com.example.viewer", "--group", "finance", "--group", "legal", "--type", "pdf", "--type", ".TXT"])
        #expect(try s.item("com.example.viewer")?["types"] as? [String] == ["pdf", "txt"])
        for (arguments, expected) in [
            (["--group", "legal", "--file", "notes.txt"], Int32(0)),
            (["--group", "finance", "--type", "PDF"], 0),
            (["--group", "finance", "--file", "archive.tar.gz"], 1),
            (["--group", "hr", "--file", "notes.txt"], 1),
            (["--file", "notes.txt"], 1),
            (["--group", "legal"], 1),
            (["--group", "legal", "--file", "README"], 1),
        ] {
            #expect(try check(s, ["com.example.viewer"] + arguments).status == expected, "\(arguments)")
        }
    }

    @Test("expiry boundary: a date is valid through that day (UTC); expired at the instant and after")
    func expiry() throws {
        let s = try Setup()
        try s.ok(["add", "day", "--expires", "2027-01-31"])
        try s.ok(["add", "instant", "--expires", "2027-01-31T17:00:00+02:00"])
        #expect(try s.item("day")?["expires"] as? String == "2027-02-01T00:00:00Z")
        #expect(try s.item("instant")?["expires"] as? String == "2027-01-31T15:00:00Z")
        #expect(try check(s, ["day", "--at", "2027-01-31T23:59:59Z"]).status == 0)
        #expect(try check(s, ["day", "--at", "2027-02-01T00:00:00Z"]) .reason == "expired")
        #expect(try check(s, ["day", "--at", "2027-02-01T00:00:01Z"]).reason == "expired")
        #expect(try check(s, ["instant", "--at", "2027-01-31T14:59:59Z"]).status == 0)
        #expect(try check(s, ["instant", "--at", "2027-01-31T15:00:00Z"]).reason == "expired")
        #expect(try s.item("day")?["status"] as? String == "active")
        try s.ok(["update", "day", "--expires", "2020-06-01T00:00:00Z"])
        #expect(try s.item("day")?["status"] as? String == "expired")
        try s.ok(["update", "day", "--no-expiry"])
        #expect(try s.item("day")?["expires"] == nil)
        #expect(try check(s, ["day"]).status == 0)
        #expect(try s.run(["add", "bad", "--expires", "2027-02-30"]).status == 64)
        let badAt = try s.run(["check", "day", "--at", "2027-02-30"])
        #expect(badAt.status == 64)
        #expect(badAt.stderr.contains("error: --at: invalid time \"2027-02-30\""), "\(badAt.stderr)")
    }

    @Test("check --at takes what --expires takes; list shows a date expiry as the date written")
    func atLikeExpires() throws {
        let s = try Setup()
        try s.ok(["add", "day", "--expires", "2027-01-31"])
        try s.ok(["add", "instant", "--expires", "2027-01-31T17:00:00+02:00"])
        #expect(try check(s, ["day", "--at", "2027-01-31"]).status == 0)
        #expect(try check(s, ["day", "--at", "2027-02-01"]).reason == "expired")
        #expect(try check(s, ["day", "--at", "1d"]).status == 0)
        let list = try s.ok(["list"])
        let day = list.split(separator: "\n").first { $0.contains(" day ") } ?? ""
        let instant = list.split(separator: "\n").first { $0.contains(" instant ") } ?? ""
        #expect(day.contains(" 2027-01-31 ") && !day.contains("2027-02-01"), "\(list)")
        #expect(instant.contains(" 2027-01-31T15:00:00Z "), "\(list)")
    }

    @Test("add prints the id; update by app or id replaces lists, clears them, toggles enabled; remove")
    func addUpdateRemove() throws {
        let s = try Setup()
        let id = try s.ok(["add", "viewer", "--name", "The Viewer", "--group", "a", "--type", "pdf"]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(id.count == 8 && id.allSatisfy(\.isHexDigit))
        #expect(try s.item("viewer")?["id"] as? String == id)
        let again = try s.run(["add", "viewer"])
        #expect(again.status == 73 && again.stderr.contains("already approved") && again.stderr.contains("hint: change it with vfs-policy update viewer"))

        try s.ok(["update", id, "--group", "b", "--group", "c"])
        #expect(try s.item("viewer")?["groups"] as? [String] == ["b", "c"])
        #expect(try s.item("viewer")?["types"] as? [String] == ["pdf"])
        try s.ok(["update", "viewer", "--clear-groups", "--type", "txt", "--name", "Viewer"])
        #expect(try s.item("viewer")?["groups"] as? [String] == [])
        #expect(try s.item("viewer")?["types"] as? [String] == ["txt"])
        #expect(try s.item("viewer")?["name"] as? String == "Viewer")
        try s.ok(["update", "viewer", "--clear-types", "--disable"])
        #expect(try s.item("viewer")?["types"] as? [String] == [])
        #expect(try s.item("viewer")?["status"] as? String == "disabled")
        try s.ok(["update", "viewer", "--enable"])
        #expect(try s.item("viewer")?["enabled"] as? Bool == true)

        for bad in [["update", "viewer"], ["update", "viewer", "--enable", "--disable"],
                    ["update", "viewer", "--group", "x", "--clear-groups"], ["update", "viewer", "--type", "x", "--clear-types"],
                    ["update", "viewer", "--expires", "1d", "--no-expiry"], ["update", "viewer", "--expires", "90"], ["add", "two words"], ["add", "x", "--type", "p.df"],
                    ["check", "viewer", "--file", "a.pdf", "--type", "pdf"]] {
            let r = try s.run(bad)
            #expect(r.status == 64, "\(bad): \(r.stderr)")
            #expect(r.stderr.hasPrefix("vfs-policy: error: "), "\(bad)")
        }
        let missing = try s.run(["update", "nothing", "--enable"])
        #expect(missing.status == 66 && missing.stderr.contains("\"nothing\""))
        try s.ok(["remove", id])
        #expect(try s.items().isEmpty)
        #expect(try s.run(["remove", "viewer"]).status == 66)
    }

    @Test("the log records who, when and what, oldest first")
    func log() throws {
        let s = try Setup()
        try s.ok(["add", "viewer"])
        try s.ok(["update", "viewer", "--type", "pdf", "--disable"])
        try s.ok(["update", "viewer", "--disable"])
        try s.ok(["remove", "viewer"])
        let entries = try s.json(["log", "--json"]) as? [[String: Any]] ?? []
        #expect(entries.map { $0["action"] as? String } == ["add", "update", "remove"])
        #expect(entries.allSatisfy { ($0["uid"] as? Int) == Int(getuid()) && ($0["user"] as? String)?.isEmpty == false })
        #expect(entries[1]["fields"] as? [String] == ["types", "enabled"])
        #expect(entries.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true && $0["app"] as? String == "viewer" })
        let text = try s.ok(["log"]).split(separator: "\n")
        #expect(text.count == 3)
        #expect(text[1].contains("  update  viewer  ") && text[1].hasSuffix("types,enabled"))
        let raw = String(decoding: try s.scratch.read("policy.json.log"), as: UTF8.self)
        #expect(raw.split(separator: "\n").count == 3)
        #expect(try s.scratch.listing() == ["policy.json", "policy.json.lock", "policy.json.log"])
    }

    @Test("export and import: round trip, merge by app, --replace, a bad import writes nothing")
    func exportImport() throws {
        let a = try Setup(), b = try Setup()
        try a.ok(["add", "viewer", "--group", "finance", "--type", "pdf", "--expires", "2030-01-01", "--name", "Viewer"])
        try a.ok(["add", "evince"])
        try a.ok(["update", "evince", "--disable"])
        let exported = try a.ok(["export"])
        #expect(exported == String(decoding: try a.scratch.read("policy.json"), as: UTF8.self))
        let file = a.scratch.path("export.json")
        try a.ok(["export", "-o", file])
        #expect(String(decoding: try a.scratch.read("export.json"), as: UTF8.self) == exported)

        try b.ok(["add", "okular"])
        let merge = try b.run(["import", file])
        #expect(merge.status == 0)
        #expect(merge.stderr == "vfs-policy: imported \(file): 2 added, 0 updated, 0 removed, 0 unchanged\n")
        #expect(try b.items().map { $0["app"] as? String } == ["evince", "okular", "viewer"])
        #expect(try b.item("viewer")?["id"] as? String == (try a.item("viewer")?["id"] as? String))

        // Merge by app: a changed item is updated in place, keeping its id.
        try b.ok(["update", "viewer", "--type", "txt"])
        let summary = try b.json(["import", "--json", file]) as? [String: Int]
        #expect(summary == ["added": 0, "updated": 1, "removed": 0, "unchanged": 1])
        #expect(try b.item("viewer")?["types"] as? [String] == ["pdf"])

        // --replace: the policy becomes the file, byte for byte.
        try b.ok(["import", "--replace", file])
        #expect(try b.ok(["export"]) == exported)
        let log = try b.json(["log", "--json"]) as? [[String: Any]] ?? []
        #expect(log.last?["action"] as? String == "remove" && log.last?["app"] as? String == "okular")
        #expect(log.last?["via"] as? String == "import \(file)")

        // From stdin, and a broken import: exit 65 naming its line, the policy untouched.
        #expect(try b.run(["import", "-"], stdin: Data(exported.utf8)).status == 0)
        let before = try b.scratch.read("policy.json")
        let broken = exported.replacingOccurrences(of: "\"finance\"", with: "\"fin ance\"")
        let bad = try b.run(["import", "-"], stdin: Data(broken.utf8))
        let line = broken.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("fin ance") }! + 1
        #expect(bad.status == 65)
        #expect(bad.stderr.hasPrefix("vfs-policy: error: \"standard input\", line \(line): items[1].groups[0]: invalid group \"fin ance\""), "\(bad.stderr)")
        #expect(try b.scratch.read("policy.json") == before)
        #expect(try b.run(["import", b.scratch.path("missing.json")]).status == 66)
    }

    @Test("import: hand-written items without id or times, every problem at once, --dry-run, --replace keeps ids")
    func handWrittenImport() throws {
        let s = try Setup()
        try s.ok(["add", "okular", "--type", "pdf"])
        let okularID = try s.item("okular")?["id"] as? String
        let written = """
        [{"app": "evince", "types": ["pdf"], "expires": "2027-01-31"},
         {"app": "okular", "groups": ["finance"]}]
        """
        let file = try s.scratch.write("team.json", Data(written.utf8))
        let before = try s.scratch.read("policy.json")
        let dry = try s.run(["import", "--dry-run", file])
        #expect(dry.status == 0 && dry.stderr == "vfs-policy: would import \(file): 1 added, 1 updated, 0 removed, 0 unchanged\n", "\(dry.stderr)")
        #expect(try s.scratch.read("policy.json") == before)
        let done = try s.run(["import", "--replace", file])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(try s.item("evince")?["expires"] as? String == "2027-02-01T00:00:00Z")
        #expect((try s.item("evince")?["id"] as? String)?.count == 8)
        #expect(try s.item("okular")?["id"] as? String == okularID)
        #expect(try s.item("okular")?["groups"] as? [String] == ["finance"])
        // Every problem, each with its line; nothing imported.
        let bad = """
        {"items": [
          {"app": "a b"},
          {"app": "fine"},
          {"app": "x", "groups": ["no way"]},
          {"app": "y", "expires": "soon"}
        ]}
        """
        let after = try s.scratch.read("policy.json")
        let run = try s.run(["import", "-"], stdin: Data(bad.utf8))
        #expect(run.status == 65)
        let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("vfs-policy: error: ") }
        #expect(errors.count == 4, "\(run.stderr)")
        #expect(run.stderr.contains("line 2: items[0].app: invalid app \"a b\""), "\(run.stderr)")
        #expect(run.stderr.contains("line 4: items[2].groups[0]: invalid group \"no way\""), "\(run.stderr)")
        #expect(run.stderr.contains("line 5: items[3].expires: invalid expiry \"soon\""), "\(run.stderr)")
        #expect(run.stderr.contains("3 problems in \"standard input\"; nothing was imported"))
        #expect(try s.scratch.read("policy.json") == after)
    }

    @Test("a corrupt policy: exit 65 naming the file and line, for reads and changes; never replaced")
    func corrupt() throws {
        let s = try Setup()
        try s.ok(["add", "viewer", "--type", "pdf"])
        var text = String(decoding: try s.scratch.read("policy.json"), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"enabled\" : true,", with: "\"enabled\" : true,,")
        let badLine = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(",,") }! + 1
        try s.scratch.write("policy.json", Data(text.utf8))
        let elsewhere = try TestFolder()
        let emptyPolicy = try elsewhere.write("empty.json", Data("{\n  \"items\" : [],\n  \"version\" : 1\n}\n".utf8))
        for arguments in [["check", "viewer"], ["list"], ["add", "other"], ["update", "viewer", "--disable"],
                          ["remove", "viewer"], ["export"], ["import", "--replace", emptyPolicy]] {
            let r = try s.run(arguments)
            #expect(r.status == 65, "\(arguments)")
            #expect(r.stderr.hasPrefix("vfs-policy: error: \"\(s.policy)\", line \(badLine), column "), "\(arguments): \(r.stderr)")
            #expect(r.out.isEmpty)
        }
        #expect(String(decoding: try s.scratch.read("policy.json"), as: UTF8.self) == text)
        #expect(try s.scratch.listing() == ["policy.json", "policy.json.lock", "policy.json.log"])
        // A valid file that breaks a rule names the line of the offending value.
        let typo = text.replacingOccurrences(of: ",,", with: ",").replacingOccurrences(of: "\"types\"", with: "\"type\"")
        try s.scratch.write("policy.json", Data(typo.utf8))
        let r = try s.run(["check", "viewer"])
        let typoLine = typo.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("\"type\"") }! + 1
        #expect(r.status == 65)
        #expect(r.stderr.contains("line \(typoLine): items[0].type: unknown key \"type\""), "\(r.stderr)")
        // A corrupt log is reported the same way.
        try s.scratch.write("policy.json.log", Data("{\"oops\"\n".utf8))
        #expect(try s.run(["log"]).stderr.hasPrefix("vfs-policy: error: \"\(s.policy).log\", line 1, column 8"))
    }

    @Test("8 processes x 25 adds at once: every item and every log line is kept")
    func concurrentAdds() throws {
        let s = try Setup()
        let tool = Tools.binDir.appendingPathComponent("vfs-policy").path
        let script = """
        for w in 0 1 2 3 4 5 6 7; do
          ( for n in $(seq 1 25); do "$TOOL" add "app-$w-$n" >/dev/null || echo "failed app-$w-$n" >&2; done ) &
        done
        wait
        """
        let r = try Tools.run("bash", ["-c", script], environment: ["VFS_POLICY": s.policy, "TOOL": tool])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let apps = try s.items().compactMap { $0["app"] as? String }
        #expect(apps.count == 200)
        #expect(Set(apps).count == 200)
        #expect(Set(try s.items().compactMap { $0["id"] as? String }).count == 200)
        let log = try s.json(["log", "--json"]) as? [[String: Any]] ?? []
        #expect(log.count == 200)
        #expect(try s.scratch.listing() == ["policy.json", "policy.json.lock", "policy.json.log"])
    }
}
