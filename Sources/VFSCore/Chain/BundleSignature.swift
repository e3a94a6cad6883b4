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
/// starts with its version).
package struct BundleSignature: Codable, Equatable, Sendable {
    public static let entryName = ".vfs-signature.json"
    public static let currentVersion = 1
    /// The version that signs the digests entry too.
    public static let digestsLastVersion = 2
    /// Larger entries are refused before they are parsed.
    public static let maximumSize = 4096
    static let context = Array("vfs bundle signature v1\0".utf8)
    static let contextDigestsLast = Array("vfs bundle signature v2\0".utf8)

    public var version: Int
    /// The signer's user (whose chain to verify it against) and device id in that chain.
    public var user: String
    public var device: String
    /// Base64 of the Ed25519 signature of the context string and SHA-256 of the manifest's
    /// bytes (version 2: and then SHA-256 of the digests entry's bytes).
    public var signature: String

    /// Who signs a bundle as it is written: `device` of `user`, with its key.
    package struct Signer: Sendable {
        public var user: String
        public var device: String
        public var key: Ed25519.SigningKey
        public init(user: String, device: String, key: Ed25519.SigningKey) {
            self.user = user; self.device = device; self.key = key
        }
    }

    /// Signs `manifest` (the manifest entry's exact bytes) and, for a bundle whose digests
    /// come last, `digests` (that entry's exact bytes), as `device` of `user`.
    public static func sign(manifest: [UInt8], digests: [UInt8]? = nil, user: String, device: String,
                            key: Ed25519.SigningKey) throws -> BundleSignature {
        let signature = try key.sign(signedText(manifest: manifest, digests: digests))
        return BundleSignature(version: digests == nil ? currentVersion : digestsLastVersion, user: user, device: device,
                               signature: Data(signature).base64EncodedString())
    }

    static func signedText(manifest: [UInt8], digests: [UInt8]?) -> [UInt8] {
        guard let digests else { return context + SHA256.hash(manifest) }
        return contextDigestsLast + SHA256.hash(manifest) + SHA256.hash(digests)
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
        guard value.version == currentVersion || value.version == digestsLastVersion else {
            throw BundleSignatureError.malformed("unknown signature version \(value.version)")
        }
        return value
    }

    /// The device that signed `manifest` (and `digests`, for a bundle whose digests come
    /// last), if this signature is valid by a device live in `chain` (the signer's
    /// verified chain); throws otherwise.
    public func verify(manifest: [UInt8], digests: [UInt8]? = nil, chain: DeviceChain.Verified) throws -> DeviceChain.DeviceEntry {
        guard user == chain.user else { throw BundleSignatureError.wrongUser(claimed: user, chain: chain.user) }
        guard let signer = chain.devices[device] else { throw BundleSignatureError.unknownDevice(user: user, device: device) }
        try verify(manifest: manifest, digests: digests, signer: signer)
        return signer
    }

    /// Throws unless this is `signer`'s valid signature of `manifest` and `digests` (a
    /// device whose key the caller trusts by other means than a chain: one pinned locally).
    public func verify(manifest: [UInt8], digests: [UInt8]? = nil, signer: DeviceChain.DeviceEntry) throws {
        let expected = digests == nil ? Self.currentVersion : Self.digestsLastVersion
        guard version == expected else {
            throw BundleSignatureError.malformed("a version \(version) signature on a bundle that takes version \(expected)")
        }
        guard device == signer.id else { throw BundleSignatureError.unknownDevice(user: user, device: device) }
        guard let raw = Data(base64Encoded: signature),
              Ed25519.verify(signature: Array(raw), of: Self.signedText(manifest: manifest, digests: digests),
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

    public var description: String {
        switch self {
        case .malformed(let reason): return "bundle signature: \(reason)"
        case let .wrongUser(claimed, chain): return "bundle signature: it claims \"\(claimed)\", verified against \"\(chain)\"'s devices"
        case let .unknownDevice(user, device): return "bundle signature: device \(device) is not one of \"\(user)\"'s verified devices"
        case let .badSignature(user, device): return "bundle signature: it is not \"\(device)\"'s (\"\(user)\"): the bundle was changed or forged"
        }
    }
}
