import Foundation
import Testing
import VFSBundle
import VFSCore
import VFSTestSupport

/// Issue 43, item 8: a bundle's signature covers whom it is for and when it was signed, so
/// a relay can neither pass a forwarded bundle off as from its author nor deliver an old
/// one again (docs/device-chain.md, "Bundle signatures").
@Suite("bundle signatures name their recipients and time", .serialized)
struct BundleAddressTests {
    func ok(_ run: Run, _ what: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 0, "\(what): \(run.stderr)", sourceLocation: sourceLocation)
    }

    func token(_ machine: Machine) throws -> String {
        let entry = try #require(try machine.keychainEntries().first { $0.service == "vfs-relay" && $0.account == "token" })
        return String(decoding: entry.secret.bytes, as: UTF8.self)
    }

    /// Uploads `bytes` as a transfer to `device` with `sender`'s token: what a relay (or its
    /// database holder) can deliver, whatever the bytes.
    func deliver(_ bytes: [UInt8], from sender: Machine, to device: String, fleet: Fleet) throws -> String {
        let relay = RelayClient(port: fleet.relay.port)
        let token = try token(sender)
        return try relay.send(upload: try relay.upload(bytes, token: token), to: [device], token: token)
    }

    func emptyFolder(_ fleet: Fleet, _ name: String) throws -> String {
        let path = fleet.scratch.path(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("fetch -v shows whom a bundle was signed for and when; the same signed bundle delivered again is refused as a replay, one re-encrypted to another device as forwarded (77, nothing unpacked)")
    func replayAndForward() throws {
        let fleet = try Fleet()
        let file = try fleet.scratch.write("note.txt", Data("for the phone\n".utf8))
        let push = try fleet.laptop.run("vfs-push", ["-d", "phone", file])
        ok(push, "push")
        let id = push.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let raw = try fleet.phone.run("vfs-fetch", [id, "--raw"])
        ok(raw, "raw")
        let ciphertext = Array(raw.stdout)

        let out = try emptyFolder(fleet, "out")
        let fetched = try fleet.phone.run("vfs-fetch", ["-v", id, "-C", out])
        ok(fetched, "fetch")
        #expect(fetched.stderr.contains("is from \"laptop\" of alice@acme.example (verified)"), "\(fetched.stderr)")
        #expect(fetched.stderr.contains("transfer \(id) was signed 20"), "\(fetched.stderr)")
        #expect(fetched.stderr.contains("for 1 device(s): \"phone\" of alice@acme.example"), "\(fetched.stderr)")
        #expect(FileManager.default.contents(atPath: out + "/note.txt") == Data("for the phone\n".utf8))

        // The relay delivers the very same bundle again, as a new transfer.
        let replayed = try deliver(ciphertext, from: fleet.laptop, to: fleet.phone.id, fleet: fleet)
        let replayOut = try emptyFolder(fleet, "replay")
        let replay = try fleet.phone.run("vfs-fetch", [replayed, "-C", replayOut])
        #expect(replay.status == 77, "\(replay.stderr)")
        #expect(replay.stderr.contains("this device received the same signed bundle before, as transfer \(id): a replay"), "\(replay.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: replayOut).isEmpty)

        // The phone's plaintext, re-encrypted to the tablet: still the laptop's valid signature.
        let identity = fleet.scratch.path("phone-identity.txt")
        try fleet.phone.exportIdentity(to: identity)
        let sealed = try fleet.scratch.write("sealed.age", Data(ciphertext))
        let plain = fleet.scratch.path("plain.tar.zst")
        ok(try Tools.run("vfs-decrypt", ["-i", identity, "-o", plain, sealed]), "decrypt")
        let tabletRecipient = try #require(jsonArray(try fleet.laptop.run("vfs-device", ["list", "--json"]))
            .first { $0["name"] as? String == "tablet" }?["recipient"] as? String)
        let forwarded = fleet.scratch.path("forwarded.age")
        ok(try Tools.run("vfs-encrypt", ["-r", tabletRecipient, "-o", forwarded, plain]), "encrypt to the tablet")
        let forwardedID = try deliver(Array(try Data(contentsOf: URL(fileURLWithPath: forwarded))), from: fleet.laptop,
                                      to: fleet.tablet.id, fleet: fleet)
        let forwardOut = try emptyFolder(fleet, "forward")
        let forward = try fleet.tablet.run("vfs-fetch", [forwardedID, "-C", forwardOut])
        #expect(forward.status == 77, "\(forward.stderr)")
        #expect(forward.stderr.contains("is not one the sender signed the bundle for: it was forwarded"), "\(forward.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: forwardOut).isEmpty)
    }

    @Test("a signature that names no recipients and no time (version 2), by the sender's own key, is unverified: refused (77) unless --allow-unverified, which says so")
    func unaddressedSignature() throws {
        let fleet = try Fleet()
        let laptopKey = try #require(try fleet.laptop.keychainEntries().first {
            $0.kind == .secret && $0.service == "vfs-device" && $0.account == "signing-key"
        })
        let key = try Ed25519.SigningKey(seed: laptopKey.secret)
        let phoneRecipient = try #require(jsonArray(try fleet.laptop.run("vfs-device", ["list", "--json"]))
            .first { $0["name"] as? String == "phone" }?["recipient"] as? String)
        let file = try fleet.scratch.write("old.txt", Data("signed the old way\n".utf8))
        let plan = try BundlePlan(paths: [file], digestsLast: true)
        let bundle = fleet.scratch.path("old.age")
        let sink = try AtomicOutputFile(path: bundle)
        try BundleWriter.seal(plan, manifest: plan.manifest(group: nil, accessID: nil, sender: nil), recipients: [try X25519Recipient(phoneRecipient)],
                              to: sink, signer: BundleSignature.Signer(user: "alice@acme.example", device: fleet.laptop.id, key: key))
        try sink.commit()
        let id = try deliver(Array(try Data(contentsOf: URL(fileURLWithPath: bundle))), from: fleet.laptop, to: fleet.phone.id, fleet: fleet)
        let out = try emptyFolder(fleet, "out")
        let refused = try fleet.phone.run("vfs-fetch", [id, "-C", out])
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr.contains("a version 2 signature, which does not say whom the bundle is for nor when it was signed"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
        let allowed = try fleet.phone.run("vfs-fetch", [id, "--allow-unverified", "-C", out])
        ok(allowed, "--allow-unverified")
        #expect(allowed.stderr.contains("UNVERIFIED sender"))
        #expect(FileManager.default.contents(atPath: out + "/old.txt") == Data("signed the old way\n".utf8))
    }
}
