import Foundation
import Testing
import VFSTestSupport

/// The smaller findings of a new user's second walk (issue 27), as the user met them.
@Suite("a new user's second walk")
struct SecondWalkTests {
    @Test("pass's verbs: insert, show, ls and rm are vfs-keychain's set, get, list and delete")
    func passVerbs() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        let insert = try kc.run(["insert", "github.com/bot"], stdin: Data("s3cret\n".utf8), passcode: true)
        #expect(insert.status == 0, "\(insert.stderr)")
        #expect(try kc.run(["show", "github.com/bot"], passcode: true).out == "s3cret")
        #expect(try kc.run(["ls"], passcode: true).out.contains("github.com\tbot\t"))
        #expect(try kc.run(["rm", "github.com/bot"], passcode: true).status == 0)
        let gone = try kc.run(["show", "github.com/bot"], passcode: true)
        #expect(gone.status == 66, "\(gone.stderr)")
    }

    @Test("vfs-keychain status without a keychain: 66 and how to make one, not 'locked'")
    func statusWithoutKeychain() throws {
        let kc = try KeychainFixture()
        let status = try kc.run(["status"])
        #expect(status.status == 66, "\(status.out)\(status.stderr)")
        #expect(status.out.isEmpty)
        #expect(status.stderr.contains("error: no keychain at \"\(kc.keychainPath)\""), "\(status.stderr)")
        #expect(status.stderr.contains("hint: create one with vfs-keychain init"), "\(status.stderr)")
        try kc.initialise()
        let locked = try kc.run(["status"])
        #expect(locked.status == 1 && locked.out.hasPrefix("locked"))
    }

    @Test("a keychain passcode given as --passphrase-file gets a hint that names --passcode-file")
    func passcodeAsPassphrase() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        #expect(try kc.run(["identity", "new", "me"], passcode: true).status == 0)
        let input = try kc.scratch.write("in.txt", "hello\n")
        for tool in ["vfs-encrypt", "vfs-wrap"] {
            let run = try kc.runTool(tool, ["-K", "me", "--passphrase-file", kc.passcodeFile, "-o", kc.scratch.path("out"), input])
            #expect(run.status == 64, "\(tool): \(run.stderr)")
            #expect(run.stderr.contains("hint: a keychain's passcode (for -K) goes in --passcode-file or --passcode-fd"), "\(tool): \(run.stderr)")
            #expect(!kc.scratch.exists("out"))
        }
    }

    @Test("a read-only vfs-policy list (and check) writes nothing: no lock file beside the policy")
    func policyListWritesNothing() throws {
        let scratch = try TestFolder()
        let policy = scratch.path("policy.json")
        // A policy made elsewhere (copied in, or by hand): no lock file yet.
        #expect(try Tools.run("vfs-policy", ["add", "evince"], environment: ["VFS_POLICY": policy]).status == 0)
        try FileManager.default.removeItem(atPath: policy + ".lock")
        let before = try scratch.listing()
        for arguments in [["list"], ["list", "--json"], ["check", "evince"]] {
            let run = try Tools.run("vfs-policy", arguments, environment: ["VFS_POLICY": policy])
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
        }
        #expect(try scratch.listing() == before)
        #expect(!before.contains("policy.json.lock"))
    }

    @Test("the relay's root URL leads to its admin page (303 to /admin/), as a person typing its address expects")
    func relayRoot() throws {
        let scratch = try TestFolder("relay-root")
        let relay = try RelayProcess(data: scratch.url.appendingPathComponent("data"))
        defer { relay.stop() }
        let answer = try RelayClient(port: relay.port).request("GET", "/")
        #expect(answer.status == 303)
        #expect(answer.headers["location"] == "/admin/")
        let admin = try RelayClient(port: relay.port).request("GET", "/admin/")
        #expect(admin.status == 303 && admin.headers["location"] == "/admin/items")
    }

    @Test("a group that exists already: 73 (cannot create), as every tool answers for a name that exists")
    func duplicateGroup() throws {
        let fleet = try Fleet()
        let first = try fleet.laptop.run("vfs-device", ["group", "create", "home", "phone"])
        #expect(first.status == 0, "\(first.stderr)")
        let again = try fleet.laptop.run("vfs-device", ["group", "create", "home", "tablet"])
        #expect(again.status == 73, "\(again.stderr)")
        #expect(again.stderr.contains("already exists"), "\(again.stderr)")
    }
}
