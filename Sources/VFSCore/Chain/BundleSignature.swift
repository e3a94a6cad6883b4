#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The sending device's signature of a bundle (docs/device-chain.md, "Bundle signatures").
///
/// Version 1 signs the exact bytes of the bundle's manifest, which hold the SHA-256 of
/// every file, so it covers the payload too; it is the archive entry
/// `.vfs-signature.json` right after the manifest. Version 2 signs the manifest's bytes
/// and those of the digests entry (`BundleDigests`) of a bundle whose digests come last,
/// and is the entry after the digests, the bundle's last. Either travels inside the
/// encryption: `age -d … | bsdtar -x` still opens the bundle (one more small file). A
/// signature of the other version than its bundle's never verifies (the signed text
/// starts with its version). Version 3 (issue 43, item 8) is version 2 that also signs
/// the devices the bundle is for (`recipients`, device ids) and when it was signed
/// (`time`): a receiver that is not among them was handed a forwarded bundle, and one
/// that saw the signature before under another transfer was handed a replay.
package struct BundleSignature: Codable, Equatable, Sendable {
    public static let entryName = ".vfs-signature.json"
    public static let currentVersion = 1
    /// The version that signs the digests entry too.
    public static let digestsLastVersion = 2
    /// The version that signs the digests, the recipients and the time.
    public static let addressedVersion = 3
    /// Larger entries are refused before they are parsed (room for some 1,800 recipients).
    public static let maximumSize = 65536
    /// At most this many recipients are signed (and read).
    public static let maximumRecipients = 1800
    static let context = Array("vfs bundle signature v1\0".utf8)
    static let contextDigestsLast = Array("vfs bundle signature v2\0".utf8)
    static let contextAddressed = Array("vfs bundle signature v3\0".utf8)

    public var version: Int
    /// The signer's user (whose chain to verify it against) and device id in that chain.
    public var user: String
    public var device: String
    /// Base64 of the Ed25519 signature of the context string and SHA-256 of the manifest's
    /// bytes (version 2: and then SHA-256 of the digests entry's bytes).
    public var signature: String
    /// Version 3: the ids of the devices the bundle is encrypted to, sorted.
    public var recipients: [String]? = nil
    /// Version 3: when it was signed (seconds since 1970, the sender's clock).
    public var time: Int64? = nil

    /// Who signs a bundle as it is written: `device` of `user`, with its key; with
    /// `recipients` and `time`, a bundle whose digests come last is signed in version 3.
    package struct Signer: Sendable {
        public var user: String
        public var device: String
        public var key: Ed25519.SigningKey
        public var recipients: [String]?
        public var time: Int64?
        public init(user: String, device: String, key: Ed25519.SigningKey, recipients: [String]? = nil, time: Int64? = nil) {
            self.user = user; self.device = device; self.key = key; self.recipients = recipients; self.time = time
        }
    }

    /// Signs `manifest` (the manifest entry's exact bytes) and, for a bundle whose digests
    /// come last, `digests` (that entry's exact bytes), as `device` of `user`; with
    /// `recipients` and `time` too (version 3) for such a bundle.
    public static func sign(manifest: [UInt8], digests: [UInt8]? = nil, user: String, device: String,
                            key: Ed25519.SigningKey, recipients: [String]? = nil, time: Int64? = nil) throws -> BundleSignature {
        var value = BundleSignature(version: digests == nil ? currentVersion : digestsLastVersion, user: user, device: device, signature: "")
        if digests != nil, let recipients, let time {
            guard recipients.count <= maximumRecipients else {
                throw BundleSignatureError.malformed("\(recipients.count) recipients: at most \(maximumRecipients) are signed")
            }
            value.version = addressedVersion
            value.recipients = Array(Set(recipients)).sorted()
            value.time = time
        }
        value.signature = Data(try key.sign(value.signedText(manifest: manifest, digests: digests))).base64EncodedString()
        return value
    }

    func signedText(manifest: [UInt8], digests: [UInt8]?) -> [UInt8] {
        guard let digests else { return Self.context + SHA256.hash(manifest) }
        guard version == Self.addressedVersion else {
            return Self.contextDigestsLast + SHA256.hash(manifest) + SHA256.hash(digests)
        }
        // The recipients and the time, each field of fixed size or length-prefixed: one encoding.
        var text = Self.contextAddressed + SHA256.hash(manifest) + SHA256.hash(digests)
        let time = UInt64(bitPattern: self.time ?? 0), recipients = self.recipients ?? []
        text += (0..<8).map { UInt8(truncatingIfNeeded: time >> (56 - 8 * $0)) }
        text += (0..<4).map { UInt8(truncatingIfNeeded: UInt32(recipients.count) >> (24 - 8 * $0)) }
        for recipient in recipients {
            let bytes = Array(recipient.utf8)
            text += [UInt8(truncatingIfNeeded: bytes.count >> 8), UInt8(truncatingIfNeeded: bytes.count)] + bytes
        }
        return text
    }

    /// The entry's bytes: JSON with sorted keys.
    public func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(self)) + [0x0A]
    }

    public static func decode(_ bytes: [UInt8]) throws -> BundleSignature {
        guard bytes.count <= maximumSize else { throw BundleSignatureError.malformed("a signature entry of \(bytes.count) bytes") }
        let value: BundleSignature
        do {
            value = try JSONDecoder().decode(BundleSignature.self, from: Data(bytes))
        } catch {
            throw BundleSignatureError.malformed("not a signature entry")
        }
        guard [currentVersion, digestsLastVersion, addressedVersion].contains(value.version) else {
            throw BundleSignatureError.malformed("unknown signature version \(value.version)")
        }
        if value.version == addressedVersion {
            guard let recipients = value.recipients, value.time != nil, recipients.count <= maximumRecipients,
                  recipients == Array(Set(recipients)).sorted(), recipients.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 64 }) else {
                throw BundleSignatureError.malformed("a version 3 signature without its sorted recipients and time")
            }
        } else if value.recipients != nil || value.time != nil {
            throw BundleSignatureError.malformed("recipients or a time in a version \(value.version) signature (they are signed in version 3 only)")
        }
        return value
    }

    /// The device that signed `manifest` (and `digests`, for a bundle whose digests come
    /// last), if this signature is valid by a device live in `chain` (the signer's
    /// verified chain); throws otherwise.
    public func verify(manifest: [UInt8], digests: [UInt8]? = nil, chain: DeviceChain.Verified) throws -> DeviceChain.DeviceEntry {
        guard user == chain.user else { throw BundleSignatureError.wrongUser(claimed: user, chain: chain.user) }
        // A send-only device (issue 48) signs its own pushes as any device does.
        guard let signer = chain.signer(device) else { throw BundleSignatureError.unknownDevice(user: user, device: device) }
        try verify(manifest: manifest, digests: digests, signer: signer)
        return signer
    }

    /// Throws unless this is `signer`'s valid signature of `manifest` and `digests` (a
    /// device whose key the caller trusts by other means than a chain: one pinned locally).
    public func verify(manifest: [UInt8], digests: [UInt8]? = nil, signer: DeviceChain.DeviceEntry) throws {
        let expected = digests == nil ? [Self.currentVersion] : [Self.digestsLastVersion, Self.addressedVersion]
        guard expected.contains(version) else {
            throw BundleSignatureError.malformed("a version \(version) signature on a bundle that takes version \(expected.map(String.init).joined(separator: " or "))")
        }
        guard device == signer.id else { throw BundleSignatureError.unknownDevice(user: user, device: device) }
        guard let raw = Data(base64Encoded: signature),
              Ed25519.verify(signature: Array(raw), of: signedText(manifest: manifest, digests: digests),
                             publicKey: signer.signingKey) else {
            throw BundleSignatureError.badSignature(user: user, device: signer.name)
        }
    }
}

package enum BundleSignatureError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformed(String)
    case wrongUser(claimed: String, chain: String)
    case unknownDevice(user: String, device: String)
    case badSignature(user: String, device: String)
    /// Version 1 or 2 where version 3 is required: no recipients or time were signed.
    case unaddressed(version: Int)
    /// This device is not among the devices the bundle was signed for (it was forwarded).
    case notForThisDevice(device: String)
    /// The signature came before with another transfer (a replay).
    case replayed(seen: String)
    /// Signed longer ago than receivers remember signatures.
    case tooOld(signed: Int64)

    public var description: String {
        switch self {
        case .malformed(let reason): return "bundle signature: \(reason)"
        case let .wrongUser(claimed, chain): return "bundle signature: it claims \"\(claimed)\", verified against \"\(chain)\"'s devices"
        case let .unknownDevice(user, device): return "bundle signature: device \(device) is not one of \"\(user)\"'s verified devices"
        case let .badSignature(user, device): return "bundle signature: it is not \"\(device)\"'s (\"\(user)\"): the bundle was changed or forged"
        case .unaddressed(let version): return "bundle signature: a version \(version) signature, which does not say whom the bundle is for nor when it was signed (it could be forwarded or replayed)"
        case .notForThisDevice(let device): return "bundle signature: this device (\(device)) is not one the sender signed the bundle for: it was forwarded"
        case .replayed(let seen): return "bundle signature: this device received the same signed bundle before, as transfer \(seen): a replay"
        case .tooOld(let signed): return "bundle signature: signed at \(signed) (seconds since 1970), longer ago than this device remembers what it received"
        }
    }
}
