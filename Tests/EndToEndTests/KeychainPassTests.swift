import Foundation
import Testing
import VFSTestSupport

/// vfs-keychain as a pass user expects it: generate, edit, mv, cp, find, export,
/// identity export and the clipboard.
@Suite("keychain like pass")
struct KeychainPassTests {
    func ready() throws -> KeychainFixture {
        let kc = try KeychainFixture()
        try kc.initialise()
        return kc
    }

    func get(_ kc: KeychainFixture, _ name: String) throws -> Run { try kc.run(["get", name], passcode: true) }

    func script(_ kc: KeychainFixture, _ name: String, _ body: String) throws -> String {
        let path = try kc.scratch.write(name, Data(("#!/bin/sh\n" + body).utf8))
        chmod(path, 0o755)
        return path
    }

    let alnum = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    @Test("generate: 25 characters by default, -n letters and digits, stored as printed; 73 over an entry, -f, -i and 66")
    func generate() throws {
        let kc = try ready()
        let made = try kc.run(["generate", "github.com", "bot"], passcode: true)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.out.count == 25 && made.out.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0.isPunctuation || $0.isSymbol) })
        #expect(try get(kc, "github.com/bot").out == made.out)
        let plain = try kc.run(["generate", "-n", "wifi/home", "32"], passcode: true)
        #expect(plain.status == 0 && plain.out.count == 32 && plain.out.allSatisfy { alnum.contains($0) }, "\(plain.stderr)")
        #expect(try kc.run(["list"], passcode: true).out.contains("wifi\thome\t"))
        // Symbols do occur without -n (the chance that 20 × 25 characters hold none is below 1e-90).
        let many = try (0..<20).map { _ in try kc.run(["generate", "-f", "s", "a"], passcode: true).out }.joined()
        #expect(many.contains { !alnum.contains($0) })

        let before = try kc.bytes()
        let again = try kc.run(["generate", "github.com", "bot"], passcode: true)
        #expect(again.status == 73 && again.out.isEmpty)
        #expect(again.stderr.contains("already exists"))
        #expect(try kc.bytes() == before)
        let missing = try kc.run(["generate", "-i", "nothing", "here"], passcode: true)
        #expect(missing.status == 66 && missing.out.isEmpty, "\(missing.stderr)")
        #expect(try kc.run(["generate", "-i", "-f", "github.com", "bot"], passcode: true).status == 64)
        #expect(try kc.run(["generate", "github.com", "bot", "0"], passcode: true).status == 64)
        #expect(try kc.bytes() == before)

        #expect(try kc.run(["set", "--update", "--label", "deploy key", "github.com", "bot"], stdin: Data("x".utf8), passcode: true).status == 0)
        let inPlace = try kc.run(["generate", "-i", "github.com/bot", "40"], passcode: true)
        #expect(inPlace.status == 0 && inPlace.out.count == 40)
        #expect(try get(kc, "github.com/bot").out == inPlace.out)
        #expect(try kc.run(["list", "github.com"], passcode: true).out.hasSuffix("\tdeploy key\n"))
        let forced = try kc.run(["generate", "-f", "github.com", "bot"], passcode: true)
        #expect(forced.status == 0)
        #expect(try get(kc, "github.com/bot").out == forced.out)
        #expect(FileManager.default.fileExists(atPath: kc.keychainPath + ".prev"))
    }

    /// A fake editor: records the file's path, its mode and its folder's, and what
    /// it held, then runs `action` on it.
    func editor(_ kc: KeychainFixture, _ action: String) throws -> String {
        try script(kc, "editor-\(UUID().uuidString.prefix(8))", """
            log=\(kc.scratch.path("editor.log"))
            printf '%s\\n' "$1" > "$log"
            stat -c %a "$1" >> "$log"
            stat -c %a "$(dirname "$1")" >> "$log"
            printf 'passcode %s\\n' "${VFS_PASSCODE-unset}" >> "$log"
            cat "$1" >> "$log"
            \(action)

            """)
    }

    @Test("edit: a 0600 file in a 0700 folder on tmpfs, saved only if changed, removed whatever happens")
    func edit() throws {
        let kc = try ready()
        #expect(try kc.run(["set", "mail", "me"], stdin: Data("old secret".utf8), passcode: true).status == 0)
        let changed = try kc.run(["edit", "mail/me"], passcode: true,
                                 environment: ["EDITOR": try editor(kc, "printf 'new secret\\n' > \"$1\""), "VISUAL": ""])
        #expect(changed.status == 0, "\(changed.stderr)")
        let log = try kc.scratch.text("editor.log").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(log[0].hasPrefix("/dev/shm/vfs-edit.") && log[1] == "600" && log[2] == "700" && log[4] == "old secret")
        #expect(log[3] == "passcode unset", "the editor does not get VFS_PASSCODE")
        #expect(!FileManager.default.fileExists(atPath: log[0]))
        #expect(!FileManager.default.fileExists(atPath: (log[0] as NSString).deletingLastPathComponent))
        #expect(try get(kc, "mail/me").out == "new secret")

        let before = try kc.bytes()
        let same = try kc.run(["edit", "mail", "me"], passcode: true, environment: ["EDITOR": try editor(kc, "printf 'new secret\\n' > \"$1\"")])
        #expect(same.status == 0 && same.stderr.contains("was not changed"), "\(same.stderr)")
        let failed = try kc.run(["edit", "mail", "me"], passcode: true, environment: ["EDITOR": try editor(kc, "echo changed > \"$1\"; exit 3")])
        #expect(failed.status == 1 && failed.stderr.contains("exited with status 3"), "\(failed.stderr)")
        let emptied = try kc.run(["edit", "mail", "me"], passcode: true, environment: ["EDITOR": try editor(kc, ": > \"$1\"")])
        #expect(emptied.status == 64, "\(emptied.stderr)")
        #expect(try kc.bytes() == before)

        // SIGTERM while the editor runs: the file goes, nothing is saved, the process dies of it.
        let killer = try editor(kc, """
            p=$$
            while [ "$p" -gt 1 ] && [ "$(cat /proc/$p/comm)" != vfs-keychain ]; do p=$(cut -d' ' -f4 /proc/$p/stat); done
            kill -TERM "$p"; sleep 1; echo changed > "$1"
            """)
        // The test runner's children inherit SIGTERM blocked: unblocked here, as in a shell.
        let unblocked = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])"
        let killed = try kc.runTool("python3", ["-c", unblocked, Tools.binDir.appendingPathComponent("vfs-keychain").path, "edit", "mail", "me"],
                                    passcode: true, environment: ["EDITOR": killer])
        #expect(killed.status == SIGTERM, "\(killed.stderr)")
        let path = try kc.scratch.text("editor.log").split(separator: "\n")[0]
        #expect(!FileManager.default.fileExists(atPath: String(path)))
        #expect(!FileManager.default.fileExists(atPath: (String(path) as NSString).deletingLastPathComponent))
        #expect(try kc.bytes() == before)

        // A new entry: the editor starts from an empty file.
        let created = try kc.run(["edit", "new", "entry"], passcode: true, environment: ["EDITOR": try editor(kc, "echo fresh > \"$1\"")])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try get(kc, "new/entry").out == "fresh")
    }

    @Test("mv and cp: both name forms, -f, 73 over an entry, 66 for a missing one, 64 for a bad count")
    func moveAndCopy() throws {
        let kc = try ready()
        #expect(try kc.run(["set", "--label", "L", "github.com", "a"], stdin: Data("one".utf8), passcode: true).status == 0)
        #expect(try kc.run(["set", "github.com", "b"], stdin: Data("two".utf8), passcode: true).status == 0)
        #expect(try kc.run(["cp", "github.com/a", "gitlab.com/a"], passcode: true).status == 0)
        #expect(try get(kc, "gitlab.com/a").out == "one" && get(kc, "github.com/a").out == "one")
        #expect(try kc.run(["mv", "gitlab.com", "a", "gitlab.com", "c"], passcode: true).status == 0)
        #expect(try get(kc, "gitlab.com/c").out == "one" && get(kc, "gitlab.com/a").status == 66)
        #expect(try kc.run(["list", "gitlab.com"], passcode: true).out.hasSuffix("\tL\n"))

        let before = try kc.bytes()
        let exists = try kc.run(["mv", "github.com/a", "github.com/b"], passcode: true)
        #expect(exists.status == 73 && exists.stderr.contains("\"github.com\" \"b\" already exists"), "\(exists.stderr)")
        #expect(try kc.run(["cp", "github.com/a", "github.com/b"], passcode: true).status == 73)
        let missing = try kc.run(["mv", "nothing/here", "x/y"], passcode: true)
        #expect(missing.status == 66 && missing.stderr.contains("no secret for \"nothing\" \"here\""), "\(missing.stderr)")
        #expect(try kc.run(["cp", "a", "b", "c"], passcode: true).status == 64)
        #expect(try kc.run(["mv", "noslash", "x/y"], passcode: true).status == 64)
        #expect(try kc.run(["mv", "x/y", "x", "y"], passcode: true).status == 64)
        #expect(try kc.bytes() == before)

        #expect(try kc.run(["mv", "-f", "github.com/a", "github.com/b"], passcode: true).status == 0)
        #expect(try get(kc, "github.com/b").out == "one" && get(kc, "github.com/a").status == 66)
        #expect(try kc.run(["cp", "--force", "gitlab.com/c", "github.com/b"], passcode: true).status == 0)
    }

    @Test("find: service, account or label, any case; --json as list; exit 1 when nothing matches")
    func find() throws {
        let kc = try ready()
        #expect(try kc.run(["set", "GitHub.com", "deploy"], stdin: Data("secret-one".utf8), passcode: true).status == 0)
        #expect(try kc.run(["set", "--label", "Backup Bot", "s3", "writer"], stdin: Data("secret-two".utf8), passcode: true).status == 0)
        #expect(try kc.run(["set", "mail", "me"], stdin: Data("secret-three".utf8), passcode: true).status == 0)
        let found = try kc.run(["find", "github", "BACKUP"], passcode: true)
        #expect(found.status == 0)
        #expect(found.out.split(separator: "\n").map { $0.split(separator: "\t").prefix(2).joined(separator: " ") } == ["GitHub.com deploy", "s3 writer"])
        #expect(!found.out.contains("secret-"))
        let json = try kc.run(["find", "--json", "WRIT"], passcode: true)
        let items = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        #expect(items.count == 1 && items[0]["service"] as? String == "s3" && items[0]["label"] as? String == "Backup Bot" && items[0]["secret"] == nil)
        #expect(!json.out.contains("secret-"))
        #expect(try kc.run(["search", "github", "BACKUP"], passcode: true).out == found.out, "search is pass's other name for find")
        let none = try kc.run(["find", "nothing"], passcode: true)
        #expect(none.status == 1 && none.out.isEmpty)
        #expect(try kc.run(["find"], passcode: true).status == 64)
    }

    @Test("export | import fills a fresh keychain with the same entries; a terminal is refused without --force")
    func exportImport() throws {
        let kc = try ready()
        #expect(try kc.run(["set", "--label", "L", "a", "b"], stdin: Data("multi\nline é".utf8), passcode: true).status == 0)
        #expect(try kc.run(["set", "c", "d"], stdin: Data("x".utf8), passcode: true).status == 0)
        #expect(try kc.run(["identity", "new", "backups"], passcode: true).status == 0)
        let exported = try kc.run(["export", "--json"], passcode: true)
        #expect(exported.status == 0, "\(exported.stderr)")
        let items = try #require(try JSONSerialization.jsonObject(with: exported.stdout) as? [[String: String]])
        #expect(items == [["service": "a", "account": "b", "secret": "multi\nline é", "label": "L"],
                          ["service": "c", "account": "d", "secret": "x", "label": ""]])

        let fresh = try ready()
        let imported = try fresh.run(["import"], stdin: exported.stdout, passcode: true)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try fresh.run(["export"], passcode: true).stdout == exported.stdout)
        let list = { (k: KeychainFixture) in try k.run(["list"], passcode: true).out.split(separator: "\n").map { $0.split(separator: "\t").enumerated().filter { $0.offset != 2 }.map(\.element) } }
        #expect(try list(fresh) == list(kc))

        let tty = try Tools.run("python3", [AgeToolsTests.withTTY, "never asked", "--", Tools.binDir.appendingPathComponent("vfs-keychain").path, "export"],
                                environment: kc.environment.merging(["VFS_PASSCODE": kc.passcode]) { $1 })
        #expect(tty.status == 64 && tty.out.contains("standard output is a terminal") && !tty.out.contains("multi"), "\(tty.out)")
        let forced = try Tools.run("python3", [AgeToolsTests.withTTY, "never asked", "--", Tools.binDir.appendingPathComponent("vfs-keychain").path, "export", "--force"],
                                   environment: kc.environment.merging(["VFS_PASSCODE": kc.passcode]) { $1 })
        #expect(forced.status == 0 && forced.out.contains("\"secret\" : \"x\""), "\(forced.out)")
    }

    @Test("identity export writes an identity file that age -d -i and vfs-decrypt -i read")
    func identityExport() throws {
        let kc = try ready()
        let recipient = try kc.run(["identity", "new", "backups"], passcode: true).out.trimmingCharacters(in: .newlines)
        let plain = try kc.scratch.write("plain", Data("for age\n".utf8))
        #expect(try Tools.run("vfs-encrypt", ["-r", recipient, "-o", kc.scratch.path("c.age"), plain]).status == 0)
        let exported = try kc.run(["identity", "export", "backups"], passcode: true)
        #expect(exported.status == 0, "\(exported.stderr)")
        let lines = exported.out.split(separator: "\n")
        #expect(lines.count == 2 && lines[0] == "# public key: \(recipient)" && lines[1].hasPrefix("AGE-SECRET-KEY-1"))
        let key = try kc.scratch.write("key.txt", exported.stdout)
        let age = try Tools.run("age", ["-d", "-i", key, kc.scratch.path("c.age")])
        #expect(age.status == 0 && age.out == "for age\n", "\(age.stderr)")
        #expect(try Tools.run("vfs-decrypt", ["-i", key, kc.scratch.path("c.age")]).out == "for age\n")
        // A post-quantum identity: its AGE-SECRET-KEY-PQ-1… line, which vfs-decrypt -i reads.
        let pq = try kc.run(["identity", "new", "--pq", "vault"], passcode: true).out.trimmingCharacters(in: .newlines)
        #expect(try Tools.run("vfs-encrypt", ["-r", pq, "-o", kc.scratch.path("pq.age"), plain]).status == 0)
        let pqKey = try kc.run(["identity", "export", "vault"], passcode: true)
        #expect(pqKey.out.split(separator: "\n").last?.hasPrefix("AGE-SECRET-KEY-PQ-1") == true)
        let pqFile = try kc.scratch.write("pq.txt", pqKey.stdout)
        #expect(try Tools.run("vfs-decrypt", ["-i", pqFile, kc.scratch.path("pq.age")]).out == "for age\n")
        #expect(try kc.run(["identity", "export", "nobody"], passcode: true).status == 66)
        #expect(try kc.run(["identity", "export", "all"], passcode: true).status == 64)
        let tty = try Tools.run("python3", [AgeToolsTests.withTTY, "never asked", "--", Tools.binDir.appendingPathComponent("vfs-keychain").path,
                                            "identity", "export", "backups"], environment: kc.environment.merging(["VFS_PASSCODE": kc.passcode]) { $1 })
        #expect(tty.status == 64 && !tty.out.contains("AGE-SECRET-KEY"), "\(tty.out)")
    }

    @Test("-c copies through the clipboard tool on a pipe, a detached child clears it after VFS_CLIP_TIME; no tool is 69")
    func clipboard() throws {
        let kc = try ready()
        #expect(try kc.run(["set", "github.com", "bot"], stdin: Data("s3cret".utf8), passcode: true).status == 0)
        let bin = kc.scratch.path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let log = kc.scratch.path("clip.log")
        let xclip = try script(kc, "bin/xclip", "{ printf 'call %s:' \"$*\"; cat; printf '\\n'; } >> \(log)\n")
        _ = xclip
        let env = ["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"), "DISPLAY": ":99", "WAYLAND_DISPLAY": "",
                   "VFS_CLIP_TIME": "1s"]
        let copied = try kc.run(["get", "-c", "github.com/bot"], passcode: true, environment: env)
        #expect(copied.status == 0 && copied.out.isEmpty, "\(copied.stderr)")
        #expect(copied.stderr.contains("cleared in 1s"))
        #expect(waitForLines(log, 2) == ["call -selection clipboard:s3cret", "call -selection clipboard:"])

        try? FileManager.default.removeItem(atPath: log)
        let made = try kc.run(["generate", "--clip", "github.com", "ci"], passcode: true, environment: env)
        #expect(made.status == 0 && made.out.isEmpty, "\(made.stderr)")
        let calls = waitForLines(log, 2)
        #expect(calls.count == 2 && calls[1] == "call -selection clipboard:")
        #expect(calls.first == "call -selection clipboard:" + (try get(kc, "github.com/ci").out))

        let noDisplay = try kc.run(["get", "-c", "github.com/bot"], passcode: true, environment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
        #expect(noDisplay.status == 69 && noDisplay.out.isEmpty && noDisplay.stderr.contains("no clipboard"), "\(noDisplay.stderr)")
        let noTool = try kc.run(["get", "-c", "github.com/bot"], passcode: true, environment: ["DISPLAY": ":99", "WAYLAND_DISPLAY": "", "PATH": kc.scratch.path("none")])
        #expect(noTool.status == 69 && noTool.stderr.contains("xclip or xsel"), "\(noTool.stderr)")
        let bare = try kc.run(["get", "-c", "github.com/bot"], passcode: true, environment: env.merging(["VFS_CLIP_TIME": "45"]) { $1 })
        #expect(bare.status == 64 && bare.stderr.contains("no unit"), "\(bare.stderr)")
        let before = try kc.bytes()
        #expect(try kc.run(["generate", "-c", "x", "y"], passcode: true, environment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""]).status == 69)
        #expect(try kc.bytes() == before)
    }

    /// The lines of `path` once it has `count` of them (up to 30 s; the clearing child runs detached).
    func waitForLines(_ path: String, _ count: Int) -> [String] {
        for _ in 0..<300 {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
                if lines.count >= count { return lines }
            }
            usleep(100_000)
        }
        return (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
    }
}
