import Foundation
import Testing
import VFSTestSupport

/// What a user of age, GNU shred, pass and getopt tools types, and what the tools
/// answer: joined option values, accepted habits, "did you mean", one exit status for
/// one situation in every tool.
@Suite("peers' habits and consistency")
struct HabitsTests {
    func key(_ scratch: TestFolder) throws -> (path: String, recipient: String) {
        let run = try Tools.run("vfs-keygen", ["-o", scratch.path("key.txt")])
        return (scratch.path("key.txt"), run.stderr.replacingOccurrences(of: "Public key: ", with: "").trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("getopt: -onotes.age, -n3, -vz -n2 and -rKEY as a getopt tool reads them")
    func joinedValues() throws {
        let scratch = try TestFolder()
        let k = try key(scratch)
        let input = try scratch.write("notes", Data("hello\n".utf8))
        let enc = try Tools.run("vfs-encrypt", ["-r\(k.recipient)", "-o\(scratch.path("notes.age"))", input])
        #expect(enc.status == 0, "\(enc.stderr)")
        #expect(try Tools.run("vfs-decrypt", ["-i\(k.path)", scratch.path("notes.age")]).out == "hello\n")
        _ = try scratch.write("a", Data(count: 5000))
        _ = try scratch.write("b", Data(count: 5000))
        let a = try Tools.run("vfs-shred", ["-n3", "-v", scratch.path("a")])
        #expect(a.status == 0, "\(a.stderr)")
        let b = try Tools.run("vfs-shred", ["-vz", "-n2", scratch.path("b")])
        #expect(b.status == 0, "\(b.stderr)")
        #expect(b.stderr.contains("destroyed"))
        #expect(!scratch.exists("a") && !scratch.exists("b"))
    }

    @Test("vfs-shred -u is GNU's habit and the default; -u with -k is refused; help opens with the differences from GNU shred")
    func shredGNU() throws {
        let scratch = try TestFolder()
        let file = try scratch.write("f", Data(count: 100))
        #expect(try Tools.run("vfs-shred", ["-u", file]).status == 0)
        #expect(!scratch.exists("f"))
        let kept = try scratch.write("g", Data(count: 100))
        let both = try Tools.run("vfs-shred", ["-u", "-k", kept])
        #expect(both.status == 64 && both.stderr.contains("-u removes and -k keeps"))
        #expect(scratch.exists("g"))
        let help = try Tools.run("vfs-shred", ["--help"]).out
        let discussion = help.components(separatedBy: "OVERVIEW:")[1].split(separator: "\n").prefix(6).joined(separator: "\n")
        #expect(discussion.contains("Defaults that differ from GNU shred") && discussion.contains("GNU's -u is accepted"), "\(discussion)")
    }

    @Test("vfs-shred --json lists the paths destroyed and skipped; --json-lines one object a line; -q silences the tmpfs warning")
    func shredAudit() throws {
        let scratch = try TestFolder()
        try FileManager.default.createDirectory(atPath: scratch.path("d/sub"), withIntermediateDirectories: true)
        _ = try scratch.write("d/one", Data(count: 10))
        _ = try scratch.write("d/sub/two", Data(count: 20))
        let fifo = scratch.path("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let run = try Tools.run("vfs-shred", ["-r", "--json", scratch.path("d"), fifo])
        #expect(run.status == 1)
        let summary = try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any] ?? [:]
        let destroyed = summary["destroyed"] as? [String] ?? []
        #expect(Set(destroyed) == [scratch.path("d/one"), scratch.path("d/sub/two"), scratch.path("d/sub") + "/", scratch.path("d") + "/"], "\(destroyed)")
        #expect((summary["skipped"] as? [[String: Any]])?.first?["path"] as? String == fifo)
        // JSON Lines: each event, then the summary.
        _ = try scratch.write("e", Data(count: 30))
        let lines = try Tools.run("vfs-shred", ["--json-lines", scratch.path("e"), fifo])
        let objects = lines.out.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == 3 && objects.allSatisfy { $0 != nil }, "\(lines.out)")
        let destroyedLine = objects.first { $0?["event"] as? String == "destroyed" } ?? nil
        #expect(destroyedLine?["path"] as? String == scratch.path("e") && destroyedLine?["bytes"] as? Int == 30)
        #expect(objects.contains { $0?["event"] as? String == "skipped" && $0?["path"] as? String == fifo })
        #expect(objects.last??["event"] as? String == "summary" && objects.last??["files"] as? Int == 1)
        #expect(try Tools.run("vfs-shred", ["--json", "--json-lines", fifo]).status == 64)
        // tmpfs: warned without -q, silent with -q (still in --json).
        let folder = "/dev/shm/vfs-habits-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FileManager.default.createFile(atPath: folder + "/x", contents: Data(count: 10)))
        #expect(FileManager.default.createFile(atPath: folder + "/y", contents: Data(count: 10)))
        let loud = try Tools.run("vfs-shred", [folder + "/x"])
        #expect(loud.status == 0 && loud.stderr.contains("warning:") && loud.stderr.contains("tmpfs"), "\(loud.stderr)")
        let quiet = try Tools.run("vfs-shred", ["-q", "--json", folder + "/y"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
        #expect(quiet.out.contains("tmpfs"))
    }

    @Test("vfs-shred on a terminal: a progress line with the total and a percentage, for a tree too")
    func shredProgress() throws {
        let scratch = try TestFolder()
        try FileManager.default.createDirectory(atPath: scratch.path("tree"), withIntermediateDirectories: true)
        _ = try scratch.write("tree/big", testBytes(17 << 20, seed: 3))
        let run = try Tools.run("python3", [AgeToolsTests.withTTY, "never-asked", "", "--",
                                            Tools.binDir.appendingPathComponent("vfs-shred").path, "-r", scratch.path("tree")])
        #expect(run.status == 0, "\(run.out)")
        #expect(run.out.contains("/ 17.0 MiB [") && run.out.contains("%"), "\(run.out)")
        #expect(!scratch.exists("tree"))
    }

    @Test("--version names the tool")
    func version() throws {
        for tool in ["vfs-encrypt", "vfs-shred", "vfs-policy", "vfs-keychain"] {
            let run = try Tools.run(tool, ["--version"])
            #expect(run.status == 0 && run.out.hasPrefix("\(tool) ") && run.out.split(separator: " ").count == 2, "\(run.out)")
        }
    }

    @Test("options before the subcommand are taken; a mistyped subcommand gets did-you-mean")
    func subcommands() throws {
        let scratch = try TestFolder()
        let policy = scratch.path("p.json")
        #expect(try Tools.run("vfs-policy", ["add", "viewer", "--policy", policy]).status == 0)
        let before = try Tools.run("vfs-policy", ["--policy", policy, "list"])
        #expect(before.status == 0 && before.out.contains("viewer"), "\(before.stderr)")
        let chek = try Tools.run("vfs-policy", ["chek", "viewer", "--policy", policy])
        #expect(chek.status == 64)
        #expect(chek.stderr.hasPrefix("vfs-policy: error: unknown command \"chek\"\n"))
        #expect(chek.stderr.contains("vfs-policy: hint: did you mean vfs-policy check?"), "\(chek.stderr)")
        // (show, insert, ls and rm are pass's verbs, taken as aliases: cat is not one.)
        let show = try Tools.run("vfs-keychain", ["cat", "github.com"])
        #expect(show.status == 64 && show.stderr.contains("vfs-keychain get"), "\(show.stderr)")
        #expect(show.stderr.contains("the commands: init, set, get") && !show.stderr.contains("agent-serve"), "\(show.stderr)")
        let kc = try KeychainFixture()
        try kc.initialise()
        #expect(try kc.run(["--passcode-file", kc.passcodeFile, "set", "svc", "acct"], stdin: Data("s3".utf8)).status == 0)
        #expect(try kc.run(["--passcode-file", kc.passcodeFile, "get", "svc", "acct"]).out == "s3")
    }

    @Test("passcode vs passphrase, stdin twice, -d/-e: age's plain messages and a did-you-mean")
    func confusions() throws {
        let scratch = try TestFolder()
        let k = try key(scratch)
        let pass = try scratch.write("pass", Data("pw\n".utf8))
        let kc = try KeychainFixture()
        let noun = try kc.run(["list", "--passphrase-file", pass])
        #expect(noun.status == 64)
        #expect(noun.stderr.contains("error: unknown option \"--passphrase-file\"") && noun.stderr.contains("did you mean --passcode-file?"), "\(noun.stderr)")
        let twice = try Tools.run("vfs-decrypt", ["-i", "-"], stdin: Data())
        #expect(twice.status == 64)
        #expect(twice.stderr.hasPrefix("vfs-decrypt: error: standard input is used for multiple purposes\n"), "\(twice.stderr)")
        let twiceEnc = try Tools.run("vfs-encrypt", ["-p", "--passphrase-fd", "0"], stdin: Data())
        #expect(twiceEnc.status == 64 && twiceEnc.stderr.contains("standard input is used for multiple purposes"))
        let input = try scratch.write("in", Data("x".utf8))
        let e = try Tools.run("vfs-encrypt", ["-e", "-r", k.recipient, "-o", scratch.path("x.age"), input])
        #expect(e.status == 0, "\(e.stderr)")
        #expect(try Tools.run("vfs-decrypt", ["--decrypt", "-i", k.path, scratch.path("x.age")]).out == "x")
        let d = try Tools.run("vfs-encrypt", ["-d", "-i", k.path, scratch.path("x.age")])
        #expect(d.status == 64 && d.stderr.contains("vfs-decrypt"), "\(d.stderr)")
        let en = try Tools.run("vfs-decrypt", ["-e", input])
        #expect(en.status == 64 && en.stderr.contains("vfs-encrypt"), "\(en.stderr)")
    }

    @Test("vfs-keychain takes pass's single-path names: SERVICE/ACCOUNT")
    func pathNames() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        #expect(try kc.run(["set", "github.com/deploy-bot"], stdin: Data("tok".utf8), passcode: true).status == 0)
        #expect(try kc.run(["get", "github.com", "deploy-bot"], passcode: true).out == "tok")
        #expect(try kc.run(["get", "github.com/deploy-bot"], passcode: true).out == "tok")
        let missing = try kc.run(["get", "github.com"], passcode: true)
        #expect(missing.status == 64 && missing.stderr.contains("SERVICE/ACCOUNT"), "\(missing.stderr)")
        #expect(try kc.run(["delete", "github.com/deploy-bot"], passcode: true).status == 0)
        #expect(try kc.run(["get", "github.com/deploy-bot"], passcode: true).status == 66)
    }

    @Test("an empty passcode or passphrase file is a usage error (64) in every tool, not a damaged keychain")
    func emptySecretFile() throws {
        let scratch = try TestFolder()
        let empty = try scratch.write("empty", Data())
        let kc = try KeychainFixture()
        try kc.initialise()
        let list = try kc.run(["list", "--passcode-file", empty])
        #expect(list.status == 64 && list.stderr.contains("is empty"), "\(list.stderr)")
        let p = try Tools.run("vfs-encrypt", ["-p", "--passphrase-file", empty, try scratch.write("in", Data("x".utf8))])
        #expect(p.status == 64 && p.stderr.contains("is empty"), "\(p.stderr)")
    }

    @Test("the policy file and its log are created 0600")
    func policyModes() throws {
        let scratch = try TestFolder()
        let policy = scratch.path("p.json")
        #expect(try Tools.run("vfs-policy", ["add", "viewer", "--policy", policy]).status == 0)
        for path in [policy, policy + ".log"] {
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(path)")
        }
    }
}
