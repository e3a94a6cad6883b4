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

    /// As age's: `postquantum`, so a file is only as strong as this stanza.
    public func wrapWithLabels(fileKey: SecretBytes) throws -> (stanzas: [Stanza], labels: Set<String>) {
        (try wrap(fileKey: fileKey), [RecipientLabel.postQuantum])
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
