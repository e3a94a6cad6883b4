import Foundation
import Testing
import VFSCore
import VFSTestSupport

/// Issue 44, item 4: a user who is disabled and enabled, removed and added again, or whose
/// chain the operator resets, gets a working device back through documented commands only
/// (docs/device-chain.md, "Disabled, removed, reset").
@Suite("a disabled, enabled, removed and added user gets a working device", .serialized)
struct ReenrolmentTests {
    static let alice = "alice@acme.example"
    static let bob = "bob@acme.example"

    func ok(_ run: Run, _ what: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 0, "\(what): \(run.stderr)", sourceLocation: sourceLocation)
    }

    func status(of name: String, on machine: Machine) throws -> String? {
        let run = try machine.run("vfs-device", ["list", "--json"])
        ok(run, "list on \(machine.name)")
        return jsonArray(run).first { $0["name"] as? String == name && $0["status"] as? String != "revoked" }?["status"] as? String
    }

    func enrollAgain(_ machine: Machine, fleet: Fleet, code: String) throws -> Run {
        let run = try machine.run("vfs-device", ["enroll", "--force", "http://127.0.0.1:\(fleet.relay.port)", code, "--name", machine.name])
        if run.status == 0 { machine.id = run.out.trimmingCharacters(in: .whitespacesAndNewlines) }
        return run
    }

    /// Alice's laptop sends bob a file; `machine` (bob's) fetches it, from alice's laptop, verified.
    func bobReceives(on machine: Machine, fleet: Fleet, _ text: String) throws {
        let file = try fleet.scratch.write("\(text).txt", Data("\(text)\n".utf8))
        ok(try fleet.laptop.run("vfs-push", ["--to", Self.bob, file]), "push --to bob (\(text))")
        let into = fleet.scratch.path("into-\(text)")
        try FileManager.default.createDirectory(atPath: into, withIntermediateDirectories: true)
        let fetched = try machine.run("vfs-fetch", ["-v", "--all", "-C", into])
        ok(fetched, "fetch on \(machine.name) (\(text))")
        #expect(FileManager.default.contents(atPath: into + "/\(text).txt") == Data("\(text)\n".utf8))
        #expect(fetched.stderr.contains("from \"laptop\" of \(Self.alice)"), "\(fetched.stderr)")
    }

    @Test("disabled then enabled: enroll --force with a new code is approved by the machine's old key at once; removed and added again: enroll --force starts a new chain, colleagues confirm it; a reset chain: a new machine starts it")
    func disableEnableRemoveAdd() throws {
        let fleet = try Fleet()
        let desktop = fleet.desktop

        // Disabled, then enabled: the old token is dead, the old key is live in bob's chain.
        ok(try fleet.admin.run(["user", "disable", Self.bob]), "disable")
        let enabled = try fleet.admin.run(["user", "enable", Self.bob])
        ok(enabled, "enable")
        #expect(enabled.stderr.contains("vfs-device enroll --force"), "\(enabled.stderr)")
        let oldID = desktop.id
        let again = try enrollAgain(desktop, fleet: fleet, code: try fleet.admin.invite(Self.bob))
        ok(again, "enroll --force after enable")
        #expect(again.stderr.contains("the old device's key approved the new one"), "\(again.stderr)")
        #expect(!again.stderr.contains("pending"), "\(again.stderr)")
        #expect(desktop.id != oldID)
        #expect(try status(of: "desktop", on: desktop) == "active")
        // Alice's laptop pinned bob's chain before: the new one extends it.
        try bobReceives(on: desktop, fleet: fleet, "after-enable")

        // Removed and added again: a new user with no chain; the machine's pin is of the old one.
        ok(try fleet.admin.run(["user", "remove", "-y", Self.bob]), "remove")
        let readded = try enrollAgain(desktop, fleet: fleet, code: try fleet.admin.addUser(Self.bob, org: "acme"))
        ok(readded, "enroll --force after remove and add")
        #expect(readded.stderr.contains("bob@acme.example's device chain is gone from the relay"), "\(readded.stderr)")
        #expect(readded.stderr.contains("this device starts \(Self.bob)'s device chain (its root)"), "\(readded.stderr)")
        #expect(!readded.stderr.contains("could not join"), "\(readded.stderr)")
        #expect(try status(of: "desktop", on: desktop) == "active")
        // Alice sees a changed root: refused until the safety code is compared and confirmed.
        let file = try fleet.scratch.write("refused.txt", Data("no\n".utf8))
        let refused = try fleet.laptop.run("vfs-push", ["--to", Self.bob, file])
        #expect(refused.status == 77, "\(refused.stderr)")
        let code = try fleet.laptop.run("vfs-device", ["verify", Self.bob]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let theirs = try desktop.run("vfs-device", ["verify", Self.alice])
        ok(theirs, "verify on bob's desktop")
        #expect(theirs.out.trimmingCharacters(in: .whitespacesAndNewlines) == code)
        ok(try fleet.laptop.run("vfs-device", ["verify", Self.bob, "--confirm", code]), "confirm bob's new root")
        try bobReceives(on: desktop, fleet: fleet, "after-readd")

        // Disabled, no machine of bob's left: the operator resets the chain; a new machine starts it.
        ok(try fleet.admin.run(["user", "disable", Self.bob]), "disable again")
        ok(try fleet.admin.run(["user", "enable", Self.bob]), "enable again")
        let unconfirmed = try fleet.admin.run(["user", "reset-chain", Self.bob])
        #expect(unconfirmed.status == 64, "\(unconfirmed.stderr)")
        #expect(unconfirmed.stderr.contains("add -y"), "\(unconfirmed.stderr)")
        let reset = try fleet.admin.run(["user", "reset-chain", "-y", Self.bob])
        ok(reset, "reset-chain")
        #expect(reset.stderr.contains("reset \(Self.bob)'s device chain (1 statement(s) deleted)"), "\(reset.stderr)")
        let fresh = try Machine("workstation", in: fleet.scratch)
        try fresh.enroll(port: fleet.relay.port, code: try fleet.admin.invite(Self.bob))
        #expect(try status(of: "workstation", on: fresh) == "active")
        #expect(try fleet.admin.run(["user", "reset-chain", "-y", "nobody@acme.example"]).status == 66)
        // Alice confirms the new root again, and sends to the new machine.
        let third = try fleet.laptop.run("vfs-device", ["verify", Self.bob]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        ok(try fleet.laptop.run("vfs-device", ["verify", Self.bob, "--confirm", third]), "confirm the reset root")
        try bobReceives(on: fresh, fleet: fleet, "after-reset")
    }
}
