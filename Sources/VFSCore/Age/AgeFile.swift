/// The header MAC (age's headerMAC): HMAC-SHA-256 of the header up to and including
/// "---", under a key derived from the file key with HKDF (info "header"). The one
/// place it is computed, for writing and for checking.
func headerMAC(fileKey: SecretBytes, macInput: [UInt8]) throws -> [UInt8] {
    let macKey = try HKDF.deriveKey(inputKey: fileKey, salt: [], info: "header")
    return try HMACSHA256.authenticate(key: macKey, message: macInput)
}

/// Writes age v1 files.
public enum AgeEncryptor {
    /// Encrypts `source` to `recipients`, writing the whole file to `sink`.
    public static func encrypt(to recipients: [Recipient], from source: ByteSource, to sink: ByteSink,
                               armor: Bool = false, progress: (@Sendable (Int) -> Void)? = nil) throws {
        let (output, payloadKey) = try begin(to: recipients, sink: sink, armor: armor)
        try PayloadStream.encrypt(payloadKey: payloadKey, from: source, to: output, progress: progress)
        try output.finish()
    }

    /// Encrypts what `producer` writes to `recipients`, writing the whole file to `sink`.
    /// The producer runs on the calling thread, its bytes copied straight into the batches
    /// the workers seal (no pipe between them); a failure to write the file is thrown from
    /// its next write.
    public static func encrypt(to recipients: [Recipient], to sink: ByteSink, armor: Bool = false,
                               producer: (ByteSink) throws -> Void) throws {
        let (output, payloadKey) = try begin(to: recipients, sink: sink, armor: armor)
        try PayloadStream.encrypt(payloadKey: payloadKey, to: output, producer: producer)
        try output.finish()
    }

    /// Writes the header and the payload's nonce: the sink the payload goes to, and its key.
    private static func begin(to recipients: [Recipient], sink: ByteSink, armor: Bool) throws -> (ByteSink, SecretBytes) {
        precondition(!recipients.isEmpty, "at least one recipient")
        let output: ByteSink = armor ? ArmorEncodingSink(sink) : sink
        let fileKey = try SecureRandom.secret(WrappedFileKey.fileKeyCount)
        try output.write(header(fileKey: fileKey, recipients: recipients))
        let nonce = try SecureRandom.bytes(PayloadStream.nonceCount)
        try output.write(nonce)
        return (output, try PayloadStream.payloadKey(fileKey: fileKey, nonce: nonce))
    }
}

extension AgeEncryptor {
    /// The header (stanzas and MAC) wrapping `fileKey` for `recipients`.
    static func header(fileKey: SecretBytes, recipients: [Recipient]) throws -> [UInt8] {
        precondition(!recipients.isEmpty, "at least one recipient")
        var stanzas = [Stanza]()
        var labels: Set<String>?
        // As age's encryptHdr: every recipient must give the same labels.
        for recipient in recipients {
            let wrapped = try recipient.wrapWithLabels(fileKey: fileKey)
            if let labels, labels != wrapped.labels { throw RecipientLabel.incompatible(labels, wrapped.labels) }
            labels = wrapped.labels
            stanzas += wrapped.stanzas
        }
        // age's header rule, applied when writing too: whatever a recipient (a plugin)
        // returns, an scrypt stanza is the header's only one, or vfs-decrypt and age refuse it.
        if stanzas.count != 1 && stanzas.contains(where: { $0.type == ScryptRecipient.stanzaType }) {
            throw AgeError.header("a recipient gave an scrypt stanza beside other stanzas; an scrypt stanza must be the only stanza in the header")
        }
        let mac = try headerMAC(fileKey: fileKey, macInput: Header.macInput(for: stanzas))
        return Header.encode(stanzas: stanzas, mac: mac)
    }
}

/// Reads age v1 files in steps: the header first (so a caller can see whether a
/// passphrase is needed), then the file key, then the payload.
public final class AgeDecryptor {
    private let input: BufferedSource
    let header: Header
    let isArmored: Bool

    /// Parses the header; detects armor unless `armored` says.
    public init(source: ByteSource, armored: Bool? = nil) throws {
        let buffered = BufferedSource(source)
        let armor = try armored ?? Armor.looksArmored(buffered)
        isArmored = armor
        input = armor ? BufferedSource(ArmorDecodingSource(buffered)) : buffered
        header = try Header.parse(from: input)
        try ScryptRecipient.checkAlone(in: header.stanzas)
    }

    /// True when the file was encrypted with a passphrase.
    public var isPassphraseEncrypted: Bool { ScryptRecipient.isPassphraseHeader(header.stanzas) }

    /// The types of the header's stanzas, for messages.
    var stanzaTypes: [String] { header.stanzas.map(\.type) }

    /// Unwraps the file key with the first identity that can, and checks the header MAC.
    public func fileKey(identities: [Identity]) throws -> SecretBytes {
        for identity in identities {
            guard let fileKey = try identity.unwrap(stanzas: header.stanzas) else { continue }
            guard HMACSHA256.equal(try headerMAC(fileKey: fileKey, macInput: header.macInput), header.mac) else { throw AgeError.headerMAC }
            return fileKey
        }
        let types = Set(stanzaTypes).sorted().joined(separator: ", ")
        throw AgeError.noMatch("no identity matched any of the file's recipients (\(types))")
    }

    /// Decrypts the payload to `sink`; plaintext is written only after its chunk authenticates.
    public func decrypt(fileKey: SecretBytes, to sink: ByteSink, progress: (@Sendable (Int) -> Void)? = nil) throws {
        var nonce = [UInt8](repeating: 0, count: PayloadStream.nonceCount)
        let n = try nonce.withUnsafeMutableBytes { try input.readFully(into: $0) }
        guard n == PayloadStream.nonceCount else { throw AgeError.header("file is truncated before the payload nonce") }
        let payloadKey = try PayloadStream.payloadKey(fileKey: fileKey, nonce: nonce)
        try PayloadStream.decrypt(payloadKey: payloadKey, from: input, to: sink, progress: progress)
    }

    /// The length in bytes of the (binary) header that was parsed, MAC line included:
    /// the payload starts right after it.
    public var headerLength: Int { header.macInput.count + 1 + 43 + 1 }

    /// A new header wrapping the same file key for `recipients` (fresh stanzas, new
    /// MAC): put in front of this file's payload, it makes the same file for them.
    /// `fileKey` comes from `fileKey(identities:)`, so only a reader can rekey.
    public func rewrappedHeader(fileKey: SecretBytes, recipients: [Recipient]) throws -> [UInt8] {
        try AgeEncryptor.header(fileKey: fileKey, recipients: recipients)
    }

    /// All steps at once.
    public func decrypt(identities: [Identity], to sink: ByteSink, progress: (@Sendable (Int) -> Void)? = nil) throws {
        try decrypt(fileKey: fileKey(identities: identities), to: sink, progress: progress)
    }
}
