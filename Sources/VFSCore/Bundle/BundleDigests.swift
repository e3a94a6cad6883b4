#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The entry after the last file of a version 2 bundle (`BundleManifest.digestsLast`):
/// the SHA-256 of each file's content, in the manifest's order, taken as the file went
/// into the archive. `age -d … | bsdtar -x` extracts it like any file.
///
/// A reader hashes each file as it comes and compares at this entry; an extraction places
/// nothing before that (and before the signature after it, if any, passed).
public struct BundleDigests: Codable, Equatable, Sendable {
    public static let entryName = ".vfs-digests.json"
    public static let currentVersion = 1
    /// Larger entries are refused before they are parsed (as the manifest).
    package static let maximumSize = BundleManifest.maximumSize

    public var version: Int
    /// Lowercase hex, one per file entry of the manifest, in its order.
    public var sha256: [String]

    public init(sha256: [String]) {
        self.version = Self.currentVersion
        self.sha256 = sha256
    }

    /// The entry's bytes: JSON with sorted keys, one digest per line.
    public func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return Array(try encoder.encode(self)) + [0x0A]
    }

    /// Parses the entry of a bundle whose manifest lists `files` files.
    public static func decode(_ bytes: [UInt8], files: Int) throws -> BundleDigests {
        let value: BundleDigests
        do {
            value = try JSONDecoder().decode(BundleDigests.self, from: Data(bytes))
        } catch {
            throw BundleError.manifest("\(entryName) is not the expected JSON (\(BundleManifest.describe(error)))")
        }
        guard value.version == currentVersion else {
            throw BundleError.manifest("\(entryName) has version \(value.version) (this vfs reads version \(currentVersion))")
        }
        guard value.sha256.count == files else {
            throw BundleError.manifest("\(entryName) lists \(value.sha256.count) digests for \(files) files")
        }
        guard value.sha256.allSatisfy(isDigest) else { throw BundleError.manifest("\(entryName) holds a digest that is not SHA-256 in lowercase hex") }
        return value
    }

    /// 64 lowercase hex digits.
    static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
