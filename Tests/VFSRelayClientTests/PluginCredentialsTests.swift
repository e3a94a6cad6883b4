import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore
@testable import VFSRelayClient
import VFSRelayProtocol

/// A device key in a plugin (issue 29): the stub file's recipient comment as the key tools
/// write it, the device's own recipient from relay.json, and a remote log-out that leaves
/// the stub (no secret) while it erases the token and the signing key.
@Suite("plugin device credentials")
struct PluginCredentialsTests {
    static let stub = try! #require(AgePlugin.encodeIdentity(name: "yubikey", data: Array("slot 1".utf8)))
    static let recipient = try! #require(AgePlugin.encodeRecipient(name: "yubikey", data: [UInt8](repeating: 2, count: 33)))

    @Test("the recipient comment: age-plugin-yubikey's right-aligned label, age-keygen's, none")
    func recipientComment() {
        let yubikey = """
            #       Serial: 12345999, Slot: 1
            #         Name: age identity 1234
            #    Recipient: \(Self.recipient)
            \(Self.stub)
            """
        #expect(KeyFile.recipientComment(in: yubikey) == Self.recipient)
        #expect(KeyFile.recipientComment(in: "# created: 2026\n# public key: age1abc\nAGE-SECRET-KEY-1X\n") == "age1abc")
        #expect(KeyFile.recipientComment(in: "\(Self.stub)\n") == nil)
        // Only the comments before the first identity: a later one belongs to another.
        #expect(KeyFile.recipientComment(in: "\(Self.stub)\n# recipient: age1later\nAGE-PLUGIN-OTHER-1X\n") == nil)
    }

    @Test("the stub is the identity; its recipient comes from relay.json; erase leaves the stub and removes the rest")
    func loadAndErase() throws {
        let folder = try TestFolder()
        let stubFile = try folder.write("stub.txt", "# recipient: \(Self.recipient)\n\(Self.stub)\n")
        let token = try folder.write("token", "t0k3n\n")
        let place = CredentialPlace(tokenFile: token, identityFile: stubFile, keychainPath: folder.path("none"),
                                    passcode: { throw RelayClientError.missingCredential(what: "passcode", place: "the test") })
        let credentials = try DeviceCredentials.load(place, identity: true, signingKey: true)
        #expect(credentials.identity?.isPlugin == true)
        #expect(credentials.identity?.string == Self.stub)
        let config = DeviceConfig(relay: "http://127.0.0.1:1", device: "d", name: "n", recipient: Self.recipient)
        #expect(try credentials.recipient(config: config) == Self.recipient)
        #expect(throws: RelayClientError.self) { try credentials.recipient(config: DeviceConfig(relay: "http://127.0.0.1:1", device: "d", name: "n")) }
        #expect(FileManager.default.fileExists(atPath: stubFile + ".ed25519"))
        try credentials.erase()
        #expect(try folder.text("stub.txt") == "# recipient: \(Self.recipient)\n\(Self.stub)\n")
        #expect(!FileManager.default.fileExists(atPath: token))
        #expect(!FileManager.default.fileExists(atPath: stubFile + ".ed25519"))
        // An X25519 identity file is a secret: erased as before.
        let key = try folder.write("key.txt", KeyFile.identityFileText(.x25519(try X25519Identity.generate()), created: "test"))
        let x25519 = CredentialPlace(tokenFile: try folder.write("token", "t\n"), identityFile: key, keychainPath: folder.path("none"),
                                     passcode: { throw RelayClientError.missingCredential(what: "passcode", place: "the test") })
        try DeviceCredentials.load(x25519, identity: true).erase()
        #expect(!FileManager.default.fileExists(atPath: key))
    }
}
