import Foundation
import Testing
import VFSCore
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 44: every transfer ends. A push interrupted by SIGINT, SIGTERM or SIGKILL, at
/// several points, says what became of it (withdrawn, or kept for `vfs-push resume`), and
/// `resume` or the relay's idle expiry ends it; the targets' `vfs-fetch --all` takes the
/// complete transfers without waiting for it; the relay's uploads and the user's quota
/// come back to what the complete transfers hold. And `vfs-push resume` goes on past a
/// push that can never be sent.
@Suite("every transfer ends: interrupted, abandoned and impossible pushes", .serialized)
struct TransferEndsTests {
    /// A push running in the background, fed through a pipe (kept open: its sealing waits
    /// for more), its stdout and stderr in files.
    final class RunningPush {
        let process = Process()
        let input = Pipe()
        let out: URL
        let err: URL

        init(_ machine: Machine, _ arguments: [String], log: URL) throws {
            _ = Tools.ignoreSIGPIPE
            out = log.appendingPathExtension("out")
            err = log.appendingPathExtension("err")
            FileManager.default.createFile(atPath: out.path, contents: nil)
            FileManager.default.createFile(atPath: err.path, contents: nil)
            process.executableURL = Tools.binDir.appendingPathComponent("vfs-push")
            process.arguments = arguments
            var env = ProcessInfo.processInfo.environment
            for name in ["VFS_PASSPHRASE", "VFS_PASSCODE", "VFS_HOME", "VFS_KEYCHAIN", "VFS_POLICY", "VFS_RELAY"] { env.removeValue(forKey: name) }
            env.merge(machine.environment) { _, new in new }
            process.environment = env
            process.standardInput = input
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: err)
            try process.run()
        }

        var stdout: String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }
        var stderr: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }
        /// The transfer's id, once printed (the transfer exists).
        var transfer: String? { stdout.split(separator: "\n").first.map(String.init) }

        func feed(_ data: Data) throws { try input.fileHandleForWriting.write(contentsOf: data) }

        /// Sends `signal` and waits for the end; whether it died of that signal.
        func signal(_ signal: Int32) -> Bool {
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            try? input.fileHandleForWriting.close()
            return process.terminationReason == .uncaughtSignal && process.terminationStatus == signal
        }
    }

    func outgoing(_ machine: Machine) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: machine.path + "/outgoing")) ?? []
    }

    /// The spool's push.json of the machine's one pending push.
    func spoolRecord(_ machine: Machine) -> [String: Any] {
        guard let dir = outgoing(machine).first,
              let data = FileManager.default.contents(atPath: machine.path + "/outgoing/\(dir)/push.json") else { return [:] }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    func uploads(_ fleet: Fleet) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: fleet.data.path + "/uploads")) ?? []
    }

    func used(_ machine: Machine) -> Int {
        let du = try? machine.run("vfs-cloud", ["du", "--json"])
        return ((try? JSONSerialization.jsonObject(with: du?.stdout ?? Data())) as? [String: Any])?["used"] as? Int ?? -1
    }

    func inbox(_ machine: Machine) -> [[String: Any]] {
        (try? jsonArray(machine.run("vfs-fetch", ["--json"]))) ?? []
    }

    func outboxStatuses(_ machine: Machine, _ id: String) -> [String] {
        let rows = (try? jsonArray(machine.run("vfs-push", ["outbox", "--json", id]))) ?? []
        return rows.flatMap { ($0["recipients"] as? [[String: Any]] ?? []).compactMap { $0["status"] as? String } }
    }

    @Test("SIGINT, SIGTERM and SIGKILL at several points: each push says what became of it, resume or the relay's idle expiry ends it, fetch --all takes the complete transfers without waiting, uploads and quota come back")
    func interruptedPushesEnd() throws {
        // Uploads idle for 3 s expire at the next sweep (every second).
        let fleet = try Fleet(relayArguments: ["--upload-idle-expiry", "3", "--sweep-interval", "1"])
        let laptop = fleet.laptop
        let inboxFolder = fleet.scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: inboxFolder, withIntermediateDirectories: true)
        let log = { (name: String) in fleet.scratch.url.appendingPathComponent(name) }

        // Two complete transfers, waiting for the phone.
        let first = try fleet.scratch.write("first.txt", Data("the first complete transfer\n".utf8))
        let second = try fleet.scratch.write("second.bin", testBytes(1 << 20, seed: 2))
        var complete: [String] = []
        for path in [first, second] {
            let sent = try laptop.run("vfs-push", ["-d", "phone", path])
            #expect(sent.status == 0, "\(sent.stderr)")
            complete.append(sent.out.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let held = used(laptop)
        #expect(held > 1 << 20)
        let direct = laptop.relayURL
        // A push still sealing once its transfer exists: 64 MiB through a gate that lets the
        // first PATCH (16 MiB) end and holds the second, so the sealing waits on the
        // upload (its window is 24 MiB).
        let big = try fleet.scratch.write("big.bin", testBytes(64 << 20, seed: 3))
        func gatedPush(_ name: String) throws -> (RunningPush, GateProxy) {
            let gate = try GateProxy(to: fleet.relay.port, holdAt: 17 << 20, in: fleet.scratch.url)
            laptop.relayURL = gate.url
            defer { laptop.relayURL = direct }
            let push = try RunningPush(laptop, ["-d", "phone", big], log: log(name))
            try? push.input.fileHandleForWriting.close()
            return (push, gate)
        }

        // 1. SIGINT while sealing, after the relay had bytes and the transfer was made:
        //    withdrawn at once, on the relay too.
        let (interrupted, gate1) = try gatedPush("sigint")
        #expect(eventually { interrupted.transfer != nil }, "\(interrupted.stderr)")
        #expect(spoolRecord(laptop)["length"] == nil, "still sealing")
        let withdrawnID = try #require(interrupted.transfer)
        #expect(inbox(fleet.phone).contains { $0["id"] as? String == withdrawnID })
        #expect(interrupted.signal(SIGINT), "\(interrupted.stderr)")
        #expect(interrupted.stderr.contains("vfs-push: interrupted: transfer \(withdrawnID) was withdrawn"), "\(interrupted.stderr)")
        #expect(outgoing(laptop).isEmpty)
        #expect(uploads(fleet).isEmpty, "no sweep needed: the push terminated its upload")
        #expect(outboxStatuses(laptop, withdrawnID) == ["cancelled"])
        #expect(used(laptop) == held)
        _ = gate1

        // 2. SIGTERM once sealed, its upload held before any byte reached the relay: kept,
        //    and said so with the command that finishes it; resume then sends it (a new
        //    upload if the relay expired the idle one meanwhile).
        let gate = try GateProxy(to: fleet.relay.port, holdAt: 0, in: fleet.scratch.url)
        laptop.relayURL = gate.url
        let third = try fleet.scratch.write("third.bin", testBytes(2 << 20, seed: 4))
        let terminated = try RunningPush(laptop, ["-d", "phone", third], log: log("sigterm"))
        try? terminated.input.fileHandleForWriting.close()
        #expect(eventually { spoolRecord(laptop)["length"] != nil && spoolRecord(laptop)["location"] != nil })
        #expect(terminated.signal(SIGTERM), "\(terminated.stderr)")
        let pushID = try #require(outgoing(laptop).first)
        #expect(terminated.stderr.contains("vfs-push: interrupted: push \(pushID) was kept"), "\(terminated.stderr)")
        #expect(terminated.stderr.contains("\"vfs-push resume\" finishes it, \"vfs-push resume --drop \(pushID)\" withdraws it"))
        laptop.relayURL = direct
        let listed = try laptop.run("vfs-push", ["resume", "--list"])
        #expect(listed.status == 0 && listed.out.contains(pushID) && listed.out.contains("sealed"), "\(listed.out)\(listed.stderr)")
        let resumed = try laptop.run("vfs-push", ["resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let resumedID = resumed.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(resumedID.count == 32)
        complete.append(resumedID)
        #expect(outgoing(laptop).isEmpty)

        // 3. SIGKILL while sealing, with bytes on the relay and a transfer made: the sender
        //    has no say; the relay's idle expiry ends the transfer and frees its upload, and
        //    resume removes the spool, saying why.
        var gated: (RunningPush, GateProxy)? = try gatedPush("sigkill")
        let killed = gated!.0
        #expect(eventually { killed.transfer != nil }, "\(killed.stderr)")
        let killedID = try #require(killed.transfer)
        _ = killed.signal(SIGKILL)
        // Its connection goes with it (the gate, which held it, too).
        gated = nil
        #expect(gated == nil)
        #expect(outgoing(laptop).count == 1)
        #expect(eventually(30) { uploads(fleet).isEmpty && outboxStatuses(laptop, killedID) == ["expired"] },
                "\(uploads(fleet)) \(outboxStatuses(laptop, killedID))")
        #expect(!inbox(fleet.phone).contains { $0["id"] as? String == killedID })
        let cleaned = try laptop.run("vfs-push", ["resume"])
        #expect(cleaned.status == 1, "\(cleaned.stderr)")
        #expect(cleaned.stderr.contains("was interrupted before its bundle was sealed; dropped"), "\(cleaned.stderr)")
        #expect(outgoing(laptop).isEmpty)

        // 4. An upload that stalls (its second PATCH held) while the phone fetches: --all
        //    takes the complete ones first and leaves the stalled one (75) instead of
        //    waiting for it.
        let (stalled, stall) = try gatedPush("stalled")
        #expect(eventually { stalled.transfer != nil }, "\(stalled.stderr)")
        let stalledID = try #require(stalled.transfer)
        let fetched = try fleet.phone.run("vfs-fetch", ["--all", "--idle-wait", "2", "-C", inboxFolder])
        #expect(fetched.status == 75, "\(fetched.stderr)")
        #expect(fetched.stderr.contains("transfer \"\(stalledID)\" is still uploading, and its sender sent nothing for 2 s"), "\(fetched.stderr)")
        #expect(try String(contentsOfFile: inboxFolder + "/first.txt", encoding: .utf8) == "the first complete transfer\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: inboxFolder + "/second.bin")) == testBytes(1 << 20, seed: 2))
        #expect(try Data(contentsOf: URL(fileURLWithPath: inboxFolder + "/third.bin")) == testBytes(2 << 20, seed: 4))
        for id in complete { #expect(outboxStatuses(laptop, id) == ["delivered"]) }
        // What it took of the stalled one stays for a later fetch to resume.
        let partial = fleet.phone.path + "/incoming/\(stalledID).age"
        #expect(FileManager.default.fileExists(atPath: partial))
        // Its sender gives up for good (SIGINT while sealing): withdrawn.
        #expect(stalled.signal(SIGINT))
        #expect(stalled.stderr.contains("vfs-push: interrupted: transfer \(stalledID) was withdrawn"), "\(stalled.stderr)")
        _ = stall

        // Every transfer ended: nothing waits, nothing is held.
        #expect(inbox(fleet.phone).isEmpty, "\(stalled.stderr)\n\(fleet.relay.stderrText.split(separator: "\n").filter { $0.contains("DELETE") || $0.contains("sweep") || $0.contains("error") }.joined(separator: "\n"))")
        #expect(eventually(30) { uploads(fleet).isEmpty })
        #expect(used(laptop) == 0)
        #expect(outgoing(laptop).isEmpty)
        let after = try fleet.phone.run("vfs-fetch", ["--all", "-C", inboxFolder])
        #expect(after.status == 0, "\(after.stderr)")
        // The withdrawn transfer's partial download can never be finished: --all removes it.
        #expect(!FileManager.default.fileExists(atPath: partial))
    }

    /// Starts a push of `arguments` held at the gate, waits until it is sealed and its
    /// upload made, and stops it with SIGTERM: kept. Returns its push id.
    func keptPush(_ fleet: Fleet, _ arguments: [String], name: String) throws -> String {
        let before = Set(outgoing(fleet.laptop))
        let push = try RunningPush(fleet.laptop, arguments, log: fleet.scratch.url.appendingPathComponent(name))
        try? push.input.fileHandleForWriting.close()
        var id = ""
        #expect(eventually {
            guard let new = Set(outgoing(fleet.laptop)).subtracting(before).first,
                  let data = FileManager.default.contents(atPath: fleet.laptop.path + "/outgoing/\(new)/push.json"),
                  let record = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
                  record["length"] != nil, record["location"] != nil else { return false }
            id = new
            return true
        }, "\(push.stderr)")
        #expect(push.signal(SIGTERM), "\(push.stderr)")
        #expect(push.stderr.contains("vfs-push: interrupted: push \(id) was kept"), "\(push.stderr)")
        return id
    }

    @Test("vfs-push resume over three interrupted pushes, the first to a colleague since disabled: the other two arrive, the first is reported and dropped (exit 1); --list and --drop")
    func resumeGoesOn() throws {
        let fleet = try Fleet()
        let laptop = fleet.laptop
        let direct = laptop.relayURL
        let gate = try GateProxy(to: fleet.relay.port, holdAt: 0, in: fleet.scratch.url)
        laptop.relayURL = gate.url
        let toBob = try fleet.scratch.write("bob.txt", Data("for bob\n".utf8))
        let toPhone = try fleet.scratch.write("phone.txt", Data("for the phone\n".utf8))
        let toTablet = try fleet.scratch.write("tablet.txt", Data("for the tablet\n".utf8))
        let impossible = try keptPush(fleet, ["--to", "bob@acme.example", toBob], name: "bob")
        let phonePush = try keptPush(fleet, ["-d", "phone", toPhone], name: "phone")
        let tabletPush = try keptPush(fleet, ["-d", "tablet", toTablet], name: "tablet")
        #expect(outgoing(laptop).sorted() == [impossible, phonePush, tabletPush].sorted())
        laptop.relayURL = direct
        let listed = try laptop.run("vfs-push", ["resume", "--list"])
        #expect(listed.status == 0)
        for id in [impossible, phonePush, tabletPush] { #expect(listed.out.contains(id), "\(listed.out)") }
        #expect(listed.out.contains("bob@acme.example"))
        #expect(try fleet.admin.run(["user", "disable", "bob@acme.example"]).status == 0)

        let resumed = try laptop.run("vfs-push", ["resume"])
        #expect(resumed.status == 1, "\(resumed.stderr)")
        let ids = resumed.out.split(separator: "\n").map(String.init)
        #expect(ids.count == 2, "\(resumed.out)")
        #expect(resumed.stderr.contains("vfs-push: error: push \(impossible): "), "\(resumed.stderr)")
        #expect(resumed.stderr.contains("disabled"), "\(resumed.stderr)")
        #expect(resumed.stderr.contains("it can never be sent, dropped"), "\(resumed.stderr)")
        #expect(resumed.stderr.contains("1 interrupted push not sent: 1 could never be sent and was dropped"), "\(resumed.stderr)")
        #expect(outgoing(laptop).isEmpty)
        for (machine, file, text) in [(fleet.phone, "phone.txt", "for the phone\n"), (fleet.tablet, "tablet.txt", "for the tablet\n")] {
            let folder = fleet.scratch.path("in-\(machine.name)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let fetched = try machine.run("vfs-fetch", ["--all", "-C", folder])
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(try String(contentsOfFile: folder + "/" + file, encoding: .utf8) == text)
        }
        #expect(try laptop.run("vfs-push", ["resume"]).stderr.contains("no interrupted push"))
        #expect(uploads(fleet).isEmpty, "the dropped push's upload was removed from the relay")

        // --drop withdraws one: its upload goes from the relay, its spool from here.
        laptop.relayURL = gate.url
        let dropped = try keptPush(fleet, ["-d", "phone", toPhone], name: "dropped")
        laptop.relayURL = direct
        #expect(uploads(fleet).count == 1)
        let drop = try laptop.run("vfs-push", ["resume", "--drop", String(dropped.prefix(10))])
        #expect(drop.status == 0, "\(drop.stderr)")
        #expect(drop.stderr.contains("dropped push \(dropped)"))
        #expect(outgoing(laptop).isEmpty)
        #expect(uploads(fleet).isEmpty)
        let missing = try laptop.run("vfs-push", ["resume", "--drop", "nosuch"])
        #expect(missing.status == 66)
    }

    @Test("a push to a colleague since disabled: 66, said plainly (no hint to list devices or to resume), and nothing is kept here or on the relay")
    func refusedPushNotKept() throws {
        let fleet = try Fleet()
        let file = try fleet.scratch.write("for-bob.txt", Data("for bob\n".utf8))
        let first = try fleet.laptop.run("vfs-push", ["--to", "bob@acme.example", file])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try fleet.admin.run(["user", "disable", "bob@acme.example"]).status == 0)
        let refused = try fleet.laptop.run("vfs-push", ["--to", "bob@acme.example", file])
        #expect(refused.status == 66, "\(refused.stderr)")
        #expect(refused.stderr.contains("\"bob@acme.example\" is disabled"), "\(refused.stderr)")
        #expect(refused.stderr.contains("nothing was sent, and the push was not kept"), "\(refused.stderr)")
        #expect(refused.stderr.contains("vfs-relay user enable"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("vfs-push resume"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("vfs-fetch show what exists"), "\(refused.stderr)")
        #expect(outgoing(fleet.laptop).isEmpty)
        #expect(eventually { uploads(fleet).isEmpty })
    }

    @Test("vfs-relay gc, with no sweep running, expires an upload idle past the relay's --upload-idle-expiry: its file, the quota it held and its transfer end")
    func gcExpiresIdleUpload() throws {
        let fleet = try Fleet(relayArguments: ["--upload-idle-expiry", "2", "--sweep-interval", "3600"])
        let laptop = fleet.laptop
        let held = used(laptop)
        let big = try fleet.scratch.write("big.bin", testBytes(40 << 20, seed: 9))
        var gate: GateProxy? = try GateProxy(to: fleet.relay.port, holdAt: 17 << 20, in: fleet.scratch.url)
        let direct = laptop.relayURL
        laptop.relayURL = gate?.url
        let push = try RunningPush(laptop, ["-d", "phone", big], log: fleet.scratch.url.appendingPathComponent("killed"))
        laptop.relayURL = direct
        try? push.input.fileHandleForWriting.close()
        #expect(eventually { push.transfer != nil }, "\(push.stderr)")
        let id = try #require(push.transfer)
        _ = push.signal(SIGKILL)
        gate = nil
        #expect(gate == nil)
        #expect(uploads(fleet).count == 1)
        #expect(used(laptop) > held)
        var report: [String: Any] = [:]
        #expect(eventually(60) {
            let gc = try? fleet.admin.run(["gc", "--json"])
            report = ((try? JSONSerialization.jsonObject(with: gc?.stdout ?? Data())) as? [String: Any]) ?? [:]
            return report["expiredUploads"] as? Int == 1
        }, "\(report)")
        #expect(uploads(fleet).isEmpty)
        #expect(used(laptop) == held)
        #expect(outboxStatuses(laptop, id) == ["expired"])
        #expect(!inbox(fleet.phone).contains { $0["id"] as? String == id })
    }

    @Test("vfs-relay devices: a device no device of its user approved is pending, not active (issue 44, item 6)")
    func operatorSeesPending() throws {
        let fleet = try Fleet()
        let spare = try Machine("spare", in: fleet.scratch)
        try spare.enroll(port: fleet.relay.port, code: try fleet.admin.invite("alice@acme.example"))
        let listed = try fleet.admin.run(["devices"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let state = { (machine: Machine) in
            listed.out.split(separator: "\n").first { $0.contains(machine.id) }.map { String($0.split(separator: "\t").last ?? "") }
        }
        #expect(state(spare) == "pending", "\(listed.out)")
        for machine in [fleet.laptop, fleet.phone, fleet.tablet, fleet.desktop] { #expect(state(machine) == "active", "\(listed.out)") }
        #expect(try fleet.laptop.run("vfs-device", ["approve", "spare", "--fingerprint", try spare.fingerprint()]).status == 0)
        let after = try fleet.admin.run(["devices"])
        #expect(after.out.split(separator: "\n").first { $0.contains(spare.id) }?.hasSuffix("\tactive") == true, "\(after.out)")
    }
}

