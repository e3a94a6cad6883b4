import Foundation
import Testing
import VFSCore
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 43: neither the relay, nor a stolen token, nor a device the user never approved
/// can lock a user out of their own device chain (docs/device-chain.md, "Threat model").
@Suite("device chain: no lockout by a token, a pending device or the relay", .serialized)
struct DeviceChainLockoutTests {
    static let alice = "alice@acme.example"

    func ok(_ run: Run, _ what: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 0, "\(what): \(run.stderr)", sourceLocation: sourceLocation)
    }

    /// The relay token a machine keeps in its keychain.
    static func token(_ machine: Machine) throws -> String {
        let entry = try #require(try machine.keychainEntries().first { $0.service == "vfs-relay" && $0.account == "token" })
        return String(decoding: entry.secret.bytes, as: UTF8.self)
    }

    /// Alice's chain as the relay stores it.
    static func chain(_ fleet: Fleet, token: String) throws -> [DeviceChain.Statement] {
        let answer = try RelayClient(port: fleet.relay.port).request("GET", "/v1/chain", token: token)
        return try DeviceChain.decodeWire(answer.body)
    }

    /// A statement that follows `chain`, claiming `signer`, signed by `key` (not `signer`'s
    /// own key when forged).
    static func next(_ chain: [DeviceChain.Statement], _ action: DeviceChain.Action, signer: String,
                     key: Ed25519.SigningKey) throws -> DeviceChain.Statement {
        try .signed(user: alice, sequence: UInt64(chain.count), previous: chain.last!.hash, timestamp: 1_800_000_000,
                    signer: signer, action: action, key: key)
    }

    static func post(_ statement: DeviceChain.Statement, fleet: Fleet, token: String) throws -> HTTPAnswer {
        try RelayClient(port: fleet.relay.port).request(
            "POST", "/v1/chain", token: token, json: #"{"statement":"\#(Data(statement.encoded).base64EncodedString())"}"#)
    }

    /// Stores `statement` as the relay's database holder can (no check of any kind).
    static func store(_ statement: DeviceChain.Statement, fleet: Fleet) throws {
        let user = "(SELECT id FROM users WHERE email = '\(alice)')"
        try fleet.sql("""
            INSERT INTO device_chains(user_id, sequence, statement, hash, created)
            VALUES (\(user), \(statement.sequence), '\(Data(statement.encoded).base64EncodedString())', '\(statement.hash.map { String(format: "%02x", $0) }.joined())', 0)
            """)
    }

    func status(of name: String, on machine: Machine) throws -> String? {
        let run = try machine.run("vfs-device", ["list", "--json"])
        ok(run, "list on \(machine.name)")
        return jsonArray(run).first { $0["name"] as? String == name }?["status"] as? String
    }

    @Test("a stolen token's statement (random signature) and a pending device's add of itself are refused by the relay (403); every device keeps working")
    func relayRefusesForgedStatements() throws {
        let fleet = try Fleet()
        let shadow = try Machine("shadow", in: fleet.scratch)
        try shadow.enroll(port: fleet.relay.port, code: try fleet.admin.invite(Self.alice))
        let laptopToken = try Self.token(fleet.laptop)
        let chain = try Self.chain(fleet, token: laptopToken)
        // The laptop's token, stolen: the thief has no signing key of the user's.
        let ghost = DeviceChain.DeviceEntry(id: String(repeating: "e", count: 32), name: "ghost", recipient: "age1ghost",
                                            signingKey: try Ed25519.SigningKey().publicKey)
        let forged = try Self.next(chain, .add(ghost), signer: fleet.laptop.id, key: try Ed25519.SigningKey())
        let refused = try Self.post(forged, fleet: fleet, token: laptopToken)
        #expect(refused.status == 403, "\(refused.status) \(refused.text)")
        #expect(refused.text.contains("bad signature"))
        // The user's own pending device adds itself, with a key of its own.
        let shadowKey = try Ed25519.SigningKey()
        let me = DeviceChain.DeviceEntry(id: shadow.id, name: "shadow", recipient: "age1shadow", signingKey: shadowKey.publicKey)
        let selfAdd = try Self.next(chain, .add(me), signer: shadow.id, key: shadowKey)
        let pending = try Self.post(selfAdd, fleet: fleet, token: try Self.token(shadow))
        #expect(pending.status == 403, "\(pending.status) \(pending.text)")
        #expect(try Self.chain(fleet, token: laptopToken) == chain)

        // Nobody is locked out: the devices list, push, and approve.
        let file = try fleet.scratch.write("note.txt", Data("still mine\n".utf8))
        ok(try fleet.phone.run("vfs-push", ["-d", "laptop", file]), "push")
        ok(try fleet.tablet.run("vfs-device", ["list"]), "list")
        try fleet.phone.approve(shadow)
        #expect(try status(of: "shadow", on: fleet.laptop) == "active")
    }

    @Test("a relay serving a tail that does not verify: devices use the verified statements, warn, and still approve; the operator cuts the tail")
    func unverifiedTailKeptOut() throws {
        let fleet = try Fleet()
        let shadow = try Machine("shadow", in: fleet.scratch)
        try shadow.enroll(port: fleet.relay.port, code: try fleet.admin.invite(Self.alice))
        let chain = try Self.chain(fleet, token: try Self.token(fleet.laptop))
        // Stored behind the relay's back (or by a relay from before it verified).
        let ghost = DeviceChain.DeviceEntry(id: String(repeating: "e", count: 32), name: "ghost", recipient: "age1ghost",
                                            signingKey: try Ed25519.SigningKey().publicKey)
        try Self.store(try Self.next(chain, .add(ghost), signer: fleet.laptop.id, key: try Ed25519.SigningKey()), fleet: fleet)

        let listed = try fleet.phone.run("vfs-device", ["list"])
        ok(listed, "list with a bad tail")
        #expect(listed.stderr.contains("vfs-device: warning: the relay serves alice@acme.example's device chain with statements after number 2 that do not verify"))
        #expect(listed.stderr.contains("statement 3: bad signature"))
        #expect(!listed.out.contains("ghost"))
        let file = try fleet.scratch.write("note.txt", Data("still mine\n".utf8))
        let push = try fleet.laptop.run("vfs-push", ["-d", "phone", file])
        ok(push, "push with a bad tail")
        #expect(push.stderr.contains("vfs-push: warning:"))
        // Approving appends after the verified statements; the relay drops the bad tail.
        try fleet.laptop.approve(shadow)
        let after = try fleet.phone.run("vfs-device", ["list", "--json"])
        ok(after)
        #expect(!after.stderr.contains("warning"))
        #expect(jsonArray(after).first { $0["name"] as? String == "shadow" }?["status"] as? String == "active")

        // Again a bad tail (two statements); the operator cuts it, and only it.
        let approved = try Self.chain(fleet, token: try Self.token(fleet.laptop))
        #expect(approved.count == 4)
        let bad = try Self.next(approved, .remove(deviceId: fleet.phone.id), signer: shadow.id, key: try Ed25519.SigningKey())
        try Self.store(bad, fleet: fleet)
        try Self.store(try Self.next(approved + [bad], .remove(deviceId: fleet.laptop.id), signer: shadow.id, key: try Ed25519.SigningKey()),
                       fleet: fleet)
        let cut = try fleet.admin.run(["user", "cut-chain", Self.alice])
        ok(cut, "cut-chain")
        #expect(cut.stderr.contains("cut 2 statement(s) of alice@acme.example's device chain that do not verify (device chain: statement 4: bad signature); 4 kept"))
        #expect(try Self.chain(fleet, token: try Self.token(fleet.laptop)) == approved)
        let again = try fleet.admin.run(["user", "cut-chain", Self.alice])
        ok(again, "cut-chain again")
        #expect(again.stderr.contains("alice@acme.example's device chain verifies: 4 statement(s), nothing cut"))
        #expect(try fleet.admin.run(["user", "cut-chain", "nobody@acme.example"]).status == 66)
        let clean = try fleet.tablet.run("vfs-device", ["list"])
        ok(clean)
        #expect(!clean.stderr.contains("warning"))
    }

    /// Starts `vfs-fetch --watch --wipe-on-logout` on `machine` into a folder holding one
    /// file, and waits until it watches.
    func watching(_ machine: Machine, fleet: Fleet) throws -> (Process, folder: String, log: URL) {
        let folder = fleet.scratch.path("inbox-\(machine.name)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try fleet.scratch.write("inbox-\(machine.name)/kept.txt", Data("fetched earlier\n".utf8))
        let log = fleet.scratch.url.appendingPathComponent("watch-\(machine.name).log")
        let watcher = try machine.start("vfs-fetch", ["--watch", "--wipe-on-logout", "-C", folder], log: log)
        #expect(eventually { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("watching") })
        return (watcher, folder, log)
    }

    func ended(_ watcher: Process, log: URL) -> String {
        #expect(eventually { !watcher.isRunning })
        if watcher.isRunning { kill(watcher.processIdentifier, SIGKILL) }
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 77)
        return (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    }

    @Test("an operator's revoke or a disabled user stops the token of a watching device and erases nothing (its keys, its folder), the user's last device included")
    func relayLogoutErasesNothing() throws {
        let fleet = try Fleet()
        let (watcher, folder, log) = try watching(fleet.phone, fleet: fleet)
        defer { if watcher.isRunning { kill(watcher.processIdentifier, SIGKILL) } }
        ok(try fleet.admin.run(["devices", "revoke", fleet.phone.id]), "operator's revoke")
        let said = ended(watcher, log: log)
        #expect(said.contains("vfs-fetch: error: device \"phone\" (\(fleet.phone.id)) was logged out by the relay, but none of your devices removed it from your device chain: its keys and files were kept"), "\(said)")
        #expect(try fleet.phone.keychainEntries().count == 3, "token, identity and signing key")
        #expect(FileManager.default.fileExists(atPath: folder + "/kept.txt"))

        // Bob's desktop, his only device (the chain's last live key), while the operator disables him.
        let desktop = try watching(fleet.desktop, fleet: fleet)
        defer { if desktop.0.isRunning { kill(desktop.0.processIdentifier, SIGKILL) } }
        ok(try fleet.admin.run(["user", "disable", "bob@acme.example"]), "disable")
        #expect(ended(desktop.0, log: desktop.log).contains("was logged out by the relay, but none of your devices removed it"))
        #expect(try fleet.desktop.keychainEntries().count == 3)
        #expect(FileManager.default.fileExists(atPath: desktop.folder + "/kept.txt"))
        // Offline at the time: the relay's "revoked" answer, the same outcome.
        let again = try fleet.desktop.run("vfs-fetch", ["--watch", "--wipe-on-logout", "-C", desktop.folder])
        #expect(again.status == 77)
        #expect(again.stderr.contains("its keys and files were kept"))
        #expect(try fleet.desktop.keychainEntries().count == 3)
        // Enabled again, the user gets back in with a new code; nothing was lost on the way.
        ok(try fleet.admin.run(["user", "enable", "bob@acme.example"]), "enable")
    }

    @Test("vfs-device revoke on an approved device: the removal is in the chain, so the lost device's watcher erases its keys and shreds its folder")
    func chainRemovalErases() throws {
        let fleet = try Fleet()
        let (watcher, folder, log) = try watching(fleet.tablet, fleet: fleet)
        defer { if watcher.isRunning { kill(watcher.processIdentifier, SIGKILL) } }
        ok(try fleet.phone.run("vfs-device", ["revoke", "-y", "tablet"]), "revoke by the phone")
        let said = ended(watcher, log: log)
        #expect(said.contains("\"phone\" removed this device from your device chain: erasing its keys"), "\(said)")
        #expect(said.contains("vfs-fetch: error: device \"tablet\" was logged out by the relay; its token and identity were erased"))
        #expect(try fleet.tablet.keychainEntries().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("a pending device logs out nobody: the relay refuses its DELETE of another device (403), and vfs-device revoke there fails (77)")
    func pendingDeviceLogsOutNobody() throws {
        let fleet = try Fleet()
        let shadow = try Machine("shadow", in: fleet.scratch)
        try shadow.enroll(port: fleet.relay.port, code: try fleet.admin.invite(Self.alice))
        let refused = try RelayClient(port: fleet.relay.port).request("DELETE", "/v1/devices/\(fleet.laptop.id)", token: try Self.token(shadow))
        #expect(refused.status == 403, "\(refused.status) \(refused.text)")
        let revoke = try shadow.run("vfs-device", ["revoke", "-y", "phone"])
        #expect(revoke.status == 77, "\(revoke.stderr)")
        ok(try fleet.laptop.run("vfs-device", ["status"]), "the laptop is still in")
        ok(try fleet.phone.run("vfs-device", ["status"]), "the phone is still in")
        // An approved device logs the shadow out; the shadow may log itself out.
        let other = try Machine("other", in: fleet.scratch)
        try other.enroll(port: fleet.relay.port, code: try fleet.admin.invite(Self.alice))
        #expect(try RelayClient(port: fleet.relay.port).request("DELETE", "/v1/devices/\(other.id)", token: try Self.token(other)).status == 204)
        ok(try fleet.laptop.run("vfs-device", ["revoke", "-y", "shadow"]), "revoke of a pending device")
    }
}
