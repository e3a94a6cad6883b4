/// Something a file key can be wrapped for.
public protocol Recipient: Sendable {
    func wrap(fileKey: SecretBytes) throws -> [Stanza]
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
