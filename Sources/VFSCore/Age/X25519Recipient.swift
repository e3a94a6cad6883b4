/// The native X25519 recipient type: `age1…`.
public struct X25519Recipient: Recipient, Equatable, Hashable {
    static let label = "age-encryption.org/v1/X25519"
    public let publicKey: [UInt8]

    public init(publicKey: [UInt8]) {
        precondition(publicKey.count == X25519.keyCount)
        self.publicKey = publicKey
    }

    /// Parses an `age1…` string.
    public init(_ text: String) throws {
        guard let (hrp, data) = Bech32.decode(text), hrp == "age", data.count == X25519.keyCount else {
            throw AgeError.invalidKey("invalid recipient \(quoted(Array(text.utf8)))")
        }
        guard text == text.lowercased() else {
            throw AgeError.invalidKey("invalid recipient \(quoted(Array(text.utf8))): must be lowercase")
        }
        self.init(publicKey: data)
    }

    public var string: String { Bech32.encode(hrp: "age", data: publicKey) }

    public func wrap(fileKey: SecretBytes) throws -> [Stanza] {
        let ephemeral = try X25519.generatePrivateKey()
        let share = try X25519.publicKey(of: ephemeral)
        guard let shared = try X25519.sharedSecret(privateKey: ephemeral, publicKey: publicKey) else {
            throw AgeError.invalidKey("recipient \(string) is a low-order point")
        }
        let wrapKey = try HKDF.deriveKey(inputKey: shared, salt: share + publicKey, info: Self.label)
        let body = try WrappedFileKey.seal(fileKey, key: wrapKey)
        return [Stanza(type: "X25519", arguments: [Base64.encode(share)], body: body)]
    }
}

/// The native X25519 identity: `AGE-SECRET-KEY-1…`.
public struct X25519Identity: Identity {
    let secretKey: SecretBytes
    public let recipient: X25519Recipient

    public init(secretKey: SecretBytes) throws {
        self.secretKey = secretKey
        recipient = X25519Recipient(publicKey: try X25519.publicKey(of: secretKey))
    }

    public static func generate() throws -> X25519Identity {
        try X25519Identity(secretKey: X25519.generatePrivateKey())
    }

    /// Parses an `AGE-SECRET-KEY-1…` string.
    public init(_ text: String) throws {
        guard let (hrp, data) = Bech32.decode(text), hrp == "age-secret-key-", data.count == X25519.keyCount else {
            throw AgeError.invalidKey("invalid identity (expected AGE-SECRET-KEY-1…)")
        }
        let key = SecretBytes(copying: data)
        try self.init(secretKey: key)
    }

    public var string: String {
        secretKey.withUnsafeBytes { Bech32.encode(hrp: "AGE-SECRET-KEY-", data: Array($0), uppercase: true) }
    }

    public func unwrap(stanzas: [Stanza]) throws -> SecretBytes? {
        for stanza in stanzas where stanza.type == "X25519" {
            guard stanza.arguments.count == 1 else {
                throw AgeError.header("X25519 stanza must have exactly one argument")
            }
            guard let share = Base64.decode(Array(stanza.arguments[0].utf8)), share.count == X25519.keyCount else {
                throw AgeError.header("X25519 stanza share is not 32 bytes of canonical base64")
            }
            guard stanza.body.count == WrappedFileKey.bodyCount else {
                throw AgeError.header("X25519 stanza body is \(stanza.body.count) bytes, not \(WrappedFileKey.bodyCount)")
            }
            guard let shared = try X25519.sharedSecret(privateKey: secretKey, publicKey: share) else {
                throw AgeError.header("X25519 stanza share is a low-order point")
            }
            let wrapKey = try HKDF.deriveKey(inputKey: shared, salt: share + recipient.publicKey, info: X25519Recipient.label)
            if let fileKey = try WrappedFileKey.open(stanza.body, key: wrapKey, stanzaType: "X25519") {
                return fileKey
            }
        }
        return nil
    }
}
