import Testing
@testable import VFSCore

/// The mixing rules as each recipient kind's labels (age's RecipientWithLabels), and
/// the plugin names and encodings (C2SP age-plugin).
@Suite("recipient labels and plugin names")
struct RecipientLabelTests {
    /// A recipient that wraps as X25519 does and gives the labels it is told.
    struct Labelled: Recipient {
        let inner: X25519Recipient
        let labels: Set<String>
        func wrap(fileKey: SecretBytes) throws -> [Stanza] { try inner.wrap(fileKey: fileKey) }
        func wrapWithLabels(fileKey: SecretBytes) throws -> (stanzas: [Stanza], labels: Set<String>) { (try wrap(fileKey: fileKey), labels) }
    }

    @Test("recipients with the same labels share a file; different labels don't, whatever their order")
    func sameLabels() throws {
        let a = try X25519Identity.generate(), b = try X25519Identity.generate()
        let fileKey = try SecureRandom.secret(16)
        let header = try AgeEncryptor.header(fileKey: fileKey, recipients: [Labelled(inner: a.recipient, labels: ["token", "x"]),
                                                                            Labelled(inner: b.recipient, labels: ["x", "token"])])
        let decryptor = try AgeDecryptor(source: MemorySource(header + [UInt8](repeating: 0, count: 16)))
        #expect(try decryptor.fileKey(identities: [b]).isEqual(to: fileKey))
        #expect(throws: AgeError.invalidKey("incompatible recipients: labels [token] and [] can't be mixed in one file")) {
            try AgeEncryptor.header(fileKey: fileKey, recipients: [Labelled(inner: a.recipient, labels: ["token"]), b.recipient])
        }
        // A plugin that says postquantum goes with age1pq1… and not with X25519.
        let pq = try HybridIdentity.generate().recipient
        _ = try AgeEncryptor.header(fileKey: fileKey, recipients: [pq, Labelled(inner: a.recipient, labels: [RecipientLabel.postQuantum])])
        #expect(throws: AgeError.invalidKey("post-quantum (age1pq1…) and classic recipients can't be mixed in one file")) {
            try AgeEncryptor.header(fileKey: fileKey, recipients: [Labelled(inner: a.recipient, labels: [RecipientLabel.postQuantum]), b.recipient])
        }
    }

    @Test("a passphrase gives a label of its own every time: not even with another passphrase")
    func passphraseAlone() throws {
        let scrypt = ScryptRecipient(passphrase: SecretBytes(copying: [1]), workFactor: 1)
        let first = try scrypt.wrapWithLabels(fileKey: try SecureRandom.secret(16)).labels
        let second = try scrypt.wrapWithLabels(fileKey: try SecureRandom.secret(16)).labels
        #expect(first.count == 1 && first != second)
        #expect(throws: AgeError.invalidKey("a passphrase can't be combined with other recipients")) {
            try AgeEncryptor.header(fileKey: try SecureRandom.secret(16), recipients: [scrypt, scrypt])
        }
    }

    @Test("plugin names: letters, digits and +-._ only, so never a path")
    func names() {
        for good in ["yubikey", "se", "a+b-c.d_e", "TPM2", "..", "."] { #expect(AgePlugin.isValidName(good), "\(good)") }
        for bad in ["", "../x", "/bin/sh", "a b", "a/b", "é", "x\n"] { #expect(!AgePlugin.isValidName(bad), "\(bad)") }
        #expect(AgePlugin.encodeRecipient(name: "../x", data: [1]) == nil)
        #expect(AgePlugin.encodeIdentity(name: "/bin/sh") == nil)
    }

    @Test("age1NAME1… and AGE-PLUGIN-NAME-1… parse to their plugin; native kinds stay native")
    func encodings() throws {
        let recipient = try #require(AgePlugin.encodeRecipient(name: "YubiKey", data: [1, 2, 3]))
        #expect(recipient.hasPrefix("age1yubikey1"))
        guard case .plugin(let parsed) = try AgeRecipient(recipient) else { Issue.record("not a plugin recipient"); return }
        #expect(parsed.name == "yubikey" && parsed.string == recipient && !parsed.isIdentity)
        #expect(throws: AgeError.self) { try AgeRecipient(recipient.uppercased()) }
        #expect(throws: AgeError.self) { try AgeRecipient(Bech32.encode(hrp: "age1../x", data: [1])) }

        let identity = try #require(AgePlugin.encodeIdentity(name: "yubikey", data: [9, 9]))
        #expect(identity.hasPrefix("AGE-PLUGIN-YUBIKEY-1"))
        guard case .plugin(let stub) = try AgeIdentity(identity) else { Issue.record("not a plugin identity"); return }
        #expect(stub.name == "yubikey" && stub.string == identity)
        #expect(stub.recipient.isIdentity && stub.recipient.encoding == identity)
        #expect(try PluginIdentity(pluginName: "yubikey").string == AgePlugin.encodeIdentity(name: "yubikey"))
        #expect(throws: AgeError.self) { try PluginIdentity(pluginName: "../x") }

        if case .x25519 = try AgeRecipient(try X25519Identity.generate().recipient.string) {} else { Issue.record("X25519 taken for a plugin") }
        if case .hybrid = try AgeRecipient(try HybridIdentity.generate().recipient.string) {} else { Issue.record("age1pq1 taken for a plugin") }
    }

    @Test("identity files hold plugin stubs beside native keys; a hostile stub's name is refused")
    func identityFiles() throws {
        let native = try X25519Identity.generate()
        let stub = try #require(AgePlugin.encodeIdentity(name: "vfstest", data: [1]))
        let read = try KeyFile.identities(in: "# yubikey\n\(stub)\n\(native.string)\n", source: "\"f\"")
        #expect(read.count == 2)
        if case .plugin(let identity) = read[0] { #expect(identity.name == "vfstest") } else { Issue.record("stub not read") }
        let hostile = Bech32.encode(hrp: "AGE-PLUGIN-../X-", data: [], uppercase: true)
        #expect(throws: AgeError.invalidKey("\"f\" line 1: invalid plugin name \"../x\" in an identity: only letters, digits and +-._")) {
            try KeyFile.identities(in: hostile + "\n", source: "\"f\"")
        }
    }
}
