import Foundation
import Testing
import VFSCore
@testable import VFSRelayClient
import VFSRelayProtocol
import VFSTestSupport

/// `vfs-device enroll`'s workflow (`Enrolment`) as a library call, against a relay run in
/// this process (`WorkflowRelay`).
@Suite("enrolment workflow")
struct EnrolmentTests {
    static let alice = "alice@acme.example"

    static func place(_ home: String) -> CredentialPlace {
        CredentialPlace(tokenFile: home + "/token", identityFile: home + "/identity.txt", keychainPath: home + "/keychain",
                        passcode: { throw ToolFailure("no keychain in these tests") })
    }

    /// The enrolment of a machine whose home (credentials in files) is `home`.
    static func enrolment(_ relay: WorkflowRelay, code: String, home: String, name: String = "laptop",
                          acceptance: ChainAcceptance = .refuse, report: KeptReport) throws -> Enrolment {
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return Enrolment(url: relay.url, code: code, name: name, platform: "linux", identity: .x25519(try X25519Identity.generate()),
                  stubRecipient: nil, caFile: nil, keepCA: nil, insecureHTTP: false, timeout: nil, place: place(home), home: home,
                  acceptance: acceptance, report: report.report)
    }

    static func join(_ enrolment: Enrolment, acceptance: ChainAcceptance = .refuse)
        -> (RelaySession, RelayClient, Ed25519.SigningKey) async throws -> Void {
        { session, client, key in
            _ = try await session.joinChain(client, key: key, recipient: enrolment.recipient, enrolling: true, acceptance: acceptance)
        }
    }

    @Test("a first enrolment writes the device's files (credentials, relay.json, its own pin) and starts its user's chain; --force's enrolment on that machine hands the old device's place in the chain to the new one and revokes the old one")
    func enrolAndReplace() async throws {
        try await WorkflowRelay.run { relay in
            _ = try relay.relayTool(["org", "add", "acme"])
            let home = relay.folder.path("machine")
            let said = KeptReport()
            let first = try Self.enrolment(relay, code: try relay.relayTool(["user", "add", Self.alice, "--org", "acme"]), home: home, report: said)
            let made = try await first.run(replacing: nil, oldSigner: nil, join: Self.join(first))
            #expect(made.unseen == nil)
            #expect(try DeviceConfig.load(home: home).device == made.device.id)
            #expect(try PinStore(home: home).devices[made.device.id]?.recipient == first.recipient)
            #expect(said.said.contains("info: enrolled \"laptop\" with \(relay.url)"))
            let old = try RelaySession.open(home: home, place: Self.place(home), signingKey: true)
            let rooted = try await old.withClient { try await old.deviceTrust($0) }
            #expect(rooted.verified?.devices.keys.sorted() == [made.device.id])
            #expect(old.credentials.signingKey?.publicKey == made.signingKey.publicKey)

            // Again on the same machine (--force), with the same name.
            let again = KeptReport()
            let second = try Self.enrolment(relay, code: try relay.relayTool(["invite", Self.alice]), home: home, report: again)
            let oldSigner = try #require(old.credentials.signingKey.map { (id: old.config.device, key: $0) })
            let replaced = try await second.run(replacing: old, oldSigner: oldSigner, join: Self.join(second))
            #expect(replaced.unseen == nil && replaced.device.id != made.device.id && replaced.device.name == "laptop")
            #expect(again.said.contains("info: the old device approved the new one and left your device chain"))
            #expect(again.said.contains { $0.hasPrefix("info: revoked the old device") })
            let now = try RelaySession.open(home: home, place: Self.place(home))
            #expect(now.config.device == replaced.device.id)
            let trust = try await now.withClient { try await now.deviceTrust($0) }
            #expect(trust.verified?.devices.keys.sorted() == [replaced.device.id])
            let listed = try await now.withClient { try await $0.devices() }
            // Revoked: not a live device of the user any more.
            #expect(!listed.contains { $0.id == made.device.id && $0.invalidated == nil })
            #expect(listed.first { $0.id == replaced.device.id }?.invalidated == nil)
        }
    }

    @Test("a device that finds its user's chain started by devices it has never seen stays enrolled but trusts nothing of it (the outcome's unseen chain), and takes it with a fingerprint of one of them")
    func unseenChain() async throws {
        try await WorkflowRelay.run { relay in
            let laptop = try await relay.firstDevice(Self.alice, name: "laptop")
            let home = relay.folder.path("phone")
            let refused = try Self.enrolment(relay, code: try relay.relayTool(["invite", Self.alice]), home: home, name: "phone",
                                             report: KeptReport())
            let outcome = try await refused.run(replacing: nil, oldSigner: nil, join: Self.join(refused))
            let unseen = try #require(outcome.unseen)
            #expect(unseen.root.fingerprint == laptop.fingerprint)
            #expect(try PinStore(home: home).head(of: Self.alice) == nil)
            #expect(try DeviceConfig.load(home: home).device == outcome.device.id)
            // With the laptop's fingerprint (--accept-chain), the same chain is taken and pinned.
            let other = relay.folder.path("tablet")
            let accepting = try Self.enrolment(relay, code: try relay.relayTool(["invite", Self.alice]), home: other, name: "tablet",
                                               acceptance: .fingerprint(laptop.fingerprint), report: KeptReport())
            let taken = try await accepting.run(replacing: nil, oldSigner: nil,
                                                join: Self.join(accepting, acceptance: .fingerprint(laptop.fingerprint)))
            #expect(taken.unseen == nil)
            #expect(try PinStore(home: other).head(of: Self.alice) != nil)
        }
    }
}
