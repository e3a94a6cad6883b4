import Foundation
import Testing
import VFSCore
import VFSTestSupport

/// Issue 43, item 6: the operator starts a new user's chain with a device of their own
/// before the user's first device enrols. That device finds a chain it has never seen:
/// it lists its devices and trusts nothing of it until the person says they are theirs
/// (docs/device-chain.md, "Enrolment and approval").
@Suite("a chain a device has never seen is listed and taken only on confirmation", .serialized)
struct UnseenChainTests {
    static let carol = "carol@acme.example"

    func ok(_ run: Run, _ what: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 0, "\(what): \(run.stderr)", sourceLocation: sourceLocation)
    }

    func pinned(_ machine: Machine) -> Bool {
        let data = FileManager.default.contents(atPath: machine.path + "/pins.json") ?? Data()
        let chains = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["chains"] as? [String: Any]
        return chains?[Self.carol] != nil
    }

    @Test("the operator's device starts carol's chain first: her laptop's enrolment lists it and stops (77), pins nothing, sends nothing to it; a wrong fingerprint or a no on a terminal keeps it so; her fingerprint takes it; list names the root and when; a reset lets her laptop start its own")
    func operatorRoot() throws {
        let fleet = try Fleet()
        let url = "http://127.0.0.1:\(fleet.relay.port)"
        let code = try fleet.admin.addUser(Self.carol, org: "acme")
        // The operator's own machine, enrolled as carol with a code of the operator's, starts her chain.
        let opsbox = try Machine("opsbox", in: fleet.scratch)
        let opsEnrol = try opsbox.run("vfs-device", ["enroll", url, try fleet.admin.invite(Self.carol), "--name", "opsbox"])
        ok(opsEnrol, "the operator's device")
        #expect(opsEnrol.stderr.contains("this device starts \(Self.carol)'s device chain (its root)"), "\(opsEnrol.stderr)")
        let opsPrint = try opsbox.fingerprint()

        // Carol's first device, not on a terminal: listed, refused, enrolled but trusting nothing.
        let laptop = try Machine("carol-laptop", in: fleet.scratch)
        let enrolled = try laptop.run("vfs-device", ["enroll", url, code, "--name", "laptop"])
        #expect(enrolled.status == 77, "\(enrolled.stderr)")
        let lines = enrolled.stderr.split(separator: "\n").map(String.init)
        let error = try #require(lines.first { $0.hasPrefix("vfs-device: error: ") }, "\(enrolled.stderr)")
        #expect(error.hasPrefix("vfs-device: error: \(Self.carol) already has a device chain, which this device has never seen, started by \"opsbox\" on 20"), "\(error)")
        #expect(enrolled.stderr.contains("with 1 device(s) now: nothing was trusted"), "\(enrolled.stderr)")
        #expect(enrolled.stderr.contains("vfs-device: hint: in it: \"opsbox\" \(opsPrint), added "), "\(enrolled.stderr)")
        #expect(enrolled.stderr.contains("vfs-device list --accept-chain FINGERPRINT"), "\(enrolled.stderr)")
        #expect(enrolled.stderr.contains("vfs-relay user reset-chain"), "\(enrolled.stderr)")
        laptop.id = enrolled.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(laptop.id.count == 32, "the device is enrolled and its id printed: \(enrolled.out)")
        #expect(!pinned(laptop))
        // Nothing goes to the operator's device from here, nor any listing before confirmation.
        let file = try fleet.scratch.write("secret.txt", Data("carol's\n".utf8))
        let push = try laptop.run("vfs-push", ["-d", "opsbox", file])
        #expect(push.status == 77, "\(push.stderr)")
        #expect(push.stderr.contains("never seen"), "\(push.stderr)")
        #expect(try laptop.run("vfs-device", ["list"]).status == 77)
        // A fingerprint that is none of its devices (her own) is refused too.
        let own = try laptop.fingerprint()
        let wrong = try laptop.run("vfs-device", ["list", "--accept-chain", own])
        #expect(wrong.status == 77, "\(wrong.stderr)")
        #expect(wrong.stderr.contains("\(own) is the fingerprint of none of them: nothing was trusted"), "\(wrong.stderr)")
        #expect(try laptop.run("vfs-device", ["list", "--accept-chain", "not-a-fingerprint"]).status == 64)
        // On a terminal it lists the devices and asks; no keeps it refused.
        let script = ["-qec", "\(Tools.binDir.appendingPathComponent("vfs-device").path) list", "/dev/null"]
        let declined = try Tools.run("script", script, stdin: Data("n\n".utf8), environment: laptop.environment)
        #expect(declined.out.contains("\"opsbox\" \(opsPrint), added "), "\(declined.out)")
        #expect(declined.out.contains("are all of these your devices? [y/N]"), "\(declined.out)")
        #expect(declined.status != 0)
        #expect(!pinned(laptop))

        // The operator, holding the database, lists carol's laptop with a signing key of
        // theirs and approves it from the opsbox: the laptop is in the chain now, but not
        // with its own key, and still trusts nothing of it.
        let planted = try Ed25519.SigningKey()
        try fleet.sql("UPDATE devices SET signing_key = '\(Data(planted.publicKey).base64EncodedString())' WHERE id = '\(laptop.id)'")
        let laptopRecipient = try #require(jsonArray(try opsbox.run("vfs-device", ["list", "--json"]))
            .first { $0["name"] as? String == "laptop" }?["recipient"] as? String)
        let plantedPrint = Fingerprint.device(signingKey: planted.publicKey, recipient: laptopRecipient)
        ok(try opsbox.run("vfs-device", ["approve", "laptop", "--fingerprint", plantedPrint]), "the operator approves carol's laptop")
        let approvedUnseen = try laptop.run("vfs-device", ["list"])
        #expect(approvedUnseen.status == 77, "\(approvedUnseen.stderr)")
        #expect(approvedUnseen.stderr.contains("started by \"opsbox\""), "\(approvedUnseen.stderr)")
        #expect(!pinned(laptop))
        try fleet.sql("UPDATE devices SET signing_key = NULL WHERE id = '\(laptop.id)'")

        // Carol's way out: her operator resets her chain; her laptop starts its own.
        ok(try fleet.admin.run(["user", "reset-chain", "-y", Self.carol]), "reset-chain")
        let rooted = try laptop.run("vfs-device", ["list", "--json"])
        ok(rooted, "carol's laptop after the reset")
        #expect(rooted.stderr.contains("this device starts \(Self.carol)'s device chain (its root)"), "\(rooted.stderr)")
        #expect(rooted.stderr.contains("your device chain was started by \"laptop\" (\(own)) on 20"), "\(rooted.stderr)")
        let rows = jsonArray(rooted)
        #expect(rows.first { $0["name"] as? String == "laptop" }?["root"] as? Bool == true)
        #expect(rows.first { $0["name"] as? String == "laptop" }?["status"] as? String == "active")
        #expect(rows.first { $0["name"] as? String == "opsbox" }?["status"] as? String == "pending")
        #expect(pinned(laptop))

        // A device of hers that does know the chain's devices takes it with a fingerprint.
        let phone = try Machine("carol-phone", in: fleet.scratch)
        let phoneEnrol = try phone.run("vfs-device", ["enroll", url, try fleet.admin.invite(Self.carol), "--name", "phone", "--accept-chain", own])
        ok(phoneEnrol, "enroll --accept-chain")
        #expect(phoneEnrol.stderr.contains("this device is pending"), "\(phoneEnrol.stderr)")
        #expect(pinned(phone))
        let listed = try phone.run("vfs-device", ["list"])
        ok(listed)
        #expect(listed.stderr.contains("your device chain was started by \"laptop\" (\(own)) on 20"), "\(listed.stderr)")
    }
}
