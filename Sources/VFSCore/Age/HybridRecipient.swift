#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import Crypto

/// age's hybrid post-quantum recipient type (age 1.3): ML-KEM-768 + X25519 combined as
/// X-Wing, used through HPKE (RFC 9180) base mode with HKDF-SHA256 and
/// ChaCha20-Poly1305. The recipient is the X-Wing public key (`age1pq1…`, 1,216 bytes),
/// the identity its 32-byte seed (`AGE-SECRET-KEY-PQ-1…`). The stanza is
/// `-> mlkem768x25519 <base64 enc, 1,120 bytes>` and its body the HPKE ciphertext of
/// the file key (32 bytes).
///
/// swift-crypto provides X-Wing and HPKE (OpenSSL 3.0 has no ML-KEM).
public struct HybridRecipient: Recipient, Hashable {
    static let stanzaType = "mlkem768x25519"
    static let info = Data("age-encryption.org/mlkem768x25519".utf8)
    static let publicKeyCount = 1216
    static let encapsulatedKeyCount = 1120
    static let hrp = "age1pq"

    static var ciphersuite: HPKE.Ciphersuite {
        HPKE.Ciphersuite(kem: .XWingMLKEM768X25519, kdf: .HKDF_SHA256, aead: .chaChaPoly)
    }

    public let publicKey: [UInt8]

    init(publicKey: [UInt8]) {
        precondition(publicKey.count == Self.publicKeyCount)
        self.publicKey = publicKey
    }

    /// Parses an `age1pq1…` string.
    public init(_ text: String) throws {
        guard let (hrp, data) = Bech32.decode(text), hrp == Self.hrp, data.count == Self.publicKeyCount,
              (try? XWingMLKEM768X25519.PublicKey(rawRepresentation: data)) != nil else {
            throw AgeError.invalidKey("invalid post-quantum recipient \(quoted(Array(text.utf8)))")
        }
        guard text == text.lowercased() else {
            throw AgeError.invalidKey("invalid post-quantum recipient \(quoted(Array(text.utf8))): must be lowercase")
        }
        self.init(publicKey: data)
    }

    public var string: String { Bech32.encode(hrp: Self.hrp, data: publicKey) }

    public func wrap(fileKey: SecretBytes) throws -> [Stanza] {
        let key = try XWingMLKEM768X25519.PublicKey(rawRepresentation: publicKey)
        var sender = try HPKE.Sender(recipientKey: key, ciphersuite: Self.ciphersuite, info: Self.info)
        let body = try fileKey.withUnsafeBytes { try sender.seal($0) }
        let enc = Array(sender.encapsulatedKey)
        precondition(enc.count == Self.encapsulatedKeyCount && body.count == WrappedFileKey.bodyCount)
        return [Stanza(type: Self.stanzaType, arguments: [Base64.encode(enc)], body: Array(body))]
    }
}

/// The hybrid post-quantum identity: `AGE-SECRET-KEY-PQ-1…`, a 32-byte X-Wing seed.
public struct HybridIdentity: Identity {
    static let hrp = "AGE-SECRET-KEY-PQ-"
    static let seedCount = 32
    private static let probeScalar = SecretBytes(copying: [UInt8](repeating: 0x5a, count: X25519.keyCount))

    let seed: SecretBytes
    public let recipient: HybridRecipient

    public init(seed: SecretBytes) throws {
        guard seed.count == Self.seedCount else { throw AgeError.invalidKey("a post-quantum identity seed is 32 bytes") }
        self.seed = seed
        let key = try Self.privateKey(seed)
        recipient = HybridRecipient(publicKey: Array(key.publicKey.rawRepresentation))
    }

    public static func generate() throws -> HybridIdentity {
        try HybridIdentity(seed: SecureRandom.secret(seedCount))
    }

    /// Parses an `AGE-SECRET-KEY-PQ-1…` string.
    public init(_ text: String) throws {
        guard let (hrp, data) = Bech32.decode(text), hrp == Self.hrp.lowercased(), data.count == Self.seedCount else {
            throw AgeError.invalidKey("invalid identity (expected AGE-SECRET-KEY-PQ-1…)")
        }
        try self.init(seed: SecretBytes(copying: data))
    }

    public var string: String {
        seed.withUnsafeBytes { Bech32.encode(hrp: Self.hrp, data: Array($0), uppercase: true) }
    }

    private static func privateKey(_ seed: SecretBytes) throws -> XWingMLKEM768X25519.PrivateKey {
        try seed.withUnsafeBytes { try XWingMLKEM768X25519.PrivateKey(seedRepresentation: $0, publicKey: nil) }
    }

    public func unwrap(stanzas: [Stanza]) throws -> SecretBytes? {
        for stanza in stanzas where stanza.type == HybridRecipient.stanzaType {
            guard stanza.arguments.count == 1 else {
                throw AgeError.header("\(HybridRecipient.stanzaType) stanza must have exactly one argument")
            }
            guard let enc = Base64.decode(Array(stanza.arguments[0].utf8)), enc.count == HybridRecipient.encapsulatedKeyCount else {
                throw AgeError.header("\(HybridRecipient.stanzaType) stanza share is not \(HybridRecipient.encapsulatedKeyCount) bytes of canonical base64")
            }
            // Check the length before decrypting (partitioning-oracle mitigation).
            guard stanza.body.count == WrappedFileKey.bodyCount else {
                throw AgeError.header("\(HybridRecipient.stanzaType) stanza body is \(stanza.body.count) bytes, not \(WrappedFileKey.bodyCount)")
            }
            // X-Wing's enc ends with the X25519 share. As in age, a share whose X25519
            // shared secret is all zero (a small-order point) is refused. With a clamped
            // scalar (a multiple of 8, below 8 times the group order) the result is zero
            // exactly for those points, whatever the scalar: so any scalar tells.
            let share = Array(enc.suffix(X25519.keyCount))
            guard try X25519.sharedSecret(privateKey: Self.probeScalar, publicKey: share) != nil else {
                throw AgeError.header("\(HybridRecipient.stanzaType) stanza X25519 share is a low-order point")
            }
            let key = try Self.privateKey(seed)
            // ML-KEM decapsulation never fails on a well-sized input (implicit rejection):
            // a stanza for another recipient fails to open, which is "not ours".
            guard var receiver = try? HPKE.Recipient(privateKey: key, ciphersuite: HybridRecipient.ciphersuite,
                                                     info: HybridRecipient.info, encapsulatedKey: Data(enc)),
                  let plain = try? receiver.open(stanza.body) else { continue }
            return SecretBytes(copying: plain)
        }
        return nil
    }
}

/// Any recipient a user can name: X25519 (`age1…`), hybrid post-quantum (`age1pq1…`),
/// or an SSH public key line (`ssh-ed25519 AAAA…`, `ssh-rsa AAAA…`), as age takes them.
public enum AgeRecipient: Recipient, Hashable {
    case x25519(X25519Recipient)
    case hybrid(HybridRecipient)
    case sshEd25519(SSHEd25519Recipient)
    case sshRSA(SSHRSARecipient)

    /// Parses `age1pq1…`, `age1…`, or an SSH public key line.
    public init(_ text: String) throws {
        if text.hasPrefix("ssh-") {
            let (type, blob) = try SSHKeyText.publicKey(line: text)
            self = type == SSHRSARecipient.stanzaType ? .sshRSA(try SSHRSARecipient(publicBlob: blob))
                                                      : .sshEd25519(try SSHEd25519Recipient(publicBlob: blob))
        } else if text.lowercased().hasPrefix(HybridRecipient.hrp + "1") {
            self = .hybrid(try HybridRecipient(text))
        } else {
            self = .x25519(try X25519Recipient(text))
        }
    }

    public var string: String {
        switch self {
        case .x25519(let r): return r.string
        case .hybrid(let r): return r.string
        case .sshEd25519(let r): return r.string
        case .sshRSA(let r): return r.string
        }
    }

    public var isPostQuantum: Bool { if case .hybrid = self { return true } else { return false } }

    public func wrap(fileKey: SecretBytes) throws -> [Stanza] {
        switch self {
        case .x25519(let r): return try r.wrap(fileKey: fileKey)
        case .hybrid(let r): return try r.wrap(fileKey: fileKey)
        case .sshEd25519(let r): return try r.wrap(fileKey: fileKey)
        case .sshRSA(let r): return try r.wrap(fileKey: fileKey)
        }
    }
}

/// Any identity an identity file can hold: X25519 or hybrid post-quantum, or an
/// unencrypted OpenSSH private key (ssh-ed25519, ssh-rsa), as age reads them.
public enum AgeIdentity: Identity {
    case x25519(X25519Identity)
    case hybrid(HybridIdentity)
    case sshEd25519(SSHEd25519Identity)
    case sshRSA(SSHRSAIdentity)

    /// Parses `AGE-SECRET-KEY-PQ-1…` or `AGE-SECRET-KEY-1…`.
    public init(_ text: String) throws {
        if text.uppercased().hasPrefix(HybridIdentity.hrp + "1") {
            self = .hybrid(try HybridIdentity(text))
        } else {
            self = .x25519(try X25519Identity(text))
        }
    }

    /// The key of an OpenSSH private key file (`-----BEGIN OPENSSH PRIVATE KEY-----`).
    public init(openSSHPrivateKey text: String) throws {
        switch try SSHKeyText.privateKey(text) {
        case .ed25519(let seed, let publicBlob): self = .sshEd25519(try SSHEd25519Identity(seed: seed, publicBlob: publicBlob))
        case .rsa(let key, let publicBlob): self = .sshRSA(try SSHRSAIdentity(privateKey: key, publicBlob: publicBlob))
        }
    }

    /// The identity's line in an identity file. SSH keys have none (they live in their
    /// own key files); nothing writes one.
    public var string: String {
        switch self {
        case .x25519(let i): return i.string
        case .hybrid(let i): return i.string
        case .sshEd25519, .sshRSA: preconditionFailure("an SSH private key is not written as an identity line")
        }
    }

    /// True for the age key types (X25519, post-quantum), which identity files and the
    /// keychain hold as lines; false for SSH keys.
    public var isAgeKey: Bool {
        switch self {
        case .x25519, .hybrid: return true
        case .sshEd25519, .sshRSA: return false
        }
    }

    public var recipient: AgeRecipient {
        switch self {
        case .x25519(let i): return .x25519(i.recipient)
        case .hybrid(let i): return .hybrid(i.recipient)
        case .sshEd25519(let i): return .sshEd25519(i.recipient)
        case .sshRSA(let i): return .sshRSA(i.recipient)
        }
    }

    public func unwrap(stanzas: [Stanza]) throws -> SecretBytes? {
        switch self {
        case .x25519(let i): return try i.unwrap(stanzas: stanzas)
        case .hybrid(let i): return try i.unwrap(stanzas: stanzas)
        case .sshEd25519(let i): return try i.unwrap(stanzas: stanzas)
        case .sshRSA(let i): return try i.unwrap(stanzas: stanzas)
        }
    }
}
