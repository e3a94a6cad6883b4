import Foundation
import Testing
import VFSCore
import VFSTestSupport

/// Issue 43, item 3: a colleague's chain pinned at first contact could be a relay's
/// forgery until the safety code was compared: receivers say so, `--verified-only`
/// refuses, and merely listing the inbox pins nothing.
@Suite("people: a colleague is pinned, not confirmed, until the safety code", .serialized)
struct PeopleConfirmationTests {
    static let alice = "alice@acme.example", bob = "bob@acme.example"

    func ok(_ run: Run, _ what: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 0, "\(what): \(run.stderr)", sourceLocation: sourceLocation)
    }

    func pinned(_ machine: Machine) throws -> [String] {
        let data = try Data(contentsOf: machine.home.appendingPathComponent("pins.json"))
        return (((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["chains"] as? [String: Any]) ?? [:]).keys.sorted()
    }

    @Test("bob's transfer to alice: listed as not pinned and pinning nothing, refused by --verified-only (77), fetched as 'pinned, not confirmed' with a warning, 'verified' once the code was confirmed")
    func unconfirmedColleague() throws {
        let fleet = try Fleet()
        let phone = fleet.phone
        let out = fleet.scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let file = try fleet.scratch.write("from-bob.txt", Data("from bob\n".utf8))
        ok(try fleet.desktop.run("vfs-push", ["--to", Self.alice, file]), "bob sends")

        let listed = try phone.run("vfs-fetch", [])
        ok(listed, "list")
        #expect(listed.out.contains("desktop of bob@acme.example (not pinned, not confirmed)"), "\(listed.out)")
        #expect(try pinned(phone) == [Self.alice], "a listing pins nobody")
        let json = jsonArray(try phone.run("vfs-fetch", ["--json"]))
        #expect(json.first?["confirmed"] as? Bool == false)
        #expect(json.first?["pinned"] as? Bool == false)

        let refused = try phone.run("vfs-fetch", ["--all", "--verified-only", "-C", out])
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr.contains("is from bob@acme.example, whose safety code you have not confirmed: nothing was unpacked"))
        #expect(refused.stderr.contains("vfs-device verify bob@acme.example"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)

        let fetched = try phone.run("vfs-fetch", ["--all", "-v", "-C", out])
        ok(fetched, "fetch")
        #expect(fetched.stderr.contains("is from \"desktop\" of bob@acme.example (pinned, not confirmed)"), "\(fetched.stderr)")
        #expect(!fetched.stderr.contains("(verified)"))
        #expect(fetched.stderr.contains("vfs-fetch: warning: transfer"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["from-bob.txt"])

        // The code compared (here: read on alice's side and given back), the next one is verified.
        let code = try phone.run("vfs-device", ["verify", Self.bob])
        ok(code, "verify")
        ok(try phone.run("vfs-device", ["verify", Self.bob, "--confirm", code.out.trimmingCharacters(in: .whitespacesAndNewlines)]), "confirm")
        let second = try fleet.scratch.write("again.txt", Data("again\n".utf8))
        ok(try fleet.desktop.run("vfs-push", ["--to", Self.alice, second]), "bob sends again")
        #expect(!(try phone.run("vfs-fetch", [])).out.contains("confirmed"))
        let confirmed = try phone.run("vfs-fetch", ["--all", "-v", "--verified-only", "-C", out])
        ok(confirmed, "fetch --verified-only after confirming")
        #expect(confirmed.stderr.contains("is from \"desktop\" of bob@acme.example (verified)"), "\(confirmed.stderr)")
        #expect(!confirmed.stderr.contains("warning"))
    }
}

/// Issue 43, item 9: one colleague's device with a recipient this vfs can't encrypt to
/// does not stop a send to them or to anyone else.
@Suite("people: a device whose recipient can't be encrypted to is left out, named", .serialized)
struct PeopleRecipientTests {
    static let bob = "bob@acme.example"

    @Test("bob's chain holds a device with a recipient that is no age recipient: alice's send leaves it out, names it and bob, and bob's desktop opens it")
    func unparsableRecipient() throws {
        let fleet = try Fleet()
        let relay = RelayClient(port: fleet.relay.port)
        // Enrolled through the API with the recipient "age1bobodd" (no age recipient), then approved by bob's desktop.
        let odd = try relay.enroll(code: try fleet.admin.invite(Self.bob), name: "bobodd")
        let key = try Ed25519.SigningKey()
        let published = try relay.request("PUT", "/v1/devices/\(odd.id)/signing-key", token: odd.token,
                                          json: #"{"signingKey":"\#(Data(key.publicKey).base64EncodedString())"}"#)
        #expect(published.status == 200, "\(published.text)")
        let approve = try fleet.desktop.run("vfs-device", ["approve", "bobodd", "--fingerprint",
                                                           Fingerprint.device(signingKey: key.publicKey, recipient: "age1bobodd")])
        #expect(approve.status == 0, "\(approve.stderr)")

        let file = try fleet.scratch.write("for-bob.txt", Data("for bob\n".utf8))
        let push = try fleet.laptop.run("vfs-push", ["--to", Self.bob, file])
        #expect(push.status == 0, "\(push.stderr)")
        #expect(push.stderr.contains("leaving out \"bobodd\" of bob@acme.example: its recipient is not one this vfs can encrypt to"), "\(push.stderr)")
        let out = fleet.scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let fetched = try fleet.desktop.run("vfs-fetch", ["--all", "-C", out])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(FileManager.default.contents(atPath: out + "/for-bob.txt") == Data("for bob\n".utf8))
    }
}
