import Foundation
import Testing
import VFSTestSupport
import VFSCore

/// The review nits of the first closing note: help wrapping, defaults printed twice,
/// empty JSON arrays, the agent folder's exit status, the hint for a bundle whose zstd
/// layer is garbage, and the hint of vfs-policy import.
@Suite("review nits")
struct ReviewNitTests {
    static let tools = ["vfs-encrypt", "vfs-decrypt", "vfs-keygen", "vfs-keychain", "vfs-policy", "vfs-shred",
                        "vfs-wrap", "vfs-unwrap", "vfs-relay", "vfs-device", "vfs-push", "vfs-fetch"]

    /// Every help page: each tool's, and each subcommand's (one level, and the
    /// identity group's), as ArgumentParser prints them at 80 columns.
    static func helpPages() throws -> [(name: String, text: String)] {
        var pages: [(String, String)] = []
        func page(_ tool: String, _ path: [String]) throws -> String {
            let run = try Tools.run(tool, ["help"] + path, environment: ["COLUMNS": "80"])
            return run.out.isEmpty ? try Tools.run(tool, path + ["--help"], environment: ["COLUMNS": "80"]).out : run.out
        }
        func subcommands(_ text: String) -> [String] {
            guard let start = text.range(of: "SUBCOMMANDS:\n") else { return [] }
            return text[start.upperBound...].split(separator: "\n").compactMap { line in
                guard line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first else { return nil }
                return String(name)
            }.filter { $0 != "help" }
        }
        for tool in tools {
            let top = try Tools.run(tool, ["--help"], environment: ["COLUMNS": "80"]).out
            pages.append((tool, top))
            for sub in subcommands(top) {
                let text = try page(tool, [sub])
                pages.append(("\(tool) \(sub)", text))
                for subsub in subcommands(text) { pages.append(("\(tool) \(sub) \(subsub)", try page(tool, [sub, subsub]))) }
            }
        }
        return pages
    }

    @Test("no option's help states its default twice (in its text and as ArgumentParser's \"(default: …)\")")
    func defaultsOnce() throws {
        let pages = try Self.helpPages()
        #expect(pages.count > 40)
        for (name, text) in pages {
            guard let start = text.range(of: "OPTIONS:\n") else { continue }
            // Option blocks: a line "  -x, --long …" and its indented continuation lines.
            var blocks: [String] = []
            for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("  -") { blocks.append(String(line)) } else if line.hasPrefix("    "), !blocks.isEmpty { blocks[blocks.count - 1] += " " + line }
            }
            for block in blocks where block.contains("(default: ") {
                let mentions = block.lowercased().components(separatedBy: "default").count - 1
                #expect(mentions == 1, "\(name): \(block.split(separator: " ").filter { !$0.isEmpty }.joined(separator: " "))")
            }
        }
    }

    @Test("--help examples are never wrapped mid-command at 80 columns")
    func examplesUnwrapped() throws {
        for (name, text) in try Self.helpPages() {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            guard let start = lines.firstIndex(where: { $0.hasSuffix("Examples:") }) else { continue }
            var continued = false
            for line in lines[(start + 1)...].prefix(while: { !$0.isEmpty }) {
                // Each line of an example list is a whole command: two spaces, then a tool
                // or an environment assignment, never the tail of the line before; a
                // command too long for a line goes on after a backslash, indented further.
                defer { continued = line.hasSuffix("\\") }
                if continued {
                    #expect(line.hasPrefix("    "), "\(name): \(line)")
                    continue
                }
                let command = line.dropFirst(2).split(separator: " ").first.map(String.init) ?? ""
                let known = command.hasPrefix("vfs-") || command.contains("=") || ["age", "tar", "cat", "echo", "printf", "bsdtar", "pg_dump", "crontab", "age-keygen", "ssh", "curl", "openssl", "sqlite3", "systemctl", "zstd", "jq", "find", "sh", "make", "pass", "age-plugin-yubikey"].contains(command)
                #expect(line.hasPrefix("  ") && known, "\(name): \(line)")
            }
        }
    }

    @Test("an empty list in --json output is [] on one line")
    func emptyJSONArrays() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        let identities = try kc.run(["identity", "list", "--json"], passcode: true)
        #expect(identities.status == 0, "\(identities.stderr)")
        #expect(identities.out == "[]\n")
        let policy = try TestFolder()
        let log = try Tools.run("vfs-policy", ["log", "--json", "--policy", policy.path("policy.json")])
        #expect(log.status == 0, "\(log.stderr)")
        #expect(log.out == "[]\n")
    }

    @Test("an agent folder that is not private exits 77, as --help says")
    func agentFolderExitStatus() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        try FileManager.default.createDirectory(atPath: kc.agentFolder, withIntermediateDirectories: true)
        chmod(kc.agentFolder, 0o777)
        let unlock = try kc.run(["unlock", "--passcode-file", kc.passcodeFile])
        #expect(unlock.status == 77)
        #expect(unlock.stderr.contains("is not a private folder of this user"))
        let help = try kc.run(["--help"], environment: ["COLUMNS": "200"]).out
        let exitSection = try #require(help.range(of: "Exit status:")).upperBound
        let seventySeven = try #require(help[exitSection...].range(of: "77 ")).upperBound
        let words = help[seventySeven...].prefix(300).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("agent folder is not a private folder of this user"))
    }

    @Test("a bundle whose zstd layer is garbage: exit 65, a hint about the damaged bundle, not vfs-decrypt")
    func zstdGarbageHint() throws {
        let scratch = try TestFolder()
        let key = try AgeToolsTests().keypair(scratch, "key.txt")
        // zstd's frame magic, then bytes that are no zstd frame, sealed as a bundle would be.
        var plaintext = Data([0x28, 0xB5, 0x2F, 0xFD])
        plaintext.append(testBytes(4000, seed: 5))
        let plain = try scratch.write("garbage", plaintext)
        #expect(try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", scratch.path("g.vfs"), plain]).status == 0)
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: false)
        let run = try Tools.run("vfs-unwrap", ["-i", key.path, "-C", scratch.path("out"), scratch.path("g.vfs")])
        #expect(run.status == 65)
        #expect(run.stderr.contains("error: the bundle's zstd-compressed archive is damaged"))
        #expect(run.stderr.contains("hint: it decrypted and authenticated, so it was sealed damaged"))
        #expect(!run.stderr.contains("vfs-decrypt"))
        #expect(try scratch.listing("out").isEmpty)
        // A plain age file (no zstd, no archive) still gets the vfs-decrypt hint.
        let text = try scratch.write("text", Data("just text, not a bundle\n".utf8))
        #expect(try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", scratch.path("t.age"), text]).status == 0)
        let plainAge = try Tools.run("vfs-unwrap", ["-i", key.path, "-C", scratch.path("out"), scratch.path("t.age")])
        #expect(plainAge.status == 65)
        #expect(plainAge.stderr.contains("try vfs-decrypt"))
    }

    @Test("vfs-policy import of a bad file: the hint speaks of the import file, and the policy is unchanged")
    func importHint() throws {
        let scratch = try TestFolder()
        let policy = scratch.path("policy.json")
        #expect(try Tools.run("vfs-policy", ["add", "--policy", policy, "com.example.viewer"]).status == 0)
        let before = try scratch.read("policy.json")
        let bad = try scratch.write("incoming.json", "{\"version\": 1, \"items\": [ {\"app\": 7} ]}\n")
        let run = try Tools.run("vfs-policy", ["import", "--policy", policy, bad])
        #expect(run.status == 65)
        #expect(run.stderr.contains("hint: the policy was not changed; fix \(bad)"))
        #expect(!run.stderr.contains("vfs-policy never replaces a policy it cannot read"))
        #expect(try scratch.read("policy.json") == before)
    }
}
