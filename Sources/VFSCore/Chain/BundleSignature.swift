#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The sending device's signature of a bundle (docs/device-chain.md, "Bundle signatures").
///
/// It signs the exact bytes of the bundle's manifest, which hold the SHA-256 of every
/// file, so it covers the payload too. It travels inside the encryption, as the archive
/// entry `.vfs-signature.json` right after the manifest: `age -d … | bsdtar -x` still
/// opens the bundle (the signature is one more small file).
package struct BundleSignature: Codable, Equatable, Sendable {
    public static let entryName = ".vfs-signature.json"
    public static let currentVersion = 1
    /// Larger entries are refused before they are parsed.
    public static let maximumSize = 4096
    static let context = Array("vfs bundle signature v1\0".utf8)

    public var version: Int
    /// The signer's user (whose chain to verify it against) and device id in that chain.
    public var user: String
    public var device: String
    /// Base64 of the Ed25519 signature of the context string and SHA-256 of the manifest's bytes.
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

    /// Signs `manifest` (the manifest entry's exact bytes) as `device` of `user`.
    public static func sign(manifest: [UInt8], user: String, device: String, key: Ed25519.SigningKey) throws -> BundleSignature {
        let signature = try key.sign(context + SHA256.hash(manifest))
        return BundleSignature(version: currentVersion, user: user, device: device, signature: Data(signature).base64EncodedString())
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
        guard value.version == currentVersion else { throw BundleSignatureError.malformed("unknown signature version \(value.version)") }
        return value
    }

    /// The device that signed `manifest`, if this signature is valid by a device live in
    /// `chain` (the signer's verified chain); throws otherwise.
    public func verify(manifest: [UInt8], chain: DeviceChain.Verified) throws -> DeviceChain.DeviceEntry {
        guard user == chain.user else { throw BundleSignatureError.wrongUser(claimed: user, chain: chain.user) }
        guard let signer = chain.devices[device] else { throw BundleSignatureError.unknownDevice(user: user, device: device) }
        try verify(manifest: manifest, signer: signer)
        return signer
    }

    /// Throws unless this is `signer`'s valid signature of `manifest` (a device whose key
    /// the caller trusts by other means than a chain: one pinned locally).
    public func verify(manifest: [UInt8], signer: DeviceChain.DeviceEntry) throws {
        guard device == signer.id else { throw BundleSignatureError.unknownDevice(user: user, device: device) }
        guard let raw = Data(base64Encoded: signature),
              Ed25519.verify(signature: Array(raw), of: Self.context + SHA256.hash(manifest), publicKey: signer.signingKey) else {
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
