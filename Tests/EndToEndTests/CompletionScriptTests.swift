import Foundation
import Testing
import VFSTestSupport

/// The generated bash completion scripts complete names from their sources: groups
/// from $VFS_HOME/groups, apps from the policy, identities from the keychain.
@Suite("completion scripts")
struct CompletionScriptTests {
    /// What bash's completion function of `tool` offers for the words `words` (the last
    /// one is the word being completed), with completions/bash/TOOL sourced and the
    /// built tools first in PATH. Bounded by `timeout` so a prompt would fail, not hang.
    static func complete(_ tool: String, _ words: [String], environment: [String: String]) throws -> (status: Int32, words: [String]) {
        let script = PackagingTests.root.appendingPathComponent("completions/bash/\(tool)").path
        let line = words.joined(separator: " ")
        let program = """
            source "$1" || exit 90
            shift
            COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
            _\(tool) "$1" "${@: -1}" "${@: -2:1}" 2>/dev/null
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        var env = environment
        env["PATH"] = Tools.binDir.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let run = try Tools.run("timeout", ["20", "bash", "--norc", "--noprofile", "-c", program, "bash", script] + words,
                                environment: env)
        #expect(!line.isEmpty)
        return (run.status, run.out.split(separator: "\n").map(String.init).sorted())
    }

    @Test("vfs-wrap -g completes the group files of $VFS_HOME/groups; nothing without the folder")
    func groups() throws {
        let scratch = try TestFolder()
        let home = scratch.path("home")
        try FileManager.default.createDirectory(atPath: home + "/groups", withIntermediateDirectories: true)
        for name in ["home", "work"] { try scratch.write("home/groups/\(name)", Data("age1x\n".utf8)) }
        let found = try Self.complete("vfs-wrap", ["vfs-wrap", "-g", ""], environment: ["VFS_HOME": home])
        #expect(found.status == 0)
        #expect(found.words == ["home", "work"])
        let prefixed = try Self.complete("vfs-wrap", ["vfs-wrap", "--group", "w"], environment: ["VFS_HOME": home])
        #expect(prefixed.words == ["work"])
        // XDG_DATA_HOME/vfs when VFS_HOME is unset.
        let xdg = try Self.complete("vfs-wrap", ["vfs-wrap", "-g", ""], environment: ["XDG_DATA_HOME": scratch.path(""), "HOME": "/nonexistent"])
        #expect(xdg.words.isEmpty)
        try FileManager.default.moveItem(atPath: home, toPath: scratch.path("vfs"))
        let viaXDG = try Self.complete("vfs-wrap", ["vfs-wrap", "-g", ""], environment: ["XDG_DATA_HOME": scratch.path(""), "HOME": "/nonexistent"])
        #expect(viaXDG.words == ["home", "work"])
        let missing = try Self.complete("vfs-wrap", ["vfs-wrap", "-g", ""], environment: ["VFS_HOME": scratch.path("none")])
        #expect(missing.status == 0)
        #expect(missing.words.isEmpty)
    }

    @Test("vfs-unwrap and vfs-fetch --for complete the policy's active apps (vfs-policy list --apps)")
    func apps() throws {
        let scratch = try TestFolder()
        let home = scratch.path("home")
        for app in ["evince", "okular", "gimp"] {
            let add = try Tools.run("vfs-policy", ["add", app], environment: ["VFS_HOME": home])
            #expect(add.status == 0, "\(add.stderr)")
        }
        let disabled = try Tools.run("vfs-policy", ["update", "gimp", "--disable"], environment: ["VFS_HOME": home])
        #expect(disabled.status == 0, "\(disabled.stderr)")
        let listed = try Tools.run("vfs-policy", ["list", "--apps"], environment: ["VFS_HOME": home])
        #expect(listed.status == 0)
        #expect(listed.out.split(separator: "\n").sorted() == ["evince", "okular"])
        let found = try Self.complete("vfs-unwrap", ["vfs-unwrap", "--for", ""], environment: ["VFS_HOME": home])
        #expect(found.words == ["evince", "okular"])
        let fetch = try Self.complete("vfs-fetch", ["vfs-fetch", "--for", "o"], environment: ["VFS_HOME": home])
        #expect(fetch.words == ["okular"])
    }

    @Test("-K completes the keychain's identity names when unlocked; nothing, at once, when locked")
    func identities() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        for name in ["deploy", "backup"] {
            let made = try kc.run(["identity", "new", name, "--passcode-file", kc.passcodeFile])
            #expect(made.status == 0, "\(made.stderr)")
        }
        // Locked, no passcode source: --names fails at once without asking (77), and
        // the completion offers nothing.
        let locked = try kc.run(["identity", "list", "--names"])
        #expect(locked.status == 77)
        #expect(locked.out.isEmpty)
        #expect(locked.stderr.contains("the keychain is locked and no passcode was given (and this use never asks)"))
        // Not even on a terminal, where `list` would ask (and a completion would hang).
        let bin = Tools.binDir.appendingPathComponent("vfs-keychain").path
        let onTerminal = try Tools.run("python3", [AgeToolsTests.withTTY, "keychain passcode:", kc.passcode, "--", bin, "identity", "list", "--names"],
                                       environment: kc.environment)
        #expect(onTerminal.status == 77)
        #expect(!onTerminal.out.lowercased().contains("keychain passcode:"))
        #expect(!onTerminal.out.contains("deploy"))
        let none = try Self.complete("vfs-encrypt", ["vfs-encrypt", "-K", ""], environment: kc.environment)
        #expect(none.status == 0)
        #expect(none.words.isEmpty)
        try kc.unlock()
        defer { kc.stopAgent() }
        let names = try kc.run(["identity", "list", "--names"])
        #expect(names.out == "backup\ndeploy\n")
        for tool in ["vfs-encrypt", "vfs-decrypt", "vfs-wrap", "vfs-unwrap"] {
            let found = try Self.complete(tool, [tool, "-K", ""], environment: kc.environment)
            #expect(found.words == ["backup", "deploy"], "\(tool)")
        }
        let prefixed = try Self.complete("vfs-wrap", ["vfs-wrap", "--keychain-identity", "d"], environment: kc.environment)
        #expect(prefixed.words == ["deploy"])
    }
}
