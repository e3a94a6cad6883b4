import Foundation
import Testing
import VFSTestSupport
import VFSCore

/// A keychain of its own for one test: its file, its agent folder, a passcode file,
/// and a low scrypt work factor so tests stay fast. `stopAgent()` runs at the end of
/// every test that unlocks (and the agent also exits once its folder is removed).
final class KeychainFixture {
    let scratch: TestFolder
    let passcode = "correct horse battery"
    let workFactor = "8"

    init() throws {
        scratch = try TestFolder()
        try FileManager.default.createDirectory(atPath: scratch.path("run"), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try scratch.write("passcode", Data((passcode + "\n").utf8))
    }

    deinit { stopAgent() }

    var keychainPath: String { scratch.path("home/keychain") }
    var passcodeFile: String { scratch.path("passcode") }

    /// The environment that points the tools at this keychain and agent folder.
    var environment: [String: String] {
        ["VFS_KEYCHAIN": keychainPath, "XDG_RUNTIME_DIR": scratch.path("run")]
    }

    /// Runs a tool against this keychain; `passcode` adds VFS_PASSCODE.
    @discardableResult
    func run(_ arguments: [String], stdin: Data? = nil, passcode: Bool = false, environment extra: [String: String] = [:]) throws -> Run {
        try runTool("vfs-keychain", arguments, stdin: stdin, passcode: passcode, environment: extra)
    }

    @discardableResult
    func runTool(_ tool: String, _ arguments: [String], stdin: Data? = nil, passcode: Bool = false,
                 environment extra: [String: String] = [:]) throws -> Run {
        var env = environment
        if passcode { env["VFS_PASSCODE"] = self.passcode }
        env.merge(extra) { _, new in new }
        return try Tools.run(tool, arguments, stdin: stdin, environment: env)
    }

    /// A new keychain (passcode only, or with questions and answers).
    func initialise(questions: [String] = [], answers: [String] = []) throws {
        var arguments = ["init", "--work-factor", workFactor, "--passcode-file", passcodeFile]
        if !questions.isEmpty {
            arguments += ["--questions", try scratch.write("questions", Data(questions.map { $0 + "\n" }.joined().utf8)),
                          "--answers-file", try scratch.write("answers", Data(answers.map { $0 + "\n" }.joined().utf8))]
        }
        let run = try self.run(arguments)
        #expect(run.status == 0, "\(run.stderr)")
    }

    func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: keychainPath)) }

    /// Opens the keychain in process (VFSCore), as a reader would, with the passcode.
    func openInProcess(passcode: String? = nil) throws -> [KeychainEntry] {
        let sealed = try SealedKeychain(bytes: Array(try bytes()), path: keychainPath)
        let key = try sealed.unlock(passcode: SecretBytes(copying: Array((passcode ?? self.passcode).utf8)))
        return try sealed.open(masterKey: key)
    }

    /// A keychain written by the format-1 code (see KeychainFormatTests.formatOne):
    /// passcode "old passcode", questions answered Rex and Lyon, github/deploy = s3cret,
    /// identity "work".
    static let formatOne = Array(Data(base64Encoded: """
        VkZTS0VZQ0gAAaeX6WrrQTqTpP73xjjYiuECAQQIAa2rQvzShBdY0ENleTjcM3Seut/xZeJlYA6DqyF3D0tEERuzsEGGXjFFXi7TjS+SQG6Ipvo2V5KFrWhm
        Vs3/vK0CBAgBZrY2sMqb9fk+aV3Z9Bck5rOnsMg9dGatcJe4Gzj2pqqZm4OIr7FARgDzPpdcI1BxvLnQDrq+CFizMl0UarSLbwIACkZpcnN0IHBldD8ADkNp
        dHkgb2YgYmlydGg/ChCY9/Jp6xbH7eQjDlbYLcRhdOLOubQbBXFzshRsPLaiuwMwM2blRY8xyCoAAACAIFdmYOOHxXVKT/rvjHMuffLV7Hi+Rv24SQ8r/87E
        6w89vz2tACdmo5mUGd3FqAj4JD3yixraMtJNlbphhwPNdBKt3HS0vpqMxSsqma3wpZwVFAYss5hKaCh23i3rcdB6Mvz5AUke4pTTJybe2Vt1rP17bq/n86hL
        P1ryjJGxhmk=
        """, options: .ignoreUnknownCharacters)!)

    func unlock(timeout: String = "5m") throws {
        let run = try self.run(["unlock", "--timeout", timeout, "--passcode-file", passcodeFile])
        #expect(run.status == 0, "\(run.stderr)")
    }

    func stopAgent() { _ = try? run(["lock"]) }

    var agentFolder: String { scratch.path("run/vfs") }

    /// True once `pid` has exited (gone, or a zombie nobody reaped), waiting up to 5 s.
    static func waitForExit(_ pid: Int32) -> Bool {
        for _ in 0..<100 {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), !stat.contains(") Z ") else { return true }
            usleep(50_000)
        }
        return false
    }

    /// Pids of the processes whose command line contains `text`.
    static func processes(mentioning text: String) throws -> [Int32] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap { Int32($0) }.filter { pid in
            guard let cmdline = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")) else { return false }
            return String(decoding: cmdline, as: UTF8.self).contains(text)
        }
    }

    func agentSockets() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: agentFolder)) ?? []).filter { $0.hasSuffix(".sock") }
    }
}

func fileMode(_ path: String) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
}

@Suite("vfs-keychain end to end")
struct KeychainTests {
    @Test("init, set, get, list and delete; exact bytes; 0600 in a 0700 folder")
    func basics() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        #expect(try fileMode(kc.keychainPath) == 0o600)
        #expect(try fileMode(kc.scratch.path("home")) == 0o700)
        #expect(try kc.bytes().prefix(8) == Data("VFSKEYCH".utf8))

        // One trailing newline is dropped (echo, here-strings); --raw keeps every byte.
        #expect(try kc.run(["set", "github.com", "alice"], stdin: Data("hunter2\n".utf8), passcode: true).status == 0)
        let get = try kc.run(["get", "github.com", "alice"], passcode: true)
        #expect(get.status == 0 && get.stdout == Data("hunter2".utf8) && get.stderr.isEmpty)
        let multi = Data("line one\r\nline two\n\n".utf8) + Data([0, 255, 10])
        #expect(try kc.run(["set", "--raw", "--label", "the key", "bank", "bob"], stdin: multi, passcode: true).status == 0)
        #expect(try kc.run(["get", "bank", "bob"], passcode: true).stdout == multi)
        #expect(try kc.run(["set", "crlf", "c"], stdin: Data("x\r\n".utf8), passcode: true).status == 0)
        #expect(try kc.run(["get", "crlf", "c"], passcode: true).stdout == Data("x".utf8))

        // An existing entry is replaced only with --update (73 otherwise, unchanged).
        let again = try kc.run(["set", "github.com", "alice"], stdin: Data("other".utf8), passcode: true)
        #expect(again.status == 73)
        #expect(again.stderr.contains("hint: replace it with vfs-keychain set --update github.com alice"))
        #expect(try kc.run(["get", "github.com", "alice"], passcode: true).stdout == Data("hunter2".utf8))
        #expect(try kc.run(["set", "--update", "github.com", "alice"], stdin: Data("s3cond".utf8), passcode: true).status == 0)
        #expect(try kc.run(["get", "github.com", "alice"], passcode: true).stdout == Data("s3cond".utf8))

        // list: names, dates and labels, never secrets.
        let list = try kc.run(["list"], passcode: true)
        #expect(list.status == 0)
        let rows = list.out.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.map { [$0[0], $0[1]] } == [["bank", "bob"], ["crlf", "c"], ["github.com", "alice"]])
        #expect(rows[0][3] == "the key" && rows[0][2].hasSuffix("Z"))
        let json = try kc.run(["list", "--json", "bank"], passcode: true)
        let decoded = try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]]
        #expect(decoded?.count == 1 && decoded?[0]["service"] as? String == "bank" && decoded?[0]["label"] as? String == "the key")
        #expect(Set(decoded?[0].keys.map { $0 } ?? []) == ["service", "account", "label", "created", "modified"])
        for text in [list.out, json.out] {
            #expect(!text.contains("s3cond") && !text.contains("line one"))
        }
        #expect(!String(decoding: try kc.bytes(), as: UTF8.self).contains("github.com"), "names are encrypted too")

        // Missing entries: get and delete exit 1.
        let missing = try kc.run(["get", "github.com", "mallory"], passcode: true)
        #expect(missing.status == 66 && missing.stdout.isEmpty)
        #expect(missing.stderr == "vfs-keychain: error: no secret for \"github.com\" \"mallory\"\n")
        #expect(try kc.run(["delete", "github.com", "alice"], passcode: true).status == 0)
        #expect(try kc.run(["delete", "github.com", "alice"], passcode: true).status == 66)
        #expect(try kc.run(["get", "github.com", "alice"], passcode: true).status == 66)
        #expect(try kc.openInProcess().count == 2)

        // Bad names and empty secrets are usage errors.
        #expect(try kc.run(["set", "a\tb", "c"], stdin: Data("x".utf8), passcode: true).status == 64)
        #expect(try kc.run(["set", "a", "c"], stdin: Data("\n".utf8), passcode: true).status == 64)
    }

    @Test("no keychain is 66 with a hint; init never replaces one")
    func initAndMissing() throws {
        let kc = try KeychainFixture()
        let none = try kc.run(["get", "a", "b"], passcode: true)
        #expect(none.status == 66)
        #expect(none.stderr.contains("no keychain at \"\(kc.keychainPath)\""))
        #expect(none.stderr.contains("hint: create one with vfs-keychain init"))
        try kc.initialise()
        let before = try kc.bytes()
        let again = try kc.run(["init", "--work-factor", "8", "--passcode-file", kc.passcodeFile])
        #expect(again.status == 73)
        #expect(try kc.bytes() == before)
        // VFS_HOME places it when VFS_KEYCHAIN is not set.
        let home = kc.scratch.path("vfshome")
        let viaHome = try Tools.run("vfs-keychain", ["init", "--work-factor", "8"], environment: ["VFS_HOME": home, "VFS_PASSCODE": "pw"])
        #expect(viaHome.status == 0, "\(viaHome.stderr)")
        #expect(FileManager.default.fileExists(atPath: home + "/keychain"))
    }

    @Test("passcode sources: file, fd, environment, a no-echo prompt; none and no terminal fails at once")
    func passcodeSources() throws {
        let kc = try KeychainFixture()
        // init on a terminal: asked twice, not echoed.
        let bin = Tools.binDir.appendingPathComponent("vfs-keychain").path
        let initRun = try Tools.run("python3", [AgeToolsTests.withTTY, "passcode", kc.passcode, "--", bin, "init", "--work-factor", "8"], environment: kc.environment)
        #expect(initRun.status == 0, "\(initRun.out)")
        #expect(initRun.out.contains("New keychain passcode:") && initRun.out.contains("Confirm passcode:"))
        #expect(!initRun.out.contains(kc.passcode), "the passcode was echoed")
        #expect(try kc.run(["set", "s", "a"], stdin: Data("v".utf8), passcode: true).status == 0)

        #expect(try kc.run(["get", "s", "a", "--passcode-file", kc.passcodeFile]).out == "v")
        let fd = try Tools.run("bash", ["-c", "\"$0\" get s a --passcode-fd 3 3<\"$1\"", bin, kc.passcodeFile], environment: kc.environment)
        #expect(fd.out == "v", "\(fd.stderr)")
        let prompted = try Tools.run("python3", [AgeToolsTests.withTTY, "passcode", kc.passcode, "--", bin, "get", "s", "a"], environment: kc.environment)
        #expect(prompted.status == 0)
        #expect(prompted.out.contains("Keychain passcode:") && prompted.out.hasSuffix("v\r\n"), "\(prompted.out)")
        #expect(!prompted.out.contains(kc.passcode))
        // set on a terminal asks for the secret twice, without echo.
        let typed = try Tools.run("python3", [AgeToolsTests.withTTY, "secret", "typed value", "--", bin, "set", "s", "typed"],
                                  environment: kc.environment.merging(["VFS_PASSCODE": kc.passcode]) { _, new in new })
        #expect(typed.status == 0, "\(typed.out)")
        #expect(typed.out.contains("Secret for s typed:") && typed.out.contains("Repeat the secret:") && !typed.out.contains("typed value"))
        #expect(try kc.run(["get", "s", "typed"], passcode: true).out == "typed value")

        // No agent, no source, no terminal: 77 at once, with the ways out.
        let none = try Tools.run("setsid", ["-w", bin, "get", "s", "a"], environment: kc.environment)
        #expect(none.status == 77)
        #expect(none.stderr.contains("vfs-keychain: error: the keychain is locked and no passcode was given"))
        #expect(none.stderr.contains("hint: give it with --passcode-file PATH or --passcode-fd N, or in VFS_PASSCODE"))
        #expect(none.stderr.contains("hint: or unlock the keychain for a while first: vfs-keychain unlock"))
        let noSecret = try Tools.run("setsid", ["-w", bin, "set", "s", "b"], environment: kc.environment)
        #expect(noSecret.status == 64 && noSecret.stderr.contains("empty secret on standard input"))
    }

    @Test("a wrong passcode on a keychain without recovery questions: 77, and the hint does not send the user to recover (issue 44)")
    func wrongPasscodeWithoutQuestions() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        let wrong = try kc.run(["list"], environment: ["VFS_PASSCODE": "wrong"])
        #expect(wrong.status == 77)
        #expect(wrong.stderr.hasPrefix("vfs-keychain: error: incorrect passcode\n"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("vfs-keychain recover"), "\(wrong.stderr)")
        #expect(wrong.stderr.contains("vfs-keychain: hint: nothing was changed; this keychain has no recovery questions"), "\(wrong.stderr)")
    }

    @Test("a wrong passcode and wrong recovery answers exit 77 and change nothing")
    func wrongSecrets() throws {
        let kc = try KeychainFixture()
        try kc.initialise(questions: ["First pet?", "City of birth?"], answers: ["Rex", "New York"])
        #expect(try kc.run(["set", "s", "a"], stdin: Data("v".utf8), passcode: true).status == 0)
        let before = try kc.bytes()
        let backup = try Data(contentsOf: URL(fileURLWithPath: kc.keychainPath + ".prev"))
        let wrong = try kc.run(["set", "s", "b"], stdin: Data("w".utf8), environment: ["VFS_PASSCODE": "wrong"])
        #expect(wrong.status == 77)
        #expect(wrong.stderr.hasPrefix("vfs-keychain: error: incorrect passcode\n"))
        #expect(wrong.stderr.contains("vfs-keychain recover answers the security questions"))
        #expect(try kc.run(["passcode"], environment: ["VFS_PASSCODE": "wrong", "VFS_NEW_PASSCODE": "new"]).status == 77)
        #expect(try kc.run(["get", "s", "a"], environment: ["VFS_PASSCODE": "wrong"]).status == 77)
        let answers = try kc.scratch.write("bad-answers", Data("Rex\nBoston\n".utf8))
        let badRecover = try kc.run(["recover", "--answers-file", answers], environment: ["VFS_NEW_PASSCODE": "new"])
        #expect(badRecover.status == 77)
        #expect(badRecover.stderr.contains("the answers do not match"))
        let tooFew = try kc.run(["recover", "--answers-file", try kc.scratch.write("one", Data("Rex\n".utf8))], environment: ["VFS_NEW_PASSCODE": "new"])
        #expect(tooFew.status == 64)
        #expect(try kc.bytes() == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: kc.keychainPath + ".prev")) == backup)
        #expect(try kc.run(["get", "s", "a"], passcode: true).out == "v")
    }

    @Test("recover with normalised answers sets a new passcode; passcode and recover replace the master key")
    func recoverAndChangePasscode() throws {
        let kc = try KeychainFixture()
        try kc.initialise(questions: ["# comment lines are skipped", "First pet?", "", "City of birth?"], answers: ["Rex", "New York"])
        #expect(try kc.run(["set", "s", "a"], stdin: Data("v".utf8), passcode: true).status == 0)
        let sealedBefore = try SealedKeychain(bytes: Array(try kc.bytes()), path: kc.keychainPath)
        #expect(sealedBefore.header.recoverySlot?.questions == ["First pet?", "City of birth?"])
        let bodyBefore = try kc.bytes().suffix(sealedBefore.bodyByteCount)

        // Trimmed, case-folded, inner spaces collapsed.
        let answers = try kc.scratch.write("answers2", Data("  rEX \nnew    york\r\n".utf8))
        let recovered = try kc.run(["recover", "--answers-file", answers], environment: ["VFS_NEW_PASSCODE": "second passcode"])
        #expect(recovered.status == 0, "\(recovered.stderr)")
        #expect(try kc.run(["get", "s", "a"], passcode: true).status == 77, "the old passcode no longer opens it")
        #expect(try kc.run(["get", "s", "a"], environment: ["VFS_PASSCODE": "second passcode"]).out == "v")
        #expect(try kc.bytes().suffix(bodyBefore.count) != bodyBefore, "the body is sealed again under a new master key")
        // The header from before, spliced onto today's body, opens nothing with the old passcode.
        let headerBefore = sealedBefore.headerAndMAC
        let today = try SealedKeychain(bytes: Array(try kc.bytes()), path: kc.keychainPath)
        let spliced = try SealedKeychain(bytes: headerBefore + Array(try kc.bytes().suffix(today.bodyByteCount)), path: "spliced")
        #expect(throws: KeychainError.self) { try spliced.open(masterKey: spliced.unlock(passcode: SecretBytes(copying: Array(kc.passcode.utf8)))) }
        // The backup is the new file too: the old passcode opens nothing.
        #expect(try Data(contentsOf: URL(fileURLWithPath: kc.keychainPath + ".prev")) == kc.bytes())

        let newFile = try kc.scratch.write("new", Data("third\n".utf8))
        let changed = try kc.run(["passcode", "--new-passcode-file", newFile], environment: ["VFS_PASSCODE": "second passcode"])
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: kc.keychainPath + ".prev")) == kc.bytes())
        #expect(try kc.openInProcess(passcode: "third").map(\.service) == ["s"])
        // The next save, with the backup and the file one and the same, leaves no stray copy.
        #expect(try kc.run(["set", "s2", "a"], stdin: Data("w".utf8), environment: ["VFS_PASSCODE": "third"]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: kc.scratch.path("home")).sorted() == ["keychain", "keychain.epoch", "keychain.lock", "keychain.prev"])
        #expect(try kc.run(["get", "s", "a"], environment: ["VFS_PASSCODE": "second passcode"]).status == 77)
        // The recovery slot still works after a passcode change.
        #expect(try kc.run(["recover", "--answers-file", answers], environment: ["VFS_NEW_PASSCODE": "fourth"]).status == 0)
        #expect(try kc.openInProcess(passcode: "fourth").count == 2)
        // Without questions there is nothing to recover.
        let plain = try KeychainFixture()
        try plain.initialise()
        #expect(try plain.run(["recover", "--answers-file", answers], environment: ["VFS_NEW_PASSCODE": "x"]).status == 66)
    }

    @Test("questions sets, changes and removes the recovery questions; a running agent follows every new master key")
    func questionsAndAgentRotation() throws {
        let kc = try KeychainFixture()
        defer { kc.stopAgent() }
        try kc.initialise(questions: ["First pet?"], answers: ["Rex"])
        #expect(try kc.run(["set", "s", "a"], stdin: Data("v".utf8), passcode: true).status == 0)
        try kc.unlock()
        let keyBefore = try SealedKeychain(bytes: Array(try kc.bytes()), path: "k").unlock(passcode: SecretBytes(copying: Array(kc.passcode.utf8)))
        let questions = try kc.scratch.write("q2", Data("Street?\nTeacher?\n".utf8))
        let answers = try kc.scratch.write("a2", Data("Elm\nSmith\n".utf8))
        let set = try kc.run(["questions", "--questions", questions, "--answers-file", answers], passcode: true)
        #expect(set.status == 0 && set.stderr.contains("2 recovery questions set; the master key was replaced"), "\(set.stderr)")
        #expect(set.stderr.contains("the unlock agent holds the new key"))
        let sealed = try SealedKeychain(bytes: Array(try kc.bytes()), path: "k")
        #expect(sealed.header.recoverySlot?.questions == ["Street?", "Teacher?"])
        #expect(throws: KeychainError.self) { try sealed.open(masterKey: keyBefore) }
        // The agent was handed the new key: no passcode needed.
        let viaAgent = try kc.run(["get", "s", "a"])
        #expect(viaAgent.status == 0 && viaAgent.out == "v", "\(viaAgent.stderr)")
        // The old answers no longer open; the new ones do.
        let oldAnswers = try kc.scratch.write("a1", Data("Rex\n".utf8))
        #expect(try kc.run(["recover", "--answers-file", oldAnswers], environment: ["VFS_NEW_PASSCODE": "x"]).status == 64)
        let recovered = try kc.run(["recover", "--answers-file", answers], environment: ["VFS_NEW_PASSCODE": "second"])
        #expect(recovered.status == 0, "\(recovered.stderr)")
        #expect(try kc.run(["get", "s", "a"]).out == "v", "the agent follows recover too")
        // The agent does not stand in for the passcode here; a wrong one changes nothing.
        let before = try kc.bytes()
        #expect(try kc.run(["questions", "--remove"], environment: ["VFS_PASSCODE": "wrong"]).status == 77)
        #expect(try kc.bytes() == before)
        let removed = try kc.run(["questions", "--remove"], environment: ["VFS_PASSCODE": "second"])
        #expect(removed.status == 0 && removed.stderr.contains("recovery questions removed"), "\(removed.stderr)")
        #expect(try kc.run(["recover", "--answers-file", answers], environment: ["VFS_NEW_PASSCODE": "x"]).status == 66)
        #expect(try kc.run(["questions", "--remove"], environment: ["VFS_PASSCODE": "second"]).status == 66)
        #expect(try kc.run(["get", "s", "a"]).out == "v")
        for bad in [["questions"], ["questions", "--remove", "--questions", questions], ["questions", "--remove", "--answers-file", answers]] {
            #expect(try kc.run(bad, environment: ["VFS_PASSCODE": "second"]).status == 64, "\(bad)")
        }
    }

    @Test("a keychain written by the format-1 code opens, migrates at the next save, and passcode says the old questions must be set again")
    func formatOneKeychain() throws {
        let kc = try KeychainFixture()
        try FileManager.default.createDirectory(atPath: kc.scratch.path("home"), withIntermediateDirectories: true)
        try Data(KeychainFixture.formatOne).write(to: URL(fileURLWithPath: kc.keychainPath))
        let old = ["VFS_PASSCODE": "old passcode"]
        #expect(try kc.run(["get", "github", "deploy"], environment: old).out == "s3cret")
        #expect(try kc.run(["set", "x", "y"], stdin: Data("z".utf8), environment: old).status == 0)
        #expect(try kc.bytes()[9] == 2, "written as format 2")
        // recover with the old answers turns the old recovery slot into a new one.
        let answers = try kc.scratch.write("a", Data("rex\nlyon\n".utf8))
        #expect(try kc.run(["recover", "--answers-file", answers], environment: ["VFS_NEW_PASSCODE": "p2"]).status == 0)
        #expect(try SealedKeychain(bytes: Array(try kc.bytes()), path: "k").header.recoverySlot?.kind == .recovery)
        #expect(try kc.run(["get", "github", "deploy"], environment: ["VFS_PASSCODE": "p2"]).out == "s3cret")
        // passcode on a format-1 file cannot carry its recovery slot to a new key, and says so.
        try Data(KeychainFixture.formatOne).write(to: URL(fileURLWithPath: kc.keychainPath))
        try FileManager.default.removeItem(atPath: kc.keychainPath + ".epoch")
        let changed = try kc.run(["passcode"], environment: ["VFS_PASSCODE": "old passcode", "VFS_NEW_PASSCODE": "p3"])
        #expect(changed.status == 0 && changed.stderr.contains("warning: the recovery questions were set by an older vfs-keychain"), "\(changed.stderr)")
        #expect(changed.stderr.contains("hint: set them again with vfs-keychain questions"))
        #expect(try kc.run(["recover", "--answers-file", answers], environment: ["VFS_NEW_PASSCODE": "x"]).status == 66)
        // With the answers, passcode carries the questions over to a new-style slot; wrong ones change nothing.
        try Data(KeychainFixture.formatOne).write(to: URL(fileURLWithPath: kc.keychainPath))
        try FileManager.default.removeItem(atPath: kc.keychainPath + ".epoch")
        let wrongAnswers = try kc.scratch.write("wrong", Data("rex\nparis\n".utf8))
        #expect(try kc.run(["passcode", "--answers-file", wrongAnswers], environment: ["VFS_PASSCODE": "old passcode", "VFS_NEW_PASSCODE": "p4"]).status == 77)
        #expect(try kc.bytes() == Data(KeychainFixture.formatOne))
        let carried = try kc.run(["passcode", "--answers-file", answers], environment: ["VFS_PASSCODE": "old passcode", "VFS_NEW_PASSCODE": "p4"])
        #expect(carried.status == 0 && !carried.stderr.contains("warning"), "\(carried.stderr)")
        #expect(try SealedKeychain(bytes: Array(try kc.bytes()), path: "k").header.recoverySlot?.kind == .recovery)
        #expect(try kc.run(["recover", "--answers-file", answers], environment: ["VFS_NEW_PASSCODE": "p5"]).status == 0)
        #expect(try kc.run(["identity", "recipient", "work"], environment: ["VFS_PASSCODE": "p5"]).out
                == "age1zhd5g6wz44g8e638gy7qkns94dq4a040k2l0pmflfhn4eqc8va7q03f56x\n")
        #expect(try kc.run(["identity", "recipient", "work"], environment: ["VFS_PASSCODE": "p3"]).out
                == "age1zhd5g6wz44g8e638gy7qkns94dq4a040k2l0pmflfhn4eqc8va7q03f56x\n")
    }

    @Test("a keychain reached through a symlink keeps a real previous copy and one lock beside the real file")
    func symlinkedKeychain() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        let links = kc.scratch.path("links")
        try FileManager.default.createDirectory(atPath: links, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: links + "/keychain", withDestinationPath: kc.keychainPath)
        let viaLink = ["VFS_KEYCHAIN": links + "/keychain"]
        #expect(try kc.run(["set", "s", "a"], stdin: Data("v1".utf8), passcode: true, environment: viaLink).status == 0)
        let first = try kc.bytes()
        #expect(try kc.run(["set", "s", "b"], stdin: Data("v2".utf8), passcode: true, environment: viaLink).status == 0)
        // The backup is a real older copy beside the real file, not another name for the live one.
        let prev = kc.keychainPath + ".prev"
        var info = stat(), live = stat()
        #expect(lstat(prev, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG)
        #expect(stat(kc.keychainPath, &live) == 0 && live.st_ino != info.st_ino)
        #expect(try Data(contentsOf: URL(fileURLWithPath: prev)) == first)
        // Nothing beside the link: the lock, the backup and the record are the real file's.
        #expect(try FileManager.default.contentsOfDirectory(atPath: links) == ["keychain"])
        #expect(try kc.run(["passcode"], environment: viaLink.merging(["VFS_PASSCODE": kc.passcode, "VFS_NEW_PASSCODE": "n"]) { $1 }).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: links + "/keychain") == kc.keychainPath)
        #expect(try kc.run(["get", "s", "b"], environment: ["VFS_PASSCODE": "n"]).out == "v2")
    }

    @Test("control characters in labels, identity names and recover's questions are shown as escapes, never raw")
    func controlCharactersEscaped() throws {
        let kc = try KeychainFixture()
        // A keychain written elsewhere (VFSCore takes what the tools refuse): a hostile question, label and name.
        try FileManager.default.createDirectory(atPath: kc.scratch.path("home"), withIntermediateDirectories: true)
        let store = KeychainStore(path: kc.keychainPath)
        try store.create(passcode: SecretBytes(copying: Array(kc.passcode.utf8)),
                         recovery: (["Pet?\u{1b}]0;pwned\u{07}"], ["rex"]), workFactor: 4)
        let sealed = try store.read()
        let unlocked = try UnlockedKeychain(store: store, sealed: sealed, masterKey: sealed.unlock(passcode: SecretBytes(copying: Array(kc.passcode.utf8))))
        try unlocked.setSecret(SecretBytes(copying: [1]), service: "s\u{1b}[2J", account: "a", label: "x\ny\tz\u{9b}", replacing: false, now: 0)
        try unlocked.addIdentity(X25519Identity.generate(), named: "id\u{1b}[1A", now: 0)
        let list = try kc.run(["list"], passcode: true)
        #expect(list.status == 0 && list.out == "s\\x1b[2J\ta\t1970-01-01T00:00:00Z\tx\\ny\\tz\\u{9b}\n", "\(list.out.debugDescription)")
        let identities = try kc.run(["identity", "list"], passcode: true)
        #expect(identities.out.hasPrefix("id\\x1b[1A\tage1") && !identities.out.contains("\u{1b}"))
        // recover asks the question from a header not yet authenticated: escaped on the terminal.
        let recover = try kc.runTool("python3", [AgeToolsTests.withTTY, "pet", "rex", "--", Tools.binDir.appendingPathComponent("vfs-keychain").path, "recover"],
                                     environment: ["VFS_NEW_PASSCODE": "new"])
        #expect(recover.status == 0, "\(recover.out.debugDescription) \(recover.stderr)")
        #expect(recover.out.contains("Pet?\\x1b]0;pwned\\x07") && !recover.out.contains("\u{1b}") && !recover.out.contains("\u{07}"), "\(recover.out.debugDescription)")
    }

    @Test("an oversized label or secret in import is refused (64) without a crash, and nothing is saved")
    func oversizedImport() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        let before = try kc.bytes()
        let label = String(repeating: "L", count: 70_000)
        let json = "[{\"service\":\"s\",\"account\":\"a\",\"secret\":\"SECRET-SECRET-SECRET\",\"label\":\"\(label)\"}]"
        let run = try kc.run(["import"], stdin: Data(json.utf8), passcode: true)
        #expect(run.status == 64, "\(run.stderr.prefix(500))")
        #expect(run.stderr.contains("the label is 70000 bytes long, more than 1024"))
        #expect(!run.stderr.contains("SECRET") && !run.stderr.contains("LLLLLLLL") && run.stderr.count < 400)
        let longSecret = "[{\"service\":\"s\",\"account\":\"a\",\"secret\":\"\(String(repeating: "x", count: (16 << 20) + 1))\"}]"
        #expect(try kc.run(["import"], stdin: Data(longSecret.utf8), passcode: true).status == 64)
        #expect(try kc.bytes() == before)
    }

    @Test("a crash while a secret is in memory prints no backtrace, registers or memory, and leaves no core")
    func crashPrintsNoSecret() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        let secret = "TOPSECRET-" + String(repeating: "Q", count: 40)
        #expect(try kc.run(["set", "s", "a"], stdin: Data(secret.utf8), passcode: true).status == 0)
        #expect(try kc.run(["debug-crash", "s", "a"], passcode: true).status == 64, "refused outside the test suite")
        let crash = try kc.run(["debug-crash", "s", "a"], passcode: true, environment: ["VFS_TEST_HOOKS": "1"])
        #expect(crash.status == SIGILL || crash.status == SIGTRAP, "killed by the trap's signal: \(crash.status)")
        // At most the runtime's one line: a debug build prints "Fatal error: …" (text from
        // the source, never data); the release build, which make test runs, traps without
        // a message (-O drops a failed conversion check's text).
        let lines = crash.stderr.split(separator: "\n")
        #expect(lines.count <= 1 && lines.allSatisfy { $0.contains("Fatal error") }, "\(crash.stderr.prefix(2000))")
        for leak in ["TOPSECRET", "QQQQ", "Backtracing", "Registers", "Thread 0", "rsp 0x"] {
            #expect(!crash.stderr.contains(leak), "\(leak) in: \(crash.stderr.prefix(2000))")
        }
        #expect(crash.out.isEmpty)
        #expect(!(try kc.scratch.listing()).contains { $0.hasPrefix("core") })
    }

    @Test("a tampered or truncated keychain exits 65, is never overwritten, and the hint names the good copy")
    func tamperedAndTruncated() throws {
        let kc = try KeychainFixture()
        try kc.initialise(questions: ["First pet?"], answers: ["Rex"])
        #expect(try kc.run(["set", "s", "a"], stdin: Data("v1".utf8), passcode: true).status == 0)
        #expect(try kc.run(["set", "s", "b"], stdin: Data("v2".utf8), passcode: true).status == 0)
        let good = try kc.bytes()
        let sealed = try SealedKeychain(bytes: Array(good), path: kc.keychainPath)
        let bodyStart = good.count - sealed.bodyByteCount
        // A body byte, the header MAC, a question, the keychain id; then truncations and an extra byte.
        let questionOffset = good.range(of: Data("First pet?".utf8))!.lowerBound
        var damaged: [(String, Data)] = []
        for (name, offset) in [("body", bodyStart + 20), ("mac", bodyStart - 10), ("question", questionOffset), ("id", 12), ("tag", good.count - 1)] {
            var copy = good
            copy[offset] ^= 0x20
            damaged.append((name, copy))
        }
        damaged += [("truncated", good.prefix(good.count - 1)), ("truncated-header", good.prefix(60)), ("empty", Data()), ("longer", good + Data([0]))]
        for (name, bytes) in damaged {
            try bytes.write(to: URL(fileURLWithPath: kc.keychainPath))
            let list = try kc.run(["list"], passcode: true)
            #expect(list.status == 65, "\(name): \(list.stderr)")
            #expect(list.stderr.contains("is damaged or was modified"), "\(name)")
            #expect(list.stderr.contains("the previous good copy is \"\(kc.keychainPath).prev\""), "\(name)")
            let set = try kc.run(["set", "s", "c"], stdin: Data("v3".utf8), passcode: true)
            #expect(set.status == 65, "\(name)")
            #expect(try kc.bytes() == bytes, "\(name): a damaged keychain is never overwritten")
        }
        // The previous good copy opens, and restoring it brings the keychain back.
        let fromBackup = try kc.run(["list"], passcode: true, environment: ["VFS_KEYCHAIN": kc.keychainPath + ".prev"])
        #expect(fromBackup.status == 0 && fromBackup.out.hasPrefix("s\ta\t"))
        try FileManager.default.removeItem(atPath: kc.keychainPath)
        try FileManager.default.copyItem(atPath: kc.keychainPath + ".prev", toPath: kc.keychainPath)
        // It is older than the last save: refused as a rollback until the record goes, as the hint says.
        let rolledBack = try kc.run(["get", "s", "a"], passcode: true)
        #expect(rolledBack.status == 65 && rolledBack.stderr.contains("is an older copy (save 2) than the one last seen here (save 3)"), "\(rolledBack.stderr)")
        #expect(rolledBack.stderr.contains("hint: nothing was read or changed; if you restored an older copy on purpose, accept it with rm \(kc.keychainPath).epoch"))
        #expect(rolledBack.out.isEmpty)
        try FileManager.default.removeItem(atPath: kc.keychainPath + ".epoch")
        #expect(try kc.run(["get", "s", "a"], passcode: true).out == "v1")
        // A later format version is refused with its own message.
        var future = good
        future[9] = 4
        try future.write(to: URL(fileURLWithPath: kc.keychainPath))
        let newer = try kc.run(["list"], passcode: true)
        #expect(newer.status == 65 && newer.stderr.contains("format version 4"))
    }

    @Test("identities: new, import, recipient, list, delete; 'all' is reserved; unknown names are 66 with the names")
    func identities() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        let made = try kc.run(["identity", "new", "laptop"], passcode: true)
        #expect(made.status == 0)
        let recipient = made.out.trimmingCharacters(in: .newlines)
        #expect(recipient.hasPrefix("age1") && recipient.count == 62)
        #expect(try kc.run(["identity", "recipient", "laptop"], passcode: true).out == recipient + "\n")
        #expect(try kc.run(["identity", "recipient", "laptop"]).out == recipient + "\n", "no passcode needed: recipients are public")
        let unknownWithoutPasscode = try kc.run(["identity", "recipient", "desktop"])
        #expect(unknownWithoutPasscode.status == 66 && unknownWithoutPasscode.stderr.contains("hint: vfs-keychain identity list shows the names"))
        #expect(try kc.run(["identity", "new", "laptop"], passcode: true).status == 73)
        let reserved = try kc.run(["identity", "new", "all"], passcode: true)
        #expect(reserved.status == 64 && reserved.stderr.contains("reserved"))

        let keyFile = kc.scratch.path("key.txt")
        #expect(try Tools.run("vfs-keygen", ["-o", keyFile]).status == 0)
        let keyRecipient = try Tools.run("vfs-keygen", ["-y", keyFile]).out
        let imported = try kc.run(["identity", "import", "backup", keyFile], passcode: true)
        #expect(imported.status == 0 && imported.out == keyRecipient)
        #expect(try kc.run(["identity", "import", "stdin", "-"], stdin: try kc.scratch.read("key.txt"), passcode: true).out == keyRecipient)
        #expect(try kc.run(["identity", "import", "bad", "-"], stdin: Data("AGE-SECRET-KEY-1XYZ\n".utf8), passcode: true).status == 65)

        let list = try kc.run(["identity", "list"], passcode: true)
        #expect(list.out == "backup\t\(keyRecipient.dropLast())\nlaptop\t\(recipient)\nstdin\t\(keyRecipient)")
        let json = try kc.run(["identity", "list", "--json"], passcode: true)
        #expect((try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])?.count == 3)
        #expect(!list.out.contains("AGE-SECRET-KEY") && !json.out.contains("AGE-SECRET-KEY"))
        #expect(try kc.run(["list"], passcode: true).out.isEmpty, "identities are not secrets in list")

        let unknown = try kc.run(["identity", "recipient", "desktop"], passcode: true)
        #expect(unknown.status == 66)
        #expect(unknown.stderr.contains("hint: the identities are: backup, laptop, stdin"))
        #expect(try kc.run(["identity", "delete", "stdin"], passcode: true).status == 0)
        #expect(try kc.run(["identity", "delete", "stdin"], passcode: true).status == 66)
        #expect(try kc.run(["identity", "list"], passcode: true).out.split(separator: "\n").count == 2)
    }

    @Test("-K: vfs-encrypt to a keychain identity, vfs-decrypt with it, interoperable with age")
    func keychainIdentityOption() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        let keyFile = kc.scratch.path("key.txt")
        #expect(try Tools.run("vfs-keygen", ["-o", keyFile]).status == 0)
        let keyRecipient = try Tools.run("vfs-keygen", ["-y", keyFile]).out.trimmingCharacters(in: .newlines)
        #expect(try kc.run(["identity", "import", "backup", keyFile], passcode: true).status == 0)
        #expect(try kc.run(["identity", "new", "laptop"], passcode: true).status == 0)
        let plain = testBytes(100_000, seed: 11)
        let input = try kc.scratch.write("plain", plain)

        // Encrypt to a keychain identity: age opens it with the original key file.
        let enc = try kc.runTool("vfs-encrypt", ["-K", "backup", "-o", kc.scratch.path("a.age"), input], passcode: true)
        #expect(enc.status == 0, "\(enc.stderr)")
        #expect(try Tools.run("age", ["-d", "-i", keyFile, kc.scratch.path("a.age")]).stdout == plain)
        // age encrypts to the recipient; vfs-decrypt opens it with -K.
        #expect(try Tools.run("age", ["-r", keyRecipient, "-o", kc.scratch.path("b.age"), input]).status == 0)
        let dec = try kc.runTool("vfs-decrypt", ["-K", "backup", kc.scratch.path("b.age")], passcode: true)
        #expect(dec.status == 0 && dec.stdout == plain, "\(dec.stderr)")
        // -K all finds the right one; -K with -i; the passcode from a file.
        #expect(try kc.runTool("vfs-encrypt", ["-K", "laptop", "-o", kc.scratch.path("c.age"), input], passcode: true).status == 0)
        #expect(try kc.runTool("vfs-decrypt", ["-K", "all", kc.scratch.path("c.age")], passcode: true).stdout == plain)
        #expect(try kc.runTool("vfs-decrypt", ["-i", keyFile, "-K", "laptop", "--passcode-file", kc.passcodeFile, kc.scratch.path("c.age")]).stdout == plain)
        let wrongOne = try kc.runTool("vfs-decrypt", ["-K", "backup", "-o", kc.scratch.path("out"), kc.scratch.path("c.age")], passcode: true)
        #expect(wrongOne.status == 77 && !kc.scratch.exists("out"))
        // Unknown name: 66 with the names; wrong passcode: 77; no output either way.
        let unknown = try kc.runTool("vfs-decrypt", ["-K", "desktop", "-o", kc.scratch.path("out"), kc.scratch.path("c.age")], passcode: true)
        #expect(unknown.status == 66)
        #expect(unknown.stderr.contains("vfs-decrypt: hint: the identities are: backup, laptop"))
        // Encrypting needs only the public recipient: no passcode, no agent, no terminal (cron).
        let noPasscode = try kc.runTool("vfs-encrypt", ["-K", "laptop", "-o", kc.scratch.path("d.age"), input])
        #expect(noPasscode.status == 0, "\(noPasscode.stderr)")
        #expect(try kc.runTool("vfs-decrypt", ["-K", "laptop", kc.scratch.path("d.age")], passcode: true).stdout == plain)
        #expect(try kc.runTool("vfs-encrypt", ["-K", "all", "-o", kc.scratch.path("e.age"), input]).status == 0)
        #expect(try kc.runTool("vfs-decrypt", ["-K", "backup", kc.scratch.path("e.age")], passcode: true).stdout == plain)
        let unknownRecipient = try kc.runTool("vfs-encrypt", ["-K", "desktop", "-o", kc.scratch.path("f.age"), input])
        #expect(unknownRecipient.status == 66 && unknownRecipient.stderr.contains("no identity \"desktop\"") && !kc.scratch.exists("f.age"))
        let wrong = try kc.runTool("vfs-decrypt", ["-K", "laptop", "-o", kc.scratch.path("g"), kc.scratch.path("d.age")], environment: ["VFS_PASSCODE": "nope"])
        #expect(wrong.status == 77 && !kc.scratch.exists("g"))
        #expect(try kc.runTool("vfs-decrypt", ["--passcode-file", kc.passcodeFile, kc.scratch.path("c.age")]).status == 64)
        // With the agent, no passcode is needed.
        try kc.unlock()
        defer { kc.stopAgent() }
        #expect(try kc.runTool("vfs-decrypt", ["-K", "laptop", kc.scratch.path("c.age")]).stdout == plain)
        #expect(try kc.runTool("vfs-encrypt", ["-K", "laptop", "-o", kc.scratch.path("h.age"), input]).status == 0)
        // A recipients table edited by someone else fails the agent's check of the header.
        var edited = Array(try kc.bytes())
        let sealed = try SealedKeychain(bytes: edited, path: "k")
        let tableEnd = edited.count - sealed.bodyByteCount - 32
        edited[tableEnd - 1] ^= 1
        try Data(edited).write(to: URL(fileURLWithPath: kc.keychainPath))
        let tampered = try kc.runTool("vfs-encrypt", ["-K", "laptop", "-o", kc.scratch.path("i.age"), input])
        #expect(tampered.status == 65 && !kc.scratch.exists("i.age"), "\(tampered.stderr)")
    }

    @Test("the agent: unlock, status, commands without a passcode, lock wipes; private folder and socket")
    func agent() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        defer { kc.stopAgent() }
        #expect(try kc.run(["set", "s", "a"], stdin: Data("v".utf8), passcode: true).status == 0)
        let locked = try kc.run(["status"])
        #expect(locked.status == 1 && locked.out == "locked: \(kc.keychainPath)\n")

        let unlock = try kc.run(["unlock", "--timeout", "10m", "--passcode-file", kc.passcodeFile])
        #expect(unlock.status == 0, "\(unlock.stderr)")
        #expect(unlock.stderr.contains("unlocked \"\(kc.keychainPath)\" for 10m"))
        let status = try kc.run(["status"])
        #expect(status.status == 0 && (status.out.hasPrefix("unlocked, 9m") || status.out.hasPrefix("unlocked, 10m")), "\(status.out)")
        let json = try JSONSerialization.jsonObject(with: try kc.run(["status", "--json"]).stdout) as? [String: Any]
        #expect(json?["unlocked"] as? Bool == true && ((json?["secondsLeft"] as? Int) ?? 0) > 500)
        #expect(try fileMode(kc.agentFolder) == 0o700)
        let sockets = kc.agentSockets()
        #expect(sockets.count == 1)
        #expect(try fileMode(kc.agentFolder + "/" + sockets[0]) == 0o600)

        // The agent got the key over a pipe: its argv holds no secret and its environment is empty.
        let agents = try KeychainFixture.processes(mentioning: kc.agentFolder + "/" + sockets[0])
        #expect(agents.count == 1)
        for pid in agents {
            let argv = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            #expect(argv == ["vfs-keychain", "agent-serve", "--timeout-seconds", "600", kc.agentFolder + "/" + sockets[0]])
            #expect((try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ")))?.isEmpty ?? true)
        }

        // Reads and writes need no passcode now.
        #expect(try kc.run(["get", "s", "a"]).out == "v")
        #expect(try kc.run(["set", "s", "b"], stdin: Data("w".utf8)).status == 0)
        #expect(try kc.run(["identity", "new", "id"]).status == 0)
        #expect(try kc.openInProcess().count == 3)
        // Changing the passcode still asks for the current one.
        #expect(try kc.run(["passcode"], environment: ["VFS_NEW_PASSCODE": "x"]).status == 77)
        // Unlocking again replaces the agent (one socket).
        try kc.unlock(timeout: "20m")
        #expect(kc.agentSockets().count == 1)
        // The new agent's 20 minutes, not the first one's 10 (whatever time a busy machine
        // took since: status rounds down to whole minutes).
        let agentStatus = try kc.run(["status"]).out
        let minutes = agentStatus.firstMatch(of: /^unlocked, (\d+)m/).flatMap { Int($0.1) }
        #expect(minutes.map { $0 > 10 && $0 <= 20 } ?? false, "status: \(agentStatus)")

        let lock = try kc.run(["lock"])
        #expect(lock.status == 0 && lock.stderr.contains("locked"))
        #expect(kc.agentSockets().isEmpty, "the socket is removed")
        #expect(agents.allSatisfy { KeychainFixture.waitForExit($0) }, "the agent process ended")
        #expect(try kc.run(["status"]).status == 1)
        #expect(try kc.run(["get", "s", "a"]).status == 77)
        #expect(try kc.run(["lock"]).status == 0)

        // Another keychain (a new init at the same path) is not unlocked by an old agent.
        try kc.unlock()
        try FileManager.default.removeItem(atPath: kc.keychainPath)
        try kc.initialise()
        #expect(try kc.run(["status"]).status == 1)
        #expect(try kc.run(["get", "s", "a"]).status == 77)
    }

    @Test("the agent listens and answers when its socket path is longer than a Unix socket address holds (a deep XDG_RUNTIME_DIR)")
    func agentLongSocketPath() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        let deep = kc.scratch.path("run/" + String(repeating: "a-deep-folder/", count: 8))
        try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let env = ["XDG_RUNTIME_DIR": deep]
        defer { _ = try? kc.run(["lock"], environment: env) }
        #expect(try kc.run(["set", "s", "a"], stdin: Data("v".utf8), passcode: true, environment: env).status == 0)
        let unlock = try kc.run(["unlock", "--timeout", "5m", "--passcode-file", kc.passcodeFile], environment: env)
        #expect(unlock.status == 0, "\(unlock.stderr)")
        let sockets = ((try? FileManager.default.contentsOfDirectory(atPath: deep + "/vfs")) ?? []).filter { $0.hasSuffix(".sock") }
        try #require(sockets.count == 1)
        #expect((deep + "/vfs/" + sockets[0]).utf8.count > 107, "longer than sun_path holds")
        #expect(try kc.run(["status"], environment: env).status == 0)
        // No passcode: the secret comes from the agent over that socket.
        #expect(try kc.run(["get", "s", "a"], environment: env).out == "v")
        #expect(try kc.run(["lock"], environment: env).status == 0)
        #expect(try kc.run(["status"], environment: env).status == 1)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: deep + "/vfs")) ?? []).allSatisfy { !$0.hasSuffix(".sock") })
    }

    @Test("the agent ends by itself at the timeout, on SIGTERM, and when its socket is removed")
    func agentTimeout() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        defer { kc.stopAgent() }
        #expect(try kc.run(["set", "s", "a"], stdin: Data("v".utf8), passcode: true).status == 0)
        try kc.unlock(timeout: "2s")
        #expect(try kc.run(["get", "s", "a"]).out == "v")
        var waited = 0
        while !kc.agentSockets().isEmpty && waited < 100 { usleep(100_000); waited += 1 }
        #expect(kc.agentSockets().isEmpty, "the agent removed its socket at the timeout")
        #expect(try kc.run(["status"]).status == 1)
        #expect(try kc.run(["get", "s", "a"]).status == 77)

        // SIGTERM: the agent wipes the key and removes its socket as on lock.
        try kc.unlock(timeout: "10m")
        let pids = try KeychainFixture.processes(mentioning: kc.agentFolder)
        #expect(pids.count == 1)
        for pid in pids { kill(pid, SIGTERM) }
        #expect(pids.allSatisfy { KeychainFixture.waitForExit($0) })
        #expect(kc.agentSockets().isEmpty)
        #expect(try kc.run(["status"]).status == 1)

        // With its socket removed (its folder cleaned up, say) the agent exits by itself.
        try kc.unlock(timeout: "10m")
        let agents = try KeychainFixture.processes(mentioning: kc.agentFolder)
        #expect(agents.count == 1)
        try FileManager.default.removeItem(atPath: kc.agentFolder + "/" + kc.agentSockets()[0])
        #expect(agents.allSatisfy { KeychainFixture.waitForExit($0) })
        try kc.unlock(timeout: "10m")
        #expect(try kc.run(["status"]).status == 0)
    }

    @Test("the agent refuses a socket folder other users may enter; a damaged file is 65 even when unlocked")
    func agentSafety() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        defer { kc.stopAgent() }
        try FileManager.default.createDirectory(atPath: kc.agentFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let open = try kc.run(["unlock", "--passcode-file", kc.passcodeFile])
        #expect(open.status == 77)
        #expect(open.stderr.contains("is not a private folder of this user"))
        #expect(kc.agentSockets().isEmpty)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: kc.agentFolder)
        try kc.unlock()
        #expect(try kc.run(["status"]).status == 0)
        // Unlocked, a modified file is still reported as damaged, not as locked.
        var bytes = try kc.bytes()
        bytes[bytes.count - 3] ^= 1
        try bytes.write(to: URL(fileURLWithPath: kc.keychainPath))
        let damaged = try kc.run(["list"])
        #expect(damaged.status == 65 && damaged.stderr.contains("failed to authenticate"))
        bytes = try kc.bytes()
        bytes[12] ^= 1   // the id: the agent no longer answers for it, and the passcode finds the header MAC wrong
        try bytes.write(to: URL(fileURLWithPath: kc.keychainPath))
        #expect(try kc.run(["list"], passcode: true).status == 65)
    }

    @Test("no passcode and no terminal, --timeout and bad questions are refused with usage errors")
    func usageErrors() throws {
        let kc = try KeychainFixture()
        #expect(try kc.run(["unlock", "--timeout", "soon"]).status == 64)
        #expect(try kc.run(["unlock", "--timeout", "0s"]).status == 64)
        let bare = try kc.run(["unlock", "--timeout", "8", "--passcode-file", kc.passcodeFile])
        #expect(bare.status == 64 && bare.stderr.contains("duration \"8\" has no unit") && bare.stderr.contains("8h"), "\(bare.stderr)")
        #expect(try kc.run(["init", "--work-factor", "31"], passcode: true).status == 64)
        #expect(try kc.run(["init", "--answers-file", kc.passcodeFile], passcode: true).status == 64)
        let empty = try kc.scratch.write("q", Data("# nothing\n\n".utf8))
        #expect(try kc.run(["init", "--questions", empty, "--work-factor", "8"], passcode: true).status == 64)
        #expect(!FileManager.default.fileExists(atPath: kc.keychainPath))
        let help = try kc.run(["--help"])
        #expect(help.status == 0 && help.out.contains("USAGE: vfs-keychain") && help.out.contains("Examples:") && help.out.contains("Exit status:"))
        #expect(!help.out.contains("agent-serve"))
        #expect(try kc.run(["--version"]).out.hasPrefix("vfs-keychain "))
        // The file format is the man page's, not --help's first screen.
        #expect(!help.out.contains("File format") && !help.out.contains("VFSKEYCH") && help.out.contains("vfs-keychain(1)"))
    }

    @Test("ten processes adding 100 entries each end with all 1000 entries")
    func concurrentWriters() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        try kc.unlock()
        defer { kc.stopAgent() }
        // Each writer adds its 100 entries in 20 separate saves of 5 (import), so 200
        // saves contend for the lock; a run of the tool per entry would spend the test's
        // time starting processes. (VFSCoreTests also races 1000 single-entry saves.)
        let bin = Tools.binDir.appendingPathComponent("vfs-keychain").path
        let script = """
            for b in $(seq 0 19); do
              json="["
              for k in 1 2 3 4 5; do i=$((b * 5 + k)); json="$json{\\"service\\":\\"writer-$1\\",\\"account\\":\\"account-$i\\",\\"secret\\":\\"secret-$1-$i\\"},"; done
              printf '%s' "${json%,}]" | "$0" import || exit 1
            done
            """
        var writers: [Process] = []
        var env = ProcessInfo.processInfo.environment.merging(kc.environment) { _, new in new }
        env.removeValue(forKey: "VFS_PASSCODE")
        for writer in 1...10 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", script, bin, String(writer)]
            process.environment = env
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            writers.append(process)
        }
        for process in writers { process.waitUntilExit() }
        #expect(writers.allSatisfy { $0.terminationStatus == 0 })
        let entries = try kc.openInProcess()
        #expect(entries.count == 1000)
        var expected = Swift.Set<String>()
        for writer in 1...10 { for i in 1...100 { expected.insert("writer-\(writer)/account-\(i)/secret-\(writer)-\(i)") } }
        #expect(Swift.Set(entries.map { "\($0.service)/\($0.account)/\(String(decoding: $0.secret.bytes, as: UTF8.self))" }) == expected)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: kc.scratch.path("home")).sorted()
        #expect(leftovers == ["keychain", "keychain.epoch", "keychain.lock", "keychain.prev"])
    }

    @Test("a writer killed with SIGKILL at random moments always leaves a keychain with the old or the new content")
    func killedWriters() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        // A few thousand entries, so a save takes long enough to be caught in the middle.
        let seed = (0..<2000).map { ["service": "seed-\($0)", "account": "a", "secret": String(repeating: "x", count: 40)] }
        #expect(try kc.run(["import"], stdin: try JSONSerialization.data(withJSONObject: seed), passcode: true).status == 0)
        let bin = Tools.binDir.appendingPathComponent("vfs-keychain").path
        var env = ProcessInfo.processInfo.environment.merging(kc.environment) { _, new in new }
        env["VFS_PASSCODE"] = kc.passcode

        func writer(_ i: Int) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: bin)
            process.arguments = ["set", "killed", "entry-\(i)"]
            process.environment = env
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try input.fileHandleForWriting.write(contentsOf: Data("value-\(i)".utf8))
            try input.fileHandleForWriting.close()
            return process
        }
        // How long one undisturbed save takes here, to spread the kills over it.
        let started = Date()
        let first = try writer(0)
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
        let span = max(Date().timeIntervalSince(started), 0.01) * 1.3

        var present = Swift.Set(["entry-0"])
        var outcomes = (old: 0, new: 0)
        var generator = SystemRandomNumberGenerator()
        for i in 1...200 {
            let process = try writer(i)
            usleep(UInt32(Double.random(in: 0..<span, using: &generator) * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let entries = try kc.openInProcess()
            let killed = Swift.Set(entries.filter { $0.service == "killed" }.map(\.account))
            #expect(entries.count == 2000 + killed.count)
            if killed == present { outcomes.old += 1 }
            else if killed == present.union(["entry-\(i)"]) {
                outcomes.new += 1
                present = killed
                #expect(String(decoding: entries.first { $0.account == "entry-\(i)" }!.secret.bytes, as: UTF8.self) == "value-\(i)")
            } else {
                Issue.record("after kill \(i) the keychain holds \(killed.sorted()), expected \(present.sorted()) or one more")
                return
            }
        }
        #expect(outcomes.old > 0 && outcomes.new > 0, "the kills landed both before and after the rename: \(outcomes)")
        // And it still takes changes afterwards.
        #expect(try kc.run(["set", "after", "kills"], stdin: Data("ok".utf8), passcode: true).status == 0)
        #expect(try kc.run(["get", "after", "kills"], passcode: true).out == "ok")
    }
}
