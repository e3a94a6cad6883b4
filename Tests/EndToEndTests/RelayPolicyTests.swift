import Foundation
import Testing
import VFSCore
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// acme on a live relay: ann and ada are admins (a laptop each), max a member (a phone).
final class PolicyOrg: @unchecked Sendable {
    let scratch: TestFolder
    let data: URL
    let admin: RelayAdmin
    let relay: RelayProcess
    let ann: Machine, ada: Machine, max: Machine

    init() throws {
        scratch = try TestFolder()
        data = scratch.url.appendingPathComponent("data")
        admin = RelayAdmin(data: data)
        let annCode = try admin.addUser("ann@acme.example", org: "acme", admin: true)
        let adaCode = try admin.addUser("ada@acme.example", org: "acme", admin: true)
        let maxCode = try admin.addUser("max@acme.example", org: "acme")
        relay = try RelayProcess(data: data)
        ann = try Machine("ann", in: scratch)
        ada = try Machine("ada", in: scratch)
        max = try Machine("max", in: scratch)
        try ann.enroll(port: relay.port, code: annCode)
        try ada.enroll(port: relay.port, code: adaCode)
        try max.enroll(port: relay.port, code: maxCode)
    }

    deinit { relay.stop() }
}

extension Machine {
    var policyCopy: String { path + "/policy-cache/organisation.json" }

    /// `vfs-policy ARGS` with extra environment (the test clock).
    func policy(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Run {
        try Tools.run("vfs-policy", arguments, environment: environment.merging(extra) { _, new in new })
    }

    /// The shell words that run `vfs-policy` as this machine (for a test hook's command).
    func policyCommand(_ arguments: [String]) -> String {
        let env = environment.map { "\($0.key)=\(DisplayText.shellQuoted($0.value))" }.sorted().joined(separator: " ")
        let tool = Tools.binDir.appendingPathComponent("vfs-policy").path
        return "env \(env) \(DisplayText.shellQuoted(tool)) " + arguments.map(DisplayText.shellQuoted).joined(separator: " ")
    }
}

/// The check's --json answer.
func checkAnswer(_ run: Run) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: run.stdout)) as? [String: Any] ?? [:]
}

func isoTime(_ date: Date) -> String { PolicyDates.format(date) }

@Suite("policy on the relay", .serialized)
struct RelayPolicyTests {
    @Test("an admin's change reaches a watching device's check, config.json's relay source and vfs-unwrap --for without a manual sync; the copy is 0600")
    func watchedChange() throws {
        let org = try PolicyOrg()
        let inbox = org.scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let watcher = try org.max.start("vfs-fetch", ["--watch", "-C", inbox], log: org.scratch.url.appendingPathComponent("watch.log"))
        defer { if watcher.isRunning { kill(watcher.processIdentifier, SIGKILL); watcher.waitUntilExit() } }

        // The watcher fetches the (empty) list when it connects.
        #expect(eventually { FileManager.default.fileExists(atPath: org.max.policyCopy) })
        let denied = try org.max.policy(["check", "--relay", "evince", "--type", "pdf", "--json"])
        #expect(denied.status == 1)
        #expect(checkAnswer(denied)["reason"] as? String == "not-approved")

        let added = try org.ann.policy(["add", "--relay", "evince", "--type", "pdf", "--name", "Viewer"])
        #expect(added.status == 0, "\(added.stderr)")
        let id = added.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(id.count == 8)
        #expect(eventually { (try? org.max.policy(["check", "--relay", "evince", "--type", "pdf"]).status) == 0 })

        // The copy: private, the policy file's format plus where it came from.
        var info = stat()
        #expect(stat(org.max.policyCopy, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let copy = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: org.max.policyCopy))) as? [String: Any]
        #expect(copy?["version"] as? Int == 1)
        #expect((copy?["items"] as? [[String: Any]])?.first?["app"] as? String == "evince")
        let relay = copy?["relay"] as? [String: Any]
        #expect(relay?["url"] as? String == "http://127.0.0.1:\(org.relay.port)")
        #expect((relay?["revision"] as? String)?.hasPrefix("\"r") == true)
        #expect(relay?["graceSeconds"] as? Int == 72 * 3600)
        #expect(relay?["fetched"] is String)
        let listed = jsonArray(try org.max.policy(["list", "--relay", "--json"]))
        #expect(listed.map { $0["app"] as? String } == ["evince"])

        // policy.source in config.json: check and vfs-unwrap --for follow the same copy.
        try Data(#"{"policy": {"source": "relay"}}"#.utf8).write(to: URL(fileURLWithPath: org.max.path + "/config.json"))
        #expect(try org.max.policy(["check", "evince", "--type", "pdf"]).status == 0)
        let key = try AgeToolsTests().keypair(org.scratch)
        _ = try org.scratch.write("report.pdf", Data("numbers\n".utf8))
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", org.scratch.path("report.vfs"), org.scratch.path("report.pdf")]).status == 0)
        let unwrap = { try Tools.run("vfs-unwrap", ["-i", key.path, "--for", "evince", "--stdout", org.scratch.path("report.vfs")],
                                     environment: org.max.environment) }
        let opened = try unwrap()
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.out == "numbers\n")

        // Disabled by ada: the watching device denies, and so does vfs-unwrap.
        #expect(try org.ada.policy(["update", "--relay", "evince", "--disable"]).status == 0)
        #expect(eventually { (try? org.max.policy(["check", "evince", "--type", "pdf"]).status) == 1 })
        let refused = try unwrap()
        #expect(refused.status == 77)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("disabled"))
        // A local file named explicitly still wins over the config.
        #expect(try org.max.policy(["add", "--policy", org.scratch.path("local.json"), "evince"]).status == 0)
        #expect(try org.max.policy(["check", "--policy", org.scratch.path("local.json"), "evince", "--type", "pdf"]).status == 0)
        #expect(try org.max.policy(["check", "--policy", org.scratch.path("local.json"), "--relay", "evince"]).status == 64)
        #expect(try String(contentsOfFile: org.scratch.path("watch.log"), encoding: .utf8).contains("policy synced"))
    }

    @Test("a member's write is refused 403 (exit 77) and changes nothing; the log and local-only commands say the relay keeps them")
    func memberWrite() throws {
        let org = try PolicyOrg()
        #expect(try org.ann.policy(["add", "--relay", "evince"]).status == 0)
        for arguments in [["add", "--relay", "gimp"], ["update", "--relay", "evince", "--disable"], ["remove", "--relay", "evince"],
                          ["grace", "1h"]] {
            let run = try org.max.policy(arguments)
            #expect(run.status == 77, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("only an administrator"), "\(run.stderr)")
        }
        #expect(try org.max.policy(["sync"]).status == 0)
        let listed = jsonArray(try org.max.policy(["list", "--relay", "--json"]))
        #expect(listed.map { $0["app"] as? String } == ["evince"])
        #expect(listed.first?["status"] as? String == "active")
        #expect(try org.max.policy(["grace"]).out == "3d\n")
        let log = try org.max.policy(["log", "--relay"])
        #expect(log.status == 64)
        #expect(log.stderr.contains("relay keeps"))
        // No such item: 66, and an app already approved: 73, as with a file.
        #expect(try org.ann.policy(["update", "--relay", "nothing", "--disable"]).status == 66)
        #expect(try org.ann.policy(["add", "--relay", "evince"]).status == 73)
    }

    @Test("the copy answers for the organisation's grace after the last sync, then every check denies policy-stale (test clock, no sleeps)")
    func staleCopy() throws {
        let org = try PolicyOrg()
        let hooks = ["VFS_TEST_HOOKS": "1"]
        // No copy yet: every check denies.
        let none = try org.max.policy(["check", "--relay", "evince", "--json"])
        #expect(none.status == 1)
        #expect(checkAnswer(none)["reason"] as? String == "policy-stale")

        #expect(try org.ann.policy(["add", "--relay", "evince"]).status == 0)
        let synced = try org.max.policy(["sync", "--json"], environment: hooks.merging(["VFS_TEST_NOW": "2030-01-01T00:00:00Z"]) { $1 })
        #expect(synced.status == 0, "\(synced.stderr)")
        let summary = (try? JSONSerialization.jsonObject(with: synced.stdout)) as? [String: Any]
        #expect(summary?["items"] as? Int == 1)
        #expect(summary?["trustedUntil"] as? String == "2030-01-04T00:00:00Z")

        func check(at time: String, hooksOn: Bool = true) throws -> Run {
            var env = ["VFS_TEST_NOW": time]
            if hooksOn { env["VFS_TEST_HOOKS"] = "1" }
            return try org.max.policy(["check", "--relay", "evince", "--json"], environment: env)
        }
        #expect(try check(at: "2030-01-03T23:59:59Z").status == 0)
        let stale = try check(at: "2030-01-04T00:00:00Z")
        #expect(stale.status == 1)
        #expect(checkAnswer(stale)["reason"] as? String == "policy-stale")
        #expect(checkAnswer(stale)["allowed"] as? Bool == false)
        let plain = try org.max.policy(["check", "--relay", "evince"], environment: hooks.merging(["VFS_TEST_NOW": "2031-01-01T00:00:00Z"]) { $1 })
        #expect(plain.status == 1)
        #expect(plain.stderr.contains("last synced at 2030-01-01T00:00:00Z"), "\(plain.stderr)")
        #expect(plain.stderr.contains("vfs-policy sync"))
        // The clock is the test's only with VFS_TEST_HOOKS=1; the real one is years before
        // the sync, and a copy from this device's future is not trusted either.
        let future = try check(at: "2030-01-02T00:00:00Z", hooksOn: false)
        #expect(future.status == 1)
        #expect(checkAnswer(future)["reason"] as? String == "policy-stale")
        #expect((checkAnswer(future)["message"] as? String)?.contains("later than this device's clock") == true)

        // An admin shortens the grace; a device learns it with its next sync.
        let set = try org.ann.policy(["grace", "1h"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.out == "1h\n")
        #expect(try org.max.policy(["sync"], environment: hooks.merging(["VFS_TEST_NOW": "2030-02-01T00:00:00Z"]) { $1 }).status == 0)
        #expect(try check(at: "2030-02-01T00:59:59Z").status == 0)
        #expect(checkAnswer(try check(at: "2030-02-01T01:00:00Z"))["reason"] as? String == "policy-stale")
        #expect(try org.ann.policy(["grace", "30s"]).status == 64)
    }

    @Test("two admins racing updates of one item lose nothing: the second write gets 412, reads again and applies its change")
    func racingAdmins() throws {
        let org = try PolicyOrg()
        #expect(try org.ann.policy(["add", "--relay", "evince", "--type", "pdf"]).status == 0)
        // Between ann's read and her write, ada changes the item's types.
        let ada = org.ada.policyCommand(["update", "--relay", "evince", "--type", "djvu"])
        let ann = try org.ann.policy(["update", "--relay", "evince", "--name", "Document viewer"],
                                     environment: ["VFS_TEST_HOOKS": "1", "VFS_TEST_AFTER_READ": ada])
        #expect(ann.status == 0, "\(ann.stderr)")
        #expect(ann.stderr.contains("was changed on the relay by someone else since it was read (412)"), "\(ann.stderr)")
        #expect(try org.ann.policy(["sync"]).status == 0)
        let item = jsonArray(try org.ann.policy(["list", "--relay", "--json"])).first
        #expect(item?["name"] as? String == "Document viewer")
        #expect(item?["types"] as? [String] == ["djvu"])

        // The same for a removal that races an update: the item is gone, the remover said so.
        let touch = org.ada.policyCommand(["update", "--relay", "evince", "--name", "Viewer"])
        let removed = try org.ann.policy(["remove", "--relay", "evince"], environment: ["VFS_TEST_HOOKS": "1", "VFS_TEST_AFTER_READ": touch])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stderr.contains("(412)"))
        #expect(jsonArray(try org.ann.policy(["list", "--relay", "--json"])).isEmpty)
    }
}
