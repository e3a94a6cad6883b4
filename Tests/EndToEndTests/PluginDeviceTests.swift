import Foundation
import Testing
import VFSCore
import VFSTestSupport

/// A device whose decryption key is a plugin's (issue 29): enrolled with
/// `--identity-file` holding age-plugin-vfstest's stub, it registers the plugin's
/// recipient; pushes and cloud files are encrypted to it, and vfs-fetch and vfs-cloud
/// open them through the plugin (its PIN asked on the terminal, failing at once without
/// one); without the plugin on PATH nothing is placed.
@Suite("a device key in a plugin")
struct PluginDeviceTests {
    /// alice's laptop (an ordinary device, her chain's root) and a relay.
    struct Setup {
        let scratch: TestFolder
        let relay: RelayProcess
        let admin: RelayAdmin
        let laptop: Machine
        let url: String
        let recipient: String
        let stubText: Data

        init() throws {
            scratch = try TestFolder()
            let data = scratch.url.appendingPathComponent("data")
            admin = RelayAdmin(data: data)
            let code = try admin.addUser("alice@acme.example", org: "acme")
            relay = try RelayProcess(data: data)
            url = "http://127.0.0.1:\(relay.port)"
            laptop = try Machine("laptop", in: scratch)
            try laptop.enroll(port: relay.port, code: code)
            // Run from the build folder (a name without vfs- is looked up on PATH).
            let plugin = AgePluginTests.environment()
            recipient = try Tools.run("age-plugin-vfstest", ["--recipient"], environment: plugin).out.trimmingCharacters(in: .whitespacesAndNewlines)
            stubText = try Tools.run("age-plugin-vfstest", ["--identity"], environment: plugin).stdout
        }

        /// --accept-chain with the laptop's fingerprint: a later device takes alice's chain (issue 43, item 6).
        func acceptLaptop() throws -> [String] {
            ["--accept-chain", try laptop.run("vfs-device", ["fingerprint"]).out.trimmingCharacters(in: .whitespacesAndNewlines)]
        }

        /// A code for another of alice's devices, from the laptop.
        func invite() throws -> String {
            let invite = try laptop.run("vfs-device", ["invite"])
            guard invite.status == 0 else { throw HarnessError("invite: \(invite.stderr)") }
            return invite.out.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// `machine`'s environment with the plugin on PATH (or not), and `extra`.
        func environment(_ machine: Machine, plugin: Bool = true, _ extra: [String: String] = [:]) -> [String: String] {
            let inherited = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            return machine.environment
                .merging(["PATH": plugin ? Tools.binDir.path + ":" + inherited : inherited]) { $1 }
                .merging(extra) { $1 }
        }
    }

    @Test("enrol with a plugin stub; a push to it and a cloud file open through the plugin; its PIN on the terminal")
    func pluginDevice() throws {
        let s = try Setup()
        let yubi = try Machine("yubi", in: s.scratch)
        let stub = try s.scratch.write("yubi-stub.txt", s.stubText)
        let files = ["--identity-file", stub]
        let enrolled = try yubi.run("vfs-device", ["enroll", s.url, try s.invite(), "--name", "yubi"] + files + (try s.acceptLaptop()))
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        // The stub file is the user's: left as it is; the recipient it names is kept and registered.
        #expect(try s.scratch.read("yubi-stub.txt") == s.stubText)
        #expect(FileManager.default.fileExists(atPath: stub + ".ed25519"), "the signing key is the device's own, beside the stub")
        let config = try JSONSerialization.jsonObject(with: Data(contentsOf: yubi.home.appendingPathComponent("relay.json"))) as? [String: Any]
        #expect(config?["recipient"] as? String == s.recipient)
        let listed = jsonArray(try s.laptop.run("vfs-device", ["list", "--json"]))
        #expect(listed.first { $0["name"] as? String == "yubi" }?["recipient"] as? String == s.recipient, "\(listed)")
        // The laptop approves it by the fingerprint it shows (over its signing key and the plugin's recipient).
        let fingerprint = try yubi.run("vfs-device", ["fingerprint"] + files)
        #expect(fingerprint.status == 0, "\(fingerprint.stderr)")
        let approved = try s.laptop.run("vfs-device", ["approve", "yubi", "--fingerprint", fingerprint.out.trimmingCharacters(in: .whitespacesAndNewlines)])
        #expect(approved.status == 0, "\(approved.stderr)")

        // The laptop encrypts to the plugin's recipient: it runs the plugin to wrap, and without it sends nothing (69).
        try s.scratch.write("report.txt", Data("quarterly report\n".utf8))
        let unwrapped = try Tools.run("vfs-push", ["-d", "yubi", s.scratch.path("report.txt")], environment: s.environment(s.laptop, plugin: false))
        #expect(unwrapped.status == 69, "\(unwrapped.stderr)")
        #expect(unwrapped.stderr.contains("vfs-push: error: plugin age-plugin-vfstest not found on PATH"), "\(unwrapped.stderr)")
        #expect(jsonArray(try yubi.run("vfs-fetch", ["--json"] + files)).isEmpty, "nothing was sent")
        let pushed = try Tools.run("vfs-push", ["-d", "yubi", s.scratch.path("report.txt")], environment: s.environment(s.laptop))
        #expect(pushed.status == 0, "\(pushed.stderr)")
        let id = pushed.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let inbox = s.scratch.path("yubi-inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let fetch = Tools.binDir.appendingPathComponent("vfs-fetch").path

        // No plugin on PATH: 69, a clear error and hint, nothing placed, the transfer still waiting.
        let missing = try Tools.run("vfs-fetch", [id, "-C", inbox] + files, environment: s.environment(yubi, plugin: false))
        #expect(missing.status == 69, "\(missing.stderr)")
        #expect(missing.stderr.contains("vfs-fetch: error: plugin age-plugin-vfstest not found on PATH"), "\(missing.stderr)")
        #expect(missing.stderr.contains("hint: install age-plugin-vfstest"), "\(missing.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox).isEmpty)
        // The plugin asks its PIN and there is no terminal: it fails at once (64), nothing placed.
        let noTerminal = try Tools.run("setsid", ["-w", fetch, id, "-C", inbox] + files, environment: s.environment(yubi))
        #expect(noTerminal.status == 64, "\(noTerminal.stderr)")
        #expect(noTerminal.stderr.contains("plugin age-plugin-vfstest asks \"Enter the PIN of vfstest:\" and there is no terminal to ask on"),
                "\(noTerminal.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox).isEmpty)
        let waiting = jsonArray(try yubi.run("vfs-fetch", ["--json"] + files))
        #expect(waiting.contains { $0["id"] as? String == id }, "the transfer is still in the inbox: \(waiting)")
        // On a terminal the PIN is asked without echo, and the file opens.
        let typed = try Tools.run("python3", [AgeToolsTests.withTTY, "Enter the PIN", "1234", "--", fetch, id, "-C", inbox] + files,
                                  environment: s.environment(yubi))
        #expect(typed.status == 0, "\(typed.out)")
        #expect(typed.out.contains("Enter the PIN of vfstest:"))
        #expect(!typed.out.contains("1234"), "the PIN was echoed: \(typed.out)")
        #expect(try String(contentsOfFile: inbox + "/report.txt", encoding: .utf8) == "quarterly report\n")

        // A cloud file is encrypted to every device, the plugin's too: both open it.
        let noPIN = s.environment(yubi, ["VFSTEST_NO_PIN": "1"])
        try s.scratch.write("notes.txt", Data("cloud notes\n".utf8))
        let put = try Tools.run("vfs-cloud", ["put", s.scratch.path("notes.txt"), "/notes.txt"] + files, environment: noPIN)
        #expect(put.status == 0, "\(put.stderr)")
        let got = try Tools.run("vfs-cloud", ["get", "/notes.txt", "--stdout"] + files, environment: noPIN)
        #expect(got.status == 0 && got.out == "cloud notes\n", "\(got.stderr)")
        #expect(try s.laptop.run("vfs-cloud", ["get", "/notes.txt", "--stdout"]).out == "cloud notes\n")
        // Without the plugin the cloud file can't be opened: 69, nothing written.
        let local = s.scratch.path("notes.out")
        let refused = try Tools.run("vfs-cloud", ["get", "/notes.txt", "-o", local] + files, environment: s.environment(yubi, plugin: false))
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(refused.stderr.contains("plugin age-plugin-vfstest not found on PATH"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: local))
    }

    @Test("a stub's recipient: from --recipient when the file names none; refused when missing, different, of another plugin, or without a stub")
    func enrolmentRecipient() throws {
        let s = try Setup()
        let bare = try Machine("bare", in: s.scratch)
        // The stub alone (no "# recipient:" comment), as a plugin's --list might leave it.
        let stubLine = try #require(String(decoding: s.stubText, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("AGE-PLUGIN-") },
                                    "\(String(decoding: s.stubText, as: UTF8.self))")
        let stub = try s.scratch.write("bare.txt", Data((stubLine + "\n").utf8))
        let code = try s.invite()
        let enroll = ["enroll", s.url, code, "--name", "bare", "--identity-file", stub]
        let unnamed = try bare.run("vfs-device", enroll)
        #expect(unnamed.status == 64, "\(unnamed.stderr)")
        #expect(unnamed.stderr.contains("holds a plugin identity stub but does not name its recipient"), "\(unnamed.stderr)")
        #expect(unnamed.stderr.contains("hint: give it with --recipient age1vfstest1…"), "\(unnamed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bare.path + "/relay.json"))
        let native = try Tools.run("vfs-keygen", ["-o", s.scratch.path("native.txt")]).stderr
            .replacingOccurrences(of: "Public key: ", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
        let other = try bare.run("vfs-device", enroll + ["--recipient", native])
        #expect(other.status == 64 && other.stderr.contains("is not one age-plugin-vfstest serves"), "\(other.stderr)")
        // A comment and a --recipient that differ.
        let named = try s.scratch.write("named.txt", s.stubText)
        let differs = try bare.run("vfs-device", ["enroll", s.url, code, "--name", "bare", "--identity-file", named, "--recipient",
                                                  try #require(AgePlugin.encodeRecipient(name: "vfstest", data: [UInt8](repeating: 1, count: 32)))])
        #expect(differs.status == 64 && differs.stderr.contains("is not the recipient"), "\(differs.stderr)")
        // --recipient with no stub: vfs-device makes the identity, whose recipient is its own.
        let noStub = try bare.run("vfs-device", ["enroll", s.url, code, "--name", "bare", "--recipient", s.recipient])
        #expect(noStub.status == 64 && noStub.stderr.contains("--recipient is for a plugin identity stub in --identity-file"), "\(noStub.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bare.path + "/relay.json"))
        // The code was not spent by any of these: with --recipient it enrols.
        let ok = try bare.run("vfs-device", enroll + ["--recipient", s.recipient] + (try s.acceptLaptop()))
        #expect(ok.status == 0, "\(ok.stderr)")
        let listed = jsonArray(try s.laptop.run("vfs-device", ["list", "--json"]))
        #expect(listed.first { $0["name"] as? String == "bare" }?["recipient"] as? String == s.recipient)
        #expect(try s.scratch.read("bare.txt") == Data((stubLine + "\n").utf8))

        // A stub kept in the keychain as the device's identity is not used: refused (77) with a clear error.
        #expect(try s.laptop.run("vfs-keychain", ["identity", "delete", "vfs-device"]).status == 0)
        let imported = try s.laptop.run("vfs-keychain", ["identity", "import", "vfs-device", stub])
        #expect(imported.status == 0, "\(imported.stderr)")
        let fetched = try s.laptop.run("vfs-fetch", ["--all", "-C", s.scratch.path("")])
        #expect(fetched.status == 77, "\(fetched.stderr)")
        #expect(fetched.stderr.contains("a plugin's stub is a device key only in --identity-file"), "\(fetched.stderr)")
    }
}
