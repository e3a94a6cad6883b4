import Foundation
import Testing
@testable import VFSCore
import VFSTestSupport

/// age plugins through age-plugin-vfstest (Tests/age-plugin-vfstest): interop with age
/// both ways, -j, several plugins and native recipients in one file, labels, the
/// plugin's PIN prompt on a terminal, every misbehaviour failing cleanly, and hostile
/// plugin names refused before anything runs.
@Suite("age plugins")
struct AgePluginTests {
    /// The plugin on PATH (the build folder first), and `extra`.
    static func environment(_ extra: [String: String] = [:], path: String? = nil) -> [String: String] {
        let inherited = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return ["PATH": (path.map { $0 + ":" } ?? "") + Tools.binDir.path + ":" + inherited].merging(extra) { $1 }
    }

    /// No PIN asked: age runs without a terminal in the tests.
    static let noPIN = environment(["VFSTEST_NO_PIN": "1"])

    struct Fixture {
        let scratch: TestFolder
        let input: String
        let recipient: String
        let stub: String
        let plain = Data("plugged in\n".utf8)

        init() throws {
            scratch = try TestFolder("plugin")
            input = try scratch.write("in.txt", plain)
            let printed = try Tools.run("age-plugin-vfstest", ["--recipient"], environment: AgePluginTests.environment())
            #expect(printed.status == 0, "\(printed.stderr)")
            recipient = printed.out.trimmingCharacters(in: .whitespacesAndNewlines)
            let identity = try Tools.run("age-plugin-vfstest", ["--identity"], environment: AgePluginTests.environment())
            stub = try scratch.write("stub.txt", identity.stdout)
        }
    }

    @Test("vfs-encrypt -r age1vfstest1… decrypts with age -d -i the stub, and age's file with vfs-decrypt; -j both ways")
    func interopWithAge() throws {
        let f = try Fixture()
        #expect(f.recipient.hasPrefix("age1vfstest1"))
        #expect(try f.scratch.text("stub.txt").contains("AGE-PLUGIN-VFSTEST-1"))
        let env = Self.noPIN
        let ours = try Tools.run("vfs-encrypt", ["-r", f.recipient, "-o", f.scratch.path("ours.age"), f.input], environment: env)
        #expect(ours.status == 0, "\(ours.stderr)")
        let header = try f.scratch.text("ours.age")
        #expect(header.contains("\n-> vfstest "), "the plugin's own stanza type")
        let byAge = try Tools.run("age", ["-d", "-i", f.stub, f.scratch.path("ours.age")], environment: env)
        #expect(byAge.status == 0 && byAge.stdout == f.plain, "\(byAge.stderr)")
        let ageJ = try Tools.run("age", ["-d", "-j", "vfstest", f.scratch.path("ours.age")], environment: env)
        #expect(ageJ.status == 0 && ageJ.stdout == f.plain, "\(ageJ.stderr)")

        #expect(try Tools.run("age", ["-r", f.recipient, "-o", f.scratch.path("theirs.age"), f.input], environment: env).status == 0)
        let byUs = try Tools.run("vfs-decrypt", ["-i", f.stub, "-o", f.scratch.path("theirs.out"), f.scratch.path("theirs.age")], environment: env)
        #expect(byUs.status == 0, "\(byUs.stderr)")
        #expect(try f.scratch.read("theirs.out") == f.plain)
        #expect(byUs.stderr.contains("vfs-decrypt: age-plugin-vfstest: unwrapping with the vfstest key"), "the plugin's msg is shown")
        let usJ = try Tools.run("vfs-decrypt", ["-j", "vfstest", f.scratch.path("theirs.age")], environment: env)
        #expect(usJ.status == 0 && usJ.stdout == f.plain, "\(usJ.stderr)")

        // -j and -i with a stub encrypt too: the plugin wraps for its identity (add-identity).
        let log = f.scratch.path("log")
        let toJ = try Tools.run("vfs-encrypt", ["-j", "vfstest", "-o", f.scratch.path("j.age"), f.input],
                                environment: env.merging(["VFSTEST_LOG": log]) { $1 })
        #expect(toJ.status == 0, "\(toJ.stderr)")
        let commands = try f.scratch.text("log").split(separator: "\n").filter { !$0.hasPrefix("pid ") && !$0.hasPrefix("grease-") }
        // Phase 1 (grease aside), then the client's "ok" to the plugin's stanza.
        #expect(commands == ["add-identity", "wrap-file-key", "extension-labels", "done", "ok"], "\(commands)")
        #expect(try Tools.run("age", ["-d", "-j", "vfstest", f.scratch.path("j.age")], environment: env).stdout == f.plain)
        #expect(try Tools.run("vfs-encrypt", ["-i", f.stub, "-o", f.scratch.path("i.age"), f.input], environment: env).status == 0)
        #expect(try Tools.run("age", ["-d", "-i", f.stub, f.scratch.path("i.age")], environment: env).stdout == f.plain)
    }

    @Test("several plugins and native recipients in one file; each opens it")
    func severalPlugins() throws {
        let f = try Fixture()
        // A second plugin: the same program under another name serves "other".
        try FileManager.default.createSymbolicLink(atPath: f.scratch.path("age-plugin-other"),
                                                   withDestinationPath: Tools.binDir.appendingPathComponent("age-plugin-vfstest").path)
        let env = Self.environment(["VFSTEST_NO_PIN": "1"], path: f.scratch.path)
        let other = try AgePlugin.encodeRecipient(name: "other", data: #require(Bech32.decode(f.recipient)).data)!
        let native = try Tools.run("vfs-keygen", ["-o", f.scratch.path("key.txt")])
        let nativeRecipient = native.stderr.replacingOccurrences(of: "Public key: ", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try Tools.run("vfs-encrypt", ["-r", f.recipient, "-r", other, "-r", nativeRecipient, "-o", f.scratch.path("all.age"), f.input],
                                environment: env)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try f.scratch.text("all.age").components(separatedBy: "\n-> vfstest ").count == 3)
        #expect(try Tools.run("vfs-decrypt", ["-i", f.scratch.path("key.txt"), f.scratch.path("all.age")]).stdout == f.plain)
        #expect(try Tools.run("vfs-decrypt", ["-j", "other", f.scratch.path("all.age")], environment: env).stdout == f.plain)
        #expect(try Tools.run("age", ["-d", "-j", "vfstest", f.scratch.path("all.age")], environment: env).stdout == f.plain)
    }

    @Test("a plugin's labels keep the mixing rules: postquantum goes with age1pq1…, not with X25519")
    func labels() throws {
        let f = try Fixture()
        let classic = try Tools.run("vfs-keygen", ["-o", f.scratch.path("c.txt")]).stderr
            .replacingOccurrences(of: "Public key: ", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
        let pq = try Tools.run("vfs-keygen", ["--pq", "-o", f.scratch.path("pq.txt")]).stderr
            .replacingOccurrences(of: "Public key: ", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
        let labelled = Self.environment(["VFSTEST_NO_PIN": "1", "VFSTEST_LABELS": "postquantum"])
        let withPQ = try Tools.run("vfs-encrypt", ["-r", f.recipient, "-r", pq, "-o", f.scratch.path("pq.age"), f.input], environment: labelled)
        #expect(withPQ.status == 0, "\(withPQ.stderr)")
        #expect(try Tools.run("vfs-decrypt", ["-i", f.scratch.path("pq.txt"), f.scratch.path("pq.age")]).stdout == f.plain)
        let mixed = try Tools.run("vfs-encrypt", ["-r", f.recipient, "-r", classic, "-o", f.scratch.path("m.age"), f.input], environment: labelled)
        #expect(mixed.status == 64 && mixed.stderr.contains("post-quantum (age1pq1…) and classic recipients can't be mixed"), "\(mixed.stderr)")
        #expect(!f.scratch.exists("m.age"))
        // Without the label, the plugin is classic: not with age1pq1….
        let unlabelled = try Tools.run("vfs-encrypt", ["-r", pq, "-r", f.recipient, "-o", f.scratch.path("u.age"), f.input], environment: Self.noPIN)
        #expect(unlabelled.status == 64 && unlabelled.stderr.contains("can't be mixed"), "\(unlabelled.stderr)")
        #expect(!f.scratch.exists("u.age"))
        // Labels of its own: not with a plugin that has none.
        let own = try Tools.run("vfs-encrypt", ["-r", f.recipient, "-r", classic, "-o", f.scratch.path("o.age"), f.input],
                                environment: Self.environment(["VFSTEST_LABELS": "hardware"]))
        #expect(own.status == 64 && own.stderr.contains("incompatible recipients: labels [hardware] and []"), "\(own.stderr)")
    }

    @Test("the plugin's PIN prompt reaches the terminal; a wrong PIN fails with 77; no terminal fails at once")
    func prompt() throws {
        let f = try Fixture()
        #expect(try Tools.run("vfs-encrypt", ["-r", f.recipient, "-o", f.scratch.path("f.age"), f.input], environment: Self.environment()).status == 0)
        let decrypt = Tools.binDir.appendingPathComponent("vfs-decrypt").path
        // The prompt word is the whole phrase: the plugin's earlier message "unwrapping…" holds
        // "pin" too, and a second answer typed after the read would be echoed by the terminal.
        let typed = try Tools.run("python3", [AgeToolsTests.withTTY, "Enter the PIN", "1234", "--", decrypt, "-i", f.stub, "-o", f.scratch.path("f.out"),
                                              f.scratch.path("f.age")], environment: Self.environment())
        #expect(typed.status == 0, "\(typed.out)")
        #expect(typed.out.contains("Enter the PIN of vfstest:"))
        #expect(!typed.out.contains("1234"), "the PIN was echoed: \(typed.out)")
        #expect(try f.scratch.read("f.out") == f.plain)
        let wrong = try Tools.run("python3", [AgeToolsTests.withTTY, "Enter the PIN", "9999", "--", decrypt, "-i", f.stub, "-o", f.scratch.path("w.out"),
                                              f.scratch.path("f.age")], environment: Self.environment())
        #expect(wrong.status == 77, "\(wrong.out)")
        #expect(wrong.out.contains("vfs-decrypt: error: plugin age-plugin-vfstest: wrong PIN"))
        #expect(!f.scratch.exists("w.out"))
        let none = try Tools.run("setsid", ["-w", decrypt, "-i", f.stub, "-o", f.scratch.path("n.out"), f.scratch.path("f.age")],
                                 environment: Self.environment())
        #expect(none.status == 64, "\(none.stderr)")
        #expect(none.stderr.contains("vfs-decrypt: error: plugin age-plugin-vfstest asks \"Enter the PIN of vfstest:\" and there is no terminal to ask on"))
        #expect(!f.scratch.exists("n.out"))
    }

    @Test("a plugin that gives an scrypt stanza beside its own: vfs-encrypt refuses (65) and writes nothing, as vfs-decrypt would refuse the header (issue 43, item 13)")
    func scryptBeside() throws {
        let f = try Fixture()
        let env = Self.environment(["VFSTEST_NO_PIN": "1", "VFSTEST_MISBEHAVE": "scrypt-beside"])
        let enc = try Tools.run("vfs-encrypt", ["-r", f.recipient, "-o", f.scratch.path("bad.age"), f.input], environment: env)
        #expect(enc.status == 65, "\(enc.stderr)")
        #expect(enc.stderr.contains("an scrypt stanza must be the only stanza in the header"), "\(enc.stderr)")
        #expect(!f.scratch.exists("bad.age"))
    }

    @Test("each misbehaviour fails cleanly: 65 or 77, a clear error, no output, no plugin left running", arguments: [
        ("wrong-stanza", "sent a recipient-stanza for file key \"1\", not 0", "sent a file key of 5 bytes, not 16", Int32(65)),
        ("early-exit", "exited before it finished", "exited before it finished", 65),
        ("unknown-command", "the client answered unsupported to an unknown command", "the client answered unsupported to an unknown command", 77),
        ("huge", "sent a message larger than 1 MiB", "sent a message larger than 1 MiB", 65),
        ("hang", "did not finish within 2 seconds", "did not finish within 2 seconds", 65),
    ])
    func misbehaviour(_ how: String, _ encrypting: String, _ decrypting: String, _ status: Int32) throws {
        let f = try Fixture()
        #expect(try Tools.run("vfs-encrypt", ["-r", f.recipient, "-o", f.scratch.path("good.age"), f.input], environment: Self.noPIN).status == 0)
        let log = f.scratch.path("log")
        let env = Self.environment(["VFSTEST_NO_PIN": "1", "VFSTEST_MISBEHAVE": how, "VFSTEST_LOG": log, "VFS_PLUGIN_TIMEOUT": "2"])
        let enc = try Tools.run("vfs-encrypt", ["-r", f.recipient, "-o", f.scratch.path("bad.age"), f.input], environment: env)
        #expect(enc.status == status, "\(enc.stderr)")
        #expect(enc.stderr.contains("vfs-encrypt: error: plugin age-plugin-vfstest") && enc.stderr.contains(encrypting), "\(enc.stderr)")
        #expect(!f.scratch.exists("bad.age"))
        let dec = try Tools.run("vfs-decrypt", ["-i", f.stub, "-o", f.scratch.path("bad.out"), f.scratch.path("good.age")], environment: env)
        #expect(dec.status == status, "\(dec.stderr)")
        #expect(dec.stderr.contains("vfs-decrypt: error: plugin age-plugin-vfstest") && dec.stderr.contains(decrypting), "\(dec.stderr)")
        #expect(!f.scratch.exists("bad.out"))
        // The tool reaped (or killed) every plugin it ran before it exited.
        let pids = try f.scratch.text("log").split(separator: "\n").filter { $0.hasPrefix("pid ") }.compactMap { Int32($0.dropFirst(4)) }
        #expect(pids.count == 2)
        for pid in pids { #expect(kill(pid, 0) == -1 && errno == ESRCH, "plugin \(pid) still runs") }
    }

    @Test("a plugin that leaves a child running: the run ends the plugin's process group, so nothing it started outlives vfs-encrypt or vfs-decrypt (issue 43, item 13)")
    func childrenEnded() throws {
        let f = try Fixture()
        let log = f.scratch.path("log")
        let env = Self.environment(["VFSTEST_NO_PIN": "1", "VFSTEST_MISBEHAVE": "child", "VFSTEST_LOG": log])
        let enc = try Tools.run("vfs-encrypt", ["-r", f.recipient, "-o", f.scratch.path("c.age"), f.input], environment: env)
        #expect(enc.status == 0, "\(enc.stderr)")
        let dec = try Tools.run("vfs-decrypt", ["-i", f.stub, "-o", f.scratch.path("c.out"), f.scratch.path("c.age")], environment: env)
        #expect(dec.status == 0, "\(dec.stderr)")
        #expect(FileManager.default.contents(atPath: f.scratch.path("c.out")) == f.plain)
        let children = try f.scratch.text("log").split(separator: "\n").filter { $0.hasPrefix("child ") }.compactMap { Int32($0.dropFirst(6)) }
        #expect(children.count == 2)
        // Killed with the group: gone, or a zombie waiting to be reaped (by whoever inherited it).
        func ended(_ pid: Int32) -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return true }
            return stat[stat.index(after: close)...].drop(while: { $0 == " " }).first == "Z"
        }
        for child in children {
            #expect(eventually(10) { ended(child) }, "child \(child) still runs")
            if !ended(child) { kill(child, SIGKILL) }
        }
    }

    @Test("hostile plugin names (../x, /bin/sh) are refused before anything runs")
    func hostileNames() throws {
        let f = try Fixture()
        // Programs that a name taken as a path would reach: age-plugin-../x and age-plugin-/bin/sh under PATH.
        let marker = f.scratch.path("ran")
        let script = Data("#!/bin/sh\ntouch \(marker)\n".utf8)
        for path in ["age-plugin-../x", "age-plugin-/bin/sh"] {
            let full = f.scratch.path("bin/" + path)
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try script.write(to: URL(fileURLWithPath: full))
            chmod(full, 0o755)
        }
        let env = Self.environment(path: f.scratch.path("bin"))
        let hostileRecipient = Bech32.encode(hrp: "age1../x", data: [1, 2, 3])
        let hostileIdentity = try f.scratch.write("hostile.txt", Bech32.encode(hrp: "AGE-PLUGIN-../X-", data: [], uppercase: true) + "\n")
        #expect(try Tools.run("vfs-encrypt", ["-r", f.recipient, "-o", f.scratch.path("f.age"), f.input], environment: Self.noPIN).status == 0)
        let runs: [(String, [String], Int32)] = [
            ("vfs-decrypt", ["-j", "../x", f.scratch.path("f.age")], 64),
            ("vfs-decrypt", ["-j", "/bin/sh", f.scratch.path("f.age")], 64),
            ("vfs-encrypt", ["-j", "/bin/sh", "-o", f.scratch.path("o.age"), f.input], 64),
            ("vfs-encrypt", ["-r", hostileRecipient, "-o", f.scratch.path("o.age"), f.input], 64),
            ("vfs-decrypt", ["-i", hostileIdentity, f.scratch.path("f.age")], 65),
        ]
        for (tool, arguments, status) in runs {
            let run = try Tools.run(tool, arguments, environment: env)
            #expect(run.status == status, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("invalid plugin name"), "\(arguments): \(run.stderr)")
        }
        #expect(!f.scratch.exists("ran"), "a hostile name ran a program")
        #expect(!f.scratch.exists("o.age"))
        // age refuses them too.
        #expect(try Tools.run("age", ["-d", "-j", "../x", f.scratch.path("f.age")], environment: env).status != 0)
        #expect(!f.scratch.exists("ran"))
    }

    @Test("a plugin not on PATH: 69 with a hint, nothing written")
    func notFound() throws {
        let f = try Fixture()
        let missing = try AgePlugin.encodeRecipient(name: "missing", data: #require(Bech32.decode(f.recipient)).data)!
        let run = try Tools.run("vfs-encrypt", ["-r", missing, "-o", f.scratch.path("m.age"), f.input], environment: Self.environment())
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("vfs-encrypt: error: plugin age-plugin-missing not found on PATH"))
        #expect(run.stderr.contains("hint: install age-plugin-missing"))
        #expect(!f.scratch.exists("m.age"))
    }
}
