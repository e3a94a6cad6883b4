/// Something a file key can be wrapped for.
public protocol Recipient: Sendable {
    func wrap(fileKey: SecretBytes) throws -> [Stanza]

    /// The stanzas and the recipient's labels (age's `RecipientWithLabels`): a file is
    /// written only if every recipient gives the same set. A post-quantum recipient
    /// says `postquantum`, so it can't share a file with a classic one; a passphrase
    /// gives a label of its own each time, so it can share a file with nothing; a
    /// plugin says what it likes. The default: `wrap`, and no labels.
    func wrapWithLabels(fileKey: SecretBytes) throws -> (stanzas: [Stanza], labels: Set<String>)
}

extension Recipient {
    public func wrapWithLabels(fileKey: SecretBytes) throws -> (stanzas: [Stanza], labels: Set<String>) {
        (try wrap(fileKey: fileKey), [])
    }
}

/// The labels age's own recipient kinds give, and the error a mismatch makes.
enum RecipientLabel {
    /// A post-quantum recipient's label: only post-quantum recipients share its files.
    static let postQuantum = "postquantum"
    /// How the label a recipient that must stay alone (a passphrase) starts; a random
    /// part follows, so no other recipient has the same set.
    static let alonePrefix = "alone-"

    /// A label no other recipient has.
    static func alone() throws -> String {
        alonePrefix + Base64.encode(try SecureRandom.bytes(16))
    }

    /// Why recipients with labels `first` and `other` can't share a file.
    static func incompatible(_ first: Set<String>, _ other: Set<String>) -> AgeError {
        if first.union(other).contains(where: { $0.hasPrefix(alonePrefix) }) {
            return .invalidKey("a passphrase can't be combined with other recipients")
        }
        if first.contains(postQuantum) != other.contains(postQuantum) {
            return .invalidKey("post-quantum (age1pq1…) and classic recipients can't be mixed in one file")
        }
        let names = [first, other].map { "[" + $0.sorted().joined(separator: " ") + "]" }
        return .invalidKey("incompatible recipients: labels \(names[0]) and \(names[1]) can't be mixed in one file")
    }
}

/// Something that may unwrap a file key from a header's stanzas.
public protocol Identity: Sendable {
    /// The file key, nil if no stanza is for this identity. Throws `AgeError.header`
    /// for a stanza of this identity's type that is malformed.
    func unwrap(stanzas: [Stanza]) throws -> SecretBytes?
}

/// Common rules for a stanza body that wraps a 16-byte file key with ChaCha20-Poly1305.
enum WrappedFileKey {
    static let fileKeyCount = 16
    static let bodyCount = fileKeyCount + ChaChaPoly.tagCount

    static func seal(_ fileKey: SecretBytes, key: SecretBytes) throws -> [UInt8] {
        try ChaChaPoly.seal(key: key, nonce: zeroNonce, plaintext: fileKey)
    }

    /// nil if the body does not authenticate under `key` (a different recipient).
    static func open(_ body: [UInt8], key: SecretBytes, stanzaType: String) throws -> SecretBytes? {
        // Check the length before decrypting (partitioning-oracle mitigation).
        guard body.count == bodyCount else {
            throw AgeError.header("\(stanzaType) stanza body is \(body.count) bytes, not \(bodyCount)")
        }
        return try ChaChaPoly.open(key: key, nonce: zeroNonce, ciphertext: body)
    }

    // The nonce is fixed (all zeros) because every wrapping key here is derived afresh
    // for one file key (from a new ephemeral share or a new scrypt salt) and seals that
    // one message only. The payload, where one key seals many chunks, counts its nonces.
    private static let zeroNonce = [UInt8](repeating: 0, count: ChaChaPoly.nonceCount)
}
