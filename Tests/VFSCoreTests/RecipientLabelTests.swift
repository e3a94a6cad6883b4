import Testing
@testable import VFSCore

/// The mixing rules as each recipient kind's labels (age's RecipientWithLabels).
@Suite("recipient labels")
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
        // A recipient that says postquantum goes with age1pq1… and not with X25519.
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
}
