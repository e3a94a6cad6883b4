import Foundation
import Testing
import VFSCore
import VFSTestSupport

/// Issue 24: every device has an Ed25519 signing key beside its age identity, and a
/// fingerprint people compare (docs/device-chain.md).
@Suite("device signing keys and fingerprints")
struct SigningKeyTests {
    /// The fingerprint of a device whose public signing key (base64) and identity file are known.
    static func fingerprint(key base64: String, identityFile: String) throws -> String {
        let text = try String(contentsOfFile: identityFile, encoding: .utf8)
        guard case .x25519(let identity)? = try KeyFile.identities(in: text, source: identityFile).first else {
            throw HarnessError("no identity in \(identityFile)")
        }
        let key = try #require(Data(base64Encoded: base64.trimmingCharacters(in: .whitespacesAndNewlines)))
        return Fingerprint.device(signingKey: Array(key), recipient: identity.recipient.string)
    }

    @Test("enroll makes the key (keychain, or PATH.ed25519 at 0600 beside --identity-file) and prints the fingerprint that vfs-device fingerprint prints again")
    func enrolment() throws {
        let scratch = try TestFolder()
        let admin = RelayAdmin(data: scratch.url.appendingPathComponent("data"))
        let code = try admin.addUser("alice@acme.example", org: "acme")
        let relay = try RelayProcess(data: admin.data)
        defer { relay.stop() }
        let laptop = try Machine("laptop", in: scratch)
        let enrolled = try laptop.run("vfs-device", ["enroll", "http://127.0.0.1:\(relay.port)", code, "--name", "laptop"])
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        let shown = try #require(enrolled.stderr.split(separator: "\n").first { $0.hasPrefix("vfs-device: fingerprint ") })
        let fingerprint = try laptop.run("vfs-device", ["fingerprint"])
        #expect(fingerprint.status == 0)
        #expect(shown == "vfs-device: fingerprint " + fingerprint.out.trimmingCharacters(in: .newlines))
        #expect(Fingerprint.normalised(fingerprint.out.trimmingCharacters(in: .newlines)) != nil)
        let entry = try #require(try laptop.keychainEntries().first { $0.kind == .secret && $0.service == "vfs-device" && $0.account == "signing-key" })
        let key = try Ed25519.SigningKey(seed: entry.secret)
        let printed = try laptop.run("vfs-device", ["fingerprint", "--signing-key"])
        #expect(printed.out == Data(key.publicKey).base64EncodedString() + "\n")
        try laptop.exportIdentity(to: scratch.path("laptop-identity"))
        #expect(try Self.fingerprint(key: printed.out, identityFile: scratch.path("laptop-identity")) + "\n" == fingerprint.out)

        let server = try Machine("server", in: scratch)
        let files = ["--token-file", server.path + "/token", "--identity-file", server.path + "/identity.txt"]
        let invite = try laptop.run("vfs-device", ["invite"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        // Alice's chain, which the server never saw: taken with the laptop's fingerprint.
        #expect(try server.run("vfs-device", ["enroll", "http://127.0.0.1:\(relay.port)", invite, "--name", "server",
                                               "--accept-chain", fingerprint.out.trimmingCharacters(in: .newlines)] + files).status == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: server.path + "/identity.txt.ed25519")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let serverKey = try server.run("vfs-device", ["fingerprint", "--signing-key"] + files).out
        #expect(try String(contentsOfFile: server.path + "/identity.txt.ed25519", encoding: .utf8).contains("# public key: " + serverKey))
        #expect(try server.run("vfs-device", ["fingerprint"] + files).out
                == (try Self.fingerprint(key: serverKey, identityFile: server.path + "/identity.txt")) + "\n")
    }

    @Test("a device enrolled before signing keys gets one on first use, once; a damaged key file is refused (65), not replaced")
    func lazyKey() throws {
        let scratch = try TestFolder()
        let admin = RelayAdmin(data: scratch.url.appendingPathComponent("data"))
        let code = try admin.addUser("alice@acme.example", org: "acme")
        let relay = try RelayProcess(data: admin.data)
        defer { relay.stop() }
        let server = try Machine("server", in: scratch)
        let files = ["--token-file", server.path + "/token", "--identity-file", server.path + "/identity.txt"]
        #expect(try server.run("vfs-device", ["enroll", "http://127.0.0.1:\(relay.port)", code, "--name", "server"] + files).status == 0)
        let keyFile = server.path + "/identity.txt.ed25519"
        try FileManager.default.removeItem(atPath: keyFile)
        let first = try server.run("vfs-device", ["fingerprint"] + files)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: keyFile))
        #expect(try server.run("vfs-device", ["fingerprint"] + files).out == first.out)
        try Data("not a key\n".utf8).write(to: URL(fileURLWithPath: keyFile))
        let damaged = try server.run("vfs-device", ["fingerprint"] + files)
        #expect(damaged.status == 65)
        #expect(damaged.stderr.contains("not a signing key file"))
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8) == "not a key\n")
    }
}
