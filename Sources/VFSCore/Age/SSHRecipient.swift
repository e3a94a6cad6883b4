/// age's SSH recipient types (the `agessh` package of age): `ssh-ed25519`, an X25519
/// exchange with the Ed25519 key mapped to Montgomery form and a tweak derived from the
/// key, and `ssh-rsa`, RSA-OAEP-SHA-256 with the label "age-encryption.org/v1/ssh-rsa".
/// Both stanzas start with a tag: the first four bytes of SHA-256 of the key's
/// wire-format encoding, so an identity skips stanzas for other keys at once.
enum SSHTag {
    static func of(publicBlob: [UInt8]) -> String { Base64.encode(SHA256.hash(publicBlob).prefix(4)) }
}

/// `ssh-ed25519 AAAA…` as a recipient.
public struct SSHEd25519Recipient: Recipient, Hashable {
    static let label = "age-encryption.org/v1/ssh-ed25519"
    static let stanzaType = "ssh-ed25519"
    /// The key in SSH's wire encoding.
    let publicBlob: [UInt8]
    /// The key mapped to X25519.
    let montgomeryKey: [UInt8]

    init(publicBlob: [UInt8]) throws {
        var reader = SSHWireReader(publicBlob)
        guard reader.string() == Array(Self.stanzaType.utf8), let key = reader.string(), key.count == 32, reader.isAtEnd,
              let montgomery = try Ed25519Conversion.montgomeryPublicKey(edwards: key) else {
            throw AgeError.invalidKey("invalid ssh-ed25519 public key")
        }
        self.publicBlob = publicBlob
        montgomeryKey = montgomery
    }

    /// `ssh-ed25519 AAAA… [comment]`.
    public init(_ line: String) throws {
        let (type, blob) = try SSHKeyText.publicKey(line: line)
        guard type == Self.stanzaType else { throw AgeError.invalidKey("not an ssh-ed25519 key") }
        try self.init(publicBlob: blob)
    }

    public var string: String { "\(Self.stanzaType) \(Base64.encode(publicBlob, padded: true))" }

    /// The tweak both sides apply to the shared secret (a scalar X25519 clamps):
    /// HKDF-SHA-256 with an empty input key, the key's wire encoding as salt, and the
    /// label as info. Written out as its two HMACs (RFC 5869), since one 32-byte block
    /// is all it takes and the input key is empty.
    static func tweak(publicBlob: [UInt8]) throws -> SecretBytes {
        let prk = try HMACSHA256.authenticate(key: SecretBytes(copying: publicBlob), message: [UInt8]())
        return SecretBytes(copying: try HMACSHA256.authenticate(key: SecretBytes(copying: prk), message: Array(label.utf8) + [1]))
    }

    public func wrap(fileKey: SecretBytes) throws -> [Stanza] {
        let ephemeral = try X25519.generatePrivateKey()
        let share = try X25519.publicKey(of: ephemeral)
        guard let shared = try X25519.sharedSecret(privateKey: ephemeral, publicKey: montgomeryKey),
              let tweaked = try X25519.sharedSecret(privateKey: try Self.tweak(publicBlob: publicBlob), publicKey: shared.bytes) else {
            throw AgeError.invalidKey("the ssh-ed25519 recipient \(string) is a low-order point")
        }
        let wrapKey = try HKDF.deriveKey(inputKey: tweaked, salt: share + montgomeryKey, info: Self.label)
        let body = try WrappedFileKey.seal(fileKey, key: wrapKey)
        return [Stanza(type: Self.stanzaType, arguments: [SSHTag.of(publicBlob: publicBlob), Base64.encode(share)], body: body)]
    }
}

/// An ssh-ed25519 private key as an identity.
public struct SSHEd25519Identity: Identity {
    let secretKey: SecretBytes
    public let recipient: SSHEd25519Recipient

    init(seed: SecretBytes, publicBlob: [UInt8]) throws {
        secretKey = try Ed25519Conversion.montgomeryPrivateKey(seed: seed)
        recipient = try SSHEd25519Recipient(publicBlob: publicBlob)
    }

    public func unwrap(stanzas: [Stanza]) throws -> SecretBytes? {
        let tag = SSHTag.of(publicBlob: recipient.publicBlob)
        for stanza in stanzas where stanza.type == SSHEd25519Recipient.stanzaType {
            guard stanza.arguments.count == 2 else { throw AgeError.header("ssh-ed25519 stanza must have two arguments") }
            guard let share = Base64.decode(Array(stanza.arguments[1].utf8)), share.count == X25519.keyCount else {
                throw AgeError.header("ssh-ed25519 stanza share is not 32 bytes of canonical base64")
            }
            guard stanza.body.count == WrappedFileKey.bodyCount else {
                throw AgeError.header("ssh-ed25519 stanza body is \(stanza.body.count) bytes, not \(WrappedFileKey.bodyCount)")
            }
            guard stanza.arguments[0] == tag else { continue }
            guard let shared = try X25519.sharedSecret(privateKey: secretKey, publicKey: share),
                  let tweaked = try X25519.sharedSecret(privateKey: try SSHEd25519Recipient.tweak(publicBlob: recipient.publicBlob),
                                                        publicKey: shared.bytes) else {
                throw AgeError.header("ssh-ed25519 stanza share is a low-order point")
            }
            let wrapKey = try HKDF.deriveKey(inputKey: tweaked, salt: share + recipient.montgomeryKey, info: SSHEd25519Recipient.label)
            if let fileKey = try WrappedFileKey.open(stanza.body, key: wrapKey, stanzaType: SSHEd25519Recipient.stanzaType) {
                return fileKey
            }
        }
        return nil
    }
}

/// `ssh-rsa AAAA…` as a recipient (2048 bits or more, as age asks).
public struct SSHRSARecipient: Recipient, Hashable {
    static let label = Array("age-encryption.org/v1/ssh-rsa".utf8)
    static let stanzaType = "ssh-rsa"
    static let minimumBits = 2048
    let publicBlob: [UInt8]
    let key: RSAKey

    init(publicBlob: [UInt8]) throws {
        var reader = SSHWireReader(publicBlob)
        guard reader.string() == Array(Self.stanzaType.utf8), let e = reader.mpint(), let n = reader.mpint(), reader.isAtEnd,
              !e.isEmpty, !n.isEmpty else {
            throw AgeError.invalidKey("invalid ssh-rsa public key")
        }
        key = try RSAKey(modulus: n, publicExponent: e)
        guard key.bitCount >= Self.minimumBits else {
            throw AgeError.invalidKey("the ssh-rsa key has \(key.bitCount) bits; age needs at least \(Self.minimumBits)")
        }
        self.publicBlob = publicBlob
    }

    public init(_ line: String) throws {
        let (type, blob) = try SSHKeyText.publicKey(line: line)
        guard type == Self.stanzaType else { throw AgeError.invalidKey("not an ssh-rsa key") }
        try self.init(publicBlob: blob)
    }

    public var string: String { "\(Self.stanzaType) \(Base64.encode(publicBlob, padded: true))" }

    public static func == (a: Self, b: Self) -> Bool { a.publicBlob == b.publicBlob }
    public func hash(into hasher: inout Hasher) { hasher.combine(publicBlob) }

    public func wrap(fileKey: SecretBytes) throws -> [Stanza] {
        let body = try key.encryptOAEP(fileKey, label: Self.label)
        return [Stanza(type: Self.stanzaType, arguments: [SSHTag.of(publicBlob: publicBlob)], body: body)]
    }
}

/// An ssh-rsa private key as an identity.
public struct SSHRSAIdentity: Identity {
    let privateKey: RSAKey
    public let recipient: SSHRSARecipient

    init(privateKey: RSAKey, publicBlob: [UInt8]) throws {
        self.privateKey = privateKey
        recipient = try SSHRSARecipient(publicBlob: publicBlob)
    }

    public func unwrap(stanzas: [Stanza]) throws -> SecretBytes? {
        let tag = SSHTag.of(publicBlob: recipient.publicBlob)
        for stanza in stanzas where stanza.type == SSHRSARecipient.stanzaType {
            guard stanza.arguments.count == 1 else { throw AgeError.header("ssh-rsa stanza must have one argument") }
            guard stanza.arguments[0] == tag else { continue }
            guard let fileKey = try privateKey.decryptOAEP(stanza.body, label: SSHRSARecipient.label),
                  fileKey.count == WrappedFileKey.fileKeyCount else { continue }
            return fileKey
        }
        return nil
    }
}
