import Foundation
import Testing
import VFSCore
import VFSTestSupport

/// `vfs-device users` lists the users of the device's organisation from the relay
/// (GET /v1/org/users), and vfs-push --to completes from it (issue 28).
@Suite("organisation users in the tools")
struct OrgUsersToolTests {
    @Test("vfs-device users lists the organisation's users; --names never asks; vfs-push --to completes them")
    func users() throws {
        let scratch = try TestFolder()
        let data = scratch.url.appendingPathComponent("data")
        let admin = RelayAdmin(data: data)
        let code = try admin.addUser("alice@acme.example", org: "acme")
        _ = try admin.addUser("bob@acme.example", org: "acme")
        _ = try admin.addUser("bea@acme.example", org: "acme")
        _ = try admin.addUser("carol@globex.example", org: "globex")
        let relay = try RelayProcess(data: data)
        let laptop = try Machine("laptop", in: scratch)
        try laptop.enroll(port: relay.port, code: code)

        let all = try laptop.run("vfs-device", ["users"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.out == "alice@acme.example\nbea@acme.example\nbob@acme.example\n")
        let prefixed = try laptop.run("vfs-device", ["users", "b", "--json"])
        #expect(prefixed.status == 0, "\(prefixed.stderr)")
        #expect(jsonArray(prefixed).compactMap { $0["email"] as? String } == ["bea@acme.example", "bob@acme.example"])
        #expect(try laptop.run("vfs-device", ["users", "carol"]).out.isEmpty, "another organisation's users are not listed")

        // Completion: through VFS_PASSCODE (or the agent) the relay's users are offered.
        let offered = try CompletionScriptTests.complete("vfs-push", ["vfs-push", "send", "--to", "b"], environment: laptop.environment)
        #expect(offered.words == ["bea@acme.example", "bob@acme.example"], "\(offered)")
        // Locked and no passcode given: --names fails at once (77), even on a terminal, and nothing is offered.
        var locked = laptop.environment
        locked.removeValue(forKey: "VFS_PASSCODE")
        let refused = try Tools.run("vfs-device", ["users", "--names"], environment: locked)
        #expect(refused.status == 77 && refused.out.isEmpty, "\(refused.stderr)")
        let bin = Tools.binDir.appendingPathComponent("vfs-device").path
        let onTerminal = try Tools.run("python3", [AgeToolsTests.withTTY, "passcode:", laptop.passcode, "--", bin, "users", "--names"],
                                       environment: locked)
        #expect(onTerminal.status == 77 && !onTerminal.out.contains("bob@acme.example"), "\(onTerminal.out)")
        #expect(try CompletionScriptTests.complete("vfs-push", ["vfs-push", "send", "--to", ""], environment: locked).words.isEmpty)
        // The relay down: --names gives up (69) with nothing printed.
        relay.stop()
        let down = try laptop.run("vfs-device", ["users", "--names"])
        #expect(down.status == 69 && down.out.isEmpty, "\(down.stderr)")
    }
}
