import Foundation
import Testing
import VFSCore
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// vfs-device, vfs-push and vfs-fetch against a real relay on 127.0.0.1, port 0.
@Suite("device, push and fetch end to end", .serialized)
struct TransferToolsTests {
    /// The per-device statuses of the outbox's transfer `id`, by device name.
    func statuses(_ fleet: Fleet, _ id: String) throws -> [String: String] {
        let outbox = try fleet.laptop.run("vfs-push", ["outbox", "--json"])
        #expect(outbox.status == 0, "\(outbox.stderr)")
        let entry = jsonArray(outbox).first { $0["id"] as? String == id }
        var out: [String: String] = [:]
        for target in entry?["recipients"] as? [[String: Any]] ?? [] {
            out[target["name"] as? String ?? "?"] = target["status"] as? String
        }
        return out
    }

    func inboxIDs(_ machine: Machine) throws -> [String] {
        let run = try machine.run("vfs-fetch", ["--json"])
        #expect(run.status == 0, "\(run.stderr)")
        return jsonArray(run).compactMap { $0["id"] as? String }
    }

    @Test("enrol, list, rename, groups, status; exit codes for missing things")
    func devices() throws {
        let fleet = try Fleet()
        let list = try fleet.laptop.run("vfs-device", ["list", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        let rows = jsonArray(list)
        #expect(Set(rows.compactMap { $0["name"] as? String }) == ["laptop", "phone", "tablet"])
        #expect(rows.first { $0["thisDevice"] as? Bool == true }?["name"] as? String == "laptop")
        #expect(rows.allSatisfy { $0["status"] as? String == "active" && ($0["recipient"] as? String)?.hasPrefix("age1") == true })
        // The identity and the token live in the keychain, not in files.
        let entries = try fleet.laptop.keychainEntries()
        #expect(entries.contains { $0.kind == .identity && $0.service == "vfs-device" })
        #expect(entries.contains { $0.kind == .secret && $0.service == "vfs-relay" && $0.account == "token" })
        let config = try String(contentsOfFile: fleet.laptop.path + "/relay.json", encoding: .utf8)
        #expect(config.contains(fleet.laptop.id) && config.contains("127.0.0.1:\(fleet.relay.port)"))

        #expect(try fleet.laptop.run("vfs-device", ["group", "create", "home", "phone", "tablet"]).status == 0)
        #expect(try fleet.laptop.run("vfs-device", ["group", "add", "home", "laptop"]).status == 0)
        #expect(try fleet.laptop.run("vfs-device", ["group", "remove", "home", "laptop"]).status == 0)
        let groups = try fleet.laptop.run("vfs-device", ["group", "list"])
        #expect(groups.out == "home\tphone tablet\n" || groups.out == "home\ttablet phone\n", "\(groups.out)")
        #expect(try fleet.laptop.run("vfs-device", ["rename", "tablet", "pad"]).status == 0)
        #expect(try fleet.laptop.run("vfs-device", ["list"]).out.contains("pad"))
        #expect(try fleet.laptop.run("vfs-device", ["rename", "pad", "tablet"]).status == 0)

        let missing = try fleet.laptop.run("vfs-device", ["rename", "toaster", "x"])
        #expect(missing.status == 66)
        #expect(missing.stderr.hasPrefix("vfs-device: error: no device \"toaster\""))
        #expect(try fleet.laptop.run("vfs-device", ["group", "delete", "nope"]).status == 66)
        // Bob sees none of alice's devices or groups.
        #expect(try fleet.desktop.run("vfs-device", ["rename", "phone", "mine"]).status == 66)
        #expect(try fleet.desktop.run("vfs-device", ["group", "list"]).out.isEmpty)

        let status = try fleet.phone.run("vfs-device", ["status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.out.contains("reachable") && status.out.contains("\"phone\" valid"))
        #expect(try fleet.laptop.run("vfs-device", ["group", "delete", "home"]).status == 0)
        #expect(try fleet.laptop.run("vfs-device", ["revoke", "phone"]).status == 0)
        let revoked = try fleet.phone.run("vfs-device", ["status"])
        #expect(revoked.status == 77)
        #expect(revoked.stderr.contains("vfs-device: hint:"))
        fleet.relay.stop()
        let down = try fleet.laptop.run("vfs-device", ["status"])
        #expect(down.status == 69)
        #expect(down.stderr.hasPrefix("vfs-device: error: relay unreachable at http://127.0.0.1:\(fleet.relay.port)"))
        let stranger = try Machine("stranger", in: fleet.scratch)
        let notEnrolled = try stranger.run("vfs-device", ["list"])
        #expect(notEnrolled.status == 66)
        #expect(notEnrolled.stderr.contains("vfs-device enroll"))
    }

    @Test("a name that can't be stored: the rest is sent and fetched, the push names it on stderr and exits 1")
    func pushLeavesOutUnstorableName() throws {
        let fleet = try Fleet()
        let scratch = fleet.scratch
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: true)
        try scratch.write("out/kept.txt", Data("kept".utf8))
        // U+F780 is how a raw byte of a non-UTF-8 name is carried: a name that holds it
        // itself could not be told apart, so it can't go.
        try scratch.write("out/odd\u{F780}.txt", Data("odd".utf8))
        let push = try fleet.laptop.run("vfs-push", ["-d", "phone", "-r", scratch.path("out")])
        #expect(push.status == 1, "\(push.stderr)")
        #expect(push.stderr.contains("odd\\u{f780}.txt"), "the name, escaped: \(push.stderr)")
        #expect(push.stderr.contains("1 name could not be stored or read and was left out (listed above); the transfer holds the rest"),
                "\(push.stderr)")
        let id = push.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(id.count == 32, "the transfer id still reaches stdout: \(push.out)")
        let into = scratch.url.appendingPathComponent("got")
        try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
        let fetch = try fleet.phone.run("vfs-fetch", ["--all", "--no-backup", "-C", into.path])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(try Data(contentsOf: into.appendingPathComponent("out/kept.txt")) == Data("kept".utf8))
        let got = try FileManager.default.contentsOfDirectory(atPath: into.appendingPathComponent("out").path)
        #expect(got.filter { $0 != "CACHEDIR.TAG" } == ["kept.txt"], "\(got)")
    }

    @Test("push to a device, to a group, to a group with a revoked device; fetch, decline, expire; outbox at every step; bob sees nothing; blobs hold no plaintext or names")
    func pushAndFetch() throws {
        let fleet = try Fleet()
        let scratch = fleet.scratch
        let secret = "the launch code is 0000-SECRET-PLAINTEXT"
        try scratch.write("report-confidential.txt", Data(secret.utf8))
        try FileManager.default.createDirectory(atPath: scratch.path("photos/2026"), withIntermediateDirectories: true)
        try scratch.write("photos/2026/beach-hidden-name.jpg", testBytes(300_000, seed: 7))
        try scratch.write("photos/notes.txt", Data("photo notes \(secret)".utf8))
        #expect(try fleet.laptop.run("vfs-device", ["group", "create", "home", "phone", "tablet"]).status == 0)

        // To one device.
        let one = try fleet.laptop.run("vfs-push", ["-d", "phone", scratch.path("report-confidential.txt")])
        #expect(one.status == 0, "\(one.stderr)")
        let first = one.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try statuses(fleet, first) == ["phone": "unattended"])
        #expect(try inboxIDs(fleet.phone) == [first])
        #expect(try inboxIDs(fleet.tablet).isEmpty)
        #expect(try inboxIDs(fleet.desktop).isEmpty)

        // A folder to the group.
        let folder = try fleet.laptop.run("vfs-push", ["-g", "home", "-r", scratch.path("photos")])
        #expect(folder.status == 0, "\(folder.stderr)")
        let second = folder.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try statuses(fleet, second) == ["phone": "unattended", "tablet": "unattended"])
        // A folder without -r is refused.
        #expect(try fleet.laptop.run("vfs-push", ["-g", "home", scratch.path("photos")]).status == 64)

        // The relay stores ciphertext only: no plaintext, no file names.
        let stored = fleet.storedFiles()
        #expect(!stored.isEmpty)
        for file in stored {
            let bytes = try Data(contentsOf: file)
            for needle in ["SECRET-PLAINTEXT", "report-confidential", "beach-hidden-name", "notes.txt", "photos"] {
                #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(file.lastPathComponent) holds \(needle)")
            }
        }

        // The other user's device sees nothing and can't fetch or decline.
        #expect(try inboxIDs(fleet.desktop).isEmpty)
        #expect(try fleet.desktop.run("vfs-fetch", [first, "--stdout"]).status == 66)
        #expect(try fleet.desktop.run("vfs-fetch", ["--decline", first]).status == 66)
        #expect(try fleet.desktop.run("vfs-push", ["-d", "phone", scratch.path("report-confidential.txt")]).status == 66)

        // Fetch both on the phone.
        let inbox = scratch.path("phone-inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let fetched = try fleet.phone.run("vfs-fetch", ["--all", "--no-backup", "-C", inbox])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: inbox + "/report-confidential.txt")) == Data(secret.utf8))
        #expect(try Data(contentsOf: URL(fileURLWithPath: inbox + "/photos/2026/beach-hidden-name.jpg")) == testBytes(300_000, seed: 7))
        // --no-backup: a CACHEDIR.TAG in the folder the transfer created (not in DIR), and
        // nodump on what was unpacked where the file system keeps inode flags (DIR, not
        // marked, says whether it does).
        #expect(try String(contentsOfFile: inbox + "/photos/CACHEDIR.TAG", encoding: .utf8).hasPrefix(BackupExclusion.tagSignature))
        #expect(!FileManager.default.fileExists(atPath: inbox + "/CACHEDIR.TAG"))
        if let inboxMarked = BackupExclusion.hasNoDump(path: inbox) {
            #expect(!inboxMarked)
            for name in ["report-confidential.txt", "photos", "photos/2026/beach-hidden-name.jpg"] {
                #expect(BackupExclusion.hasNoDump(path: inbox + "/" + name) == true, "\(name)")
            }
        } else {
            #expect(fetched.stderr.contains("are not marked nodump"))
        }
        #expect(try statuses(fleet, first) == ["phone": "delivered"])
        #expect(try statuses(fleet, second) == ["phone": "delivered", "tablet": "unattended"])
        #expect(try inboxIDs(fleet.phone).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: fleet.phone.path + "/incoming/\(second).age"))

        // The tablet declines.
        #expect(try fleet.tablet.run("vfs-fetch", ["--decline", second]).status == 0)
        #expect(try statuses(fleet, second) == ["phone": "delivered", "tablet": "declined"])
        #expect(try fleet.tablet.run("vfs-fetch", ["--decline", second]).status == 66)

        // The tablet is revoked: a push to the group goes to the phone only.
        #expect(try fleet.laptop.run("vfs-device", ["revoke", "tablet"]).status == 0)
        let third = try fleet.laptop.run("vfs-push", ["-g", "home", "--name", "piped.txt", "-"], stdin: Data("from a pipe".utf8))
        #expect(third.status == 0, "\(third.stderr)")
        let thirdID = third.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try statuses(fleet, thirdID) == ["phone": "unattended"])
        let piped = try fleet.phone.run("vfs-fetch", [thirdID, "--stdout"])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.out == "from a pipe")
        // The revoked device is gone from the user's devices: a push to it is refused.
        let toRevoked = try fleet.laptop.run("vfs-push", ["-d", "tablet", scratch.path("report-confidential.txt")])
        #expect(toRevoked.status == 66)
        #expect(toRevoked.stderr.hasPrefix("vfs-push: error: no device \"tablet\""))
        #expect(toRevoked.stdout.isEmpty)

        // Expiry: --wait ends with 1 when a target let it expire.
        let expiring = try fleet.laptop.run("vfs-push", ["-d", "phone", "--expires", "2s", scratch.path("report-confidential.txt")])
        #expect(expiring.status == 0, "\(expiring.stderr)")
        let expiringID = expiring.out.trimmingCharacters(in: .whitespacesAndNewlines)
        sleep(3)
        #expect(try fleet.admin.run(["gc"]).status == 0)
        #expect(try statuses(fleet, expiringID) == ["phone": "expired"])
        #expect(try !inboxIDs(fleet.phone).contains(expiringID))

        // --wait: 0 once the phone fetched it.
        try scratch.write("wait.txt", Data("wait for me".utf8))
        let waiter = try fleet.laptop.start("vfs-push", ["-d", "phone", "--wait", scratch.path("wait.txt")], log: scratch.url.appendingPathComponent("wait.log"))
        #expect(eventually { (try? inboxIDs(fleet.phone).count) == 1 })
        #expect(try fleet.phone.run("vfs-fetch", ["--all", "-C", inbox]).status == 0)
        waiter.waitUntilExit()
        #expect(waiter.terminationStatus == 0)
        // And 1 once it was declined.
        let declined = try fleet.laptop.start("vfs-push", ["-d", "phone", "--wait", scratch.path("wait.txt")], log: scratch.url.appendingPathComponent("wait2.log"))
        var pending: [String] = []
        #expect(eventually { pending = (try? inboxIDs(fleet.phone)) ?? []; return pending.count == 1 })
        #expect(try fleet.phone.run("vfs-fetch", ["--decline", pending[0]]).status == 0)
        declined.waitUntilExit()
        #expect(declined.terminationStatus == 1)
        let log = try String(contentsOf: scratch.url.appendingPathComponent("wait2.log"), encoding: .utf8)
        #expect(log.contains("vfs-push: error: transfer \"\(pending[0])\" was not delivered to \"phone (declined)\""))

        // Cancel: the waiting copy is cancelled; a wait on it ends with 1 naming that.
        let cancelled = try fleet.laptop.run("vfs-push", ["-d", "phone", scratch.path("wait.txt")])
        let cancelledID = cancelled.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let cancelWait = try fleet.laptop.start("vfs-push", ["wait", cancelledID], log: scratch.url.appendingPathComponent("wait3.log"))
        #expect(try fleet.laptop.run("vfs-push", ["cancel", cancelledID]).status == 0)
        #expect(try statuses(fleet, cancelledID) == ["phone": "cancelled"])
        let listed = try fleet.laptop.run("vfs-push", ["outbox", cancelledID])
        #expect(listed.status == 0 && listed.out.split(separator: "\n").last?.hasSuffix("\tphone\tcancelled") == true, "\(listed.out)")
        cancelWait.waitUntilExit()
        #expect(cancelWait.terminationStatus == 1)
        let cancelLog = try String(contentsOf: scratch.url.appendingPathComponent("wait3.log"), encoding: .utf8)
        #expect(cancelLog.contains("vfs-push: error: transfer \"\(cancelledID)\" was not delivered to \"phone (cancelled)\""), "\(cancelLog)")
        let waitedAgain = try fleet.laptop.run("vfs-push", ["wait", cancelledID])
        #expect(waitedAgain.status == 1 && waitedAgain.stderr.contains("\"phone (cancelled)\""), "\(waitedAgain.stderr)")
        #expect(try fleet.laptop.run("vfs-push", ["cancel", "nope"]).status == 66)
    }

    @Test("--token-file and --identity-file: a machine without a keychain enrols, receives and fetches")
    func credentialFiles() throws {
        let fleet = try Fleet()
        let server = try Machine("server", in: fleet.scratch)
        try FileManager.default.removeItem(atPath: server.keychainPath)
        let files = ["--token-file", server.path + "/token", "--identity-file", server.path + "/identity.txt"]
        let code = try fleet.laptop.run("vfs-device", ["invite"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        // A wrong keychain passcode fails before the one-time code is spent.
        let kiosk = try Machine("kiosk", in: fleet.scratch)
        let url = "http://127.0.0.1:\(fleet.relay.port)"
        let wrong = try Tools.run("vfs-device", ["enroll", url, code, "--name", "kiosk"],
                                  environment: kiosk.environment.merging(["VFS_PASSCODE": "not it"]) { $1 })
        #expect(wrong.status == 77)
        #expect(!FileManager.default.fileExists(atPath: kiosk.path + "/relay.json"))
        let laptopPrint = try fleet.laptop.run("vfs-device", ["fingerprint"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let enrolled = try server.run("vfs-device", ["enroll", url, code, "--name", "server", "--accept-chain", laptopPrint] + files)
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        #expect(!FileManager.default.fileExists(atPath: server.keychainPath))
        for name in ["token", "identity.txt"] {
            let mode = try FileManager.default.attributesOfItem(atPath: server.path + "/" + name)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
        // The laptop approves it, comparing the fingerprint it shows from its files.
        let fingerprint = try server.run("vfs-device", ["fingerprint"] + files).out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try fleet.laptop.run("vfs-device", ["approve", "server", "--fingerprint", fingerprint]).status == 0)
        try fleet.scratch.write("job.txt", Data("nightly job".utf8))
        _ = try fleet.laptop.run("vfs-push", ["-d", "server", fleet.scratch.path("job.txt")])
        let inbox = fleet.scratch.path("server-inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let fetched = try server.run("vfs-fetch", ["--all", "-C", inbox] + files)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try String(contentsOfFile: inbox + "/job.txt", encoding: .utf8) == "nightly job")
        // Without the files and without a keychain there is nothing to authenticate with.
        #expect(try server.run("vfs-fetch", []).status == 66)
    }
}
