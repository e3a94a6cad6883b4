#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The first entry of every bundle: who it is for and what it holds, so the reader can
/// check the policy and every path before it writes a byte.
///
/// Version 1 holds each file's SHA-256, so its files are hashed before the bundle starts
/// (every file read twice). Version 2 (`digestsLast`) leaves the digests to
/// `BundleDigests`, the entry after the last file, taken as the files are archived: one
/// read of each file, and a push uploads from its first byte read. Readers take both.
public struct BundleManifest: Codable, Sendable, Equatable {
    /// The manifest's name inside the archive (`bsdtar -x` extracts it like any file).
    public static let entryName = ".vfs-manifest.json"
    /// The version with the digests inside (vfs-wrap writes it).
    public static let currentVersion = 1
    /// The version whose digests come after the last file (`BundleDigests`; vfs-push writes it).
    public static let digestsLastVersion = 2
    /// A manifest larger than this is refused before it is parsed.
    package static let maximumSize = 64 << 20

    public var version: Int
    /// The group the bundle was sealed for (`-g GROUP`), checked by the policy.
    public var group: String?
    /// The access control id (`--access-id`).
    public var accessID: String?
    /// Who sealed it, as the sealer claims (the recipient of vfs-wrap -K's keychain
    /// identity). Nothing proves it: anyone who can encrypt to the group can write any.
    public var sender: String?
    public var created: Date
    public var entries: [Entry]

    public struct Entry: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable { case file, directory, symlink }
        /// Relative, `/`-separated, no `.` or `..` components, no trailing slash.
        public var path: String
        public var type: Kind
        public var size: Int
        /// Permission bits as octal text, e.g. "0644".
        public var mode: String
        /// Modification time, seconds since 1970.
        public var mtime: Int
        /// Lowercase hex SHA-256 of the content (files only).
        public var sha256: String?
        /// Where a symbolic link points.
        public var target: String?

        public init(path: String, type: Kind, size: Int, permissions: UInt32, mtime: Int, sha256: String? = nil, target: String? = nil) {
            self.path = path
            self.type = type
            self.size = size
            self.mode = "0" + String(permissions, radix: 8)
            self.mtime = mtime
            self.sha256 = sha256
            self.target = target
        }

        /// The mode as a number; nil if the text is not octal.
        public var permissions: UInt32? { UInt32(mode, radix: 8) }

        // A path (or link target) that is not UTF-8 (RawName) is stored losslessly as
        // "path_base64" (or "target_base64"): standard base64 of its bytes; "path" (or
        // "target") then holds it with each such byte written \xHH, for reading only.
        enum CodingKeys: String, CodingKey {
            case path, type, size, mode, mtime, sha256, target, pathBase64 = "path_base64", targetBase64 = "target_base64"
        }

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            /// The name `base64` stands for; nil when absent.
            func raw(_ key: CodingKeys) throws -> String? {
                guard let text = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
                guard let bytes = Base64.decode(Array(text.utf8), padded: true), let name = RawName.string(bytes), RawName.isRaw(name) else {
                    throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not the base64 of a name that is not UTF-8")
                }
                return name
            }
            let shown = try c.decode(String.self, forKey: .path)
            // Characters that stand for raw bytes come only from "path_base64".
            guard !RawName.isRaw(shown) else {
                throw DecodingError.dataCorruptedError(forKey: .path, in: c, debugDescription: "characters U+F780 to U+F7FF")
            }
            path = try raw(.pathBase64) ?? shown
            type = try c.decode(Kind.self, forKey: .type)
            size = try c.decode(Int.self, forKey: .size)
            mode = try c.decode(String.self, forKey: .mode)
            mtime = try c.decode(Int.self, forKey: .mtime)
            sha256 = try c.decodeIfPresent(String.self, forKey: .sha256)
            let target = try c.decodeIfPresent(String.self, forKey: .target)
            if let target, RawName.isRaw(target) {
                throw DecodingError.dataCorruptedError(forKey: .target, in: c, debugDescription: "characters U+F780 to U+F7FF")
            }
            self.target = try raw(.targetBase64) ?? target
        }

        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(RawName.escaped(path), forKey: .path)
            if RawName.isRaw(path) { try c.encode(Base64.encode(RawName.bytes(path), padded: true), forKey: .pathBase64) }
            try c.encode(type, forKey: .type)
            try c.encode(size, forKey: .size)
            try c.encode(mode, forKey: .mode)
            try c.encode(mtime, forKey: .mtime)
            try c.encodeIfPresent(sha256, forKey: .sha256)
            try c.encodeIfPresent(target.map(RawName.escaped), forKey: .target)
            if let target, RawName.isRaw(target) { try c.encode(Base64.encode(RawName.bytes(target), padded: true), forKey: .targetBase64) }
        }
    }

    enum CodingKeys: String, CodingKey {
        case version, group, accessID = "access_id", sender, created, entries
    }

    public init(group: String?, accessID: String?, sender: String?, created: Date = Date(), entries: [Entry],
                version: Int = BundleManifest.currentVersion) {
        self.version = version
        self.group = group
        self.accessID = accessID
        self.sender = sender
        // Whole seconds: what the stored ISO 8601 text keeps.
        self.created = Date(timeIntervalSince1970: created.timeIntervalSince1970.rounded(.down))
        self.entries = entries
    }

    /// The manifest as stored: sorted keys, ISO 8601 dates.
    public func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return Array(try encoder.encode(self)) + [0x0A]
    }

    /// Parses and validates a manifest (every rule of `validate()`).
    public static func decode(_ bytes: [UInt8]) throws -> BundleManifest {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let manifest: BundleManifest
        do {
            manifest = try decoder.decode(BundleManifest.self, from: Data(bytes))
        } catch {
            throw BundleError.manifest("it is not the expected JSON (\(Self.describe(error)))")
        }
        try manifest.validate()
        return manifest
    }

    static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
             DecodingError.dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "not JSON" : "bad value at \(path)"
        default: return "\(error)"
        }
    }

    /// Whether the files' digests come after the last file (`BundleDigests`), not in here.
    public var digestsLast: Bool { version == Self.digestsLastVersion }

    /// The rules a safe extraction relies on: a known version; every path relative,
    /// without `.`/`..`, unique, inside a folder that is itself an entry, never below a
    /// link or a file; no setuid/setgid bits; links resolve inside the bundle's folder.
    public func validate() throws {
        guard version == Self.currentVersion || version == Self.digestsLastVersion else {
            throw BundleError.manifest("version \(version) is not supported (this vfs reads versions \(Self.currentVersion) and \(Self.digestsLastVersion))")
        }
        var kinds = [String: Entry.Kind]()
        for entry in entries {
            try BundlePath.check(entry.path)
            guard kinds[entry.path] == nil else { throw BundleError.unsafeEntry(path: entry.path, reason: "it appears twice") }
            if let parent = BundlePath.parent(of: entry.path) {
                switch kinds[parent] {
                case .directory: break
                case .symlink: throw BundleError.unsafeEntry(path: entry.path, reason: "it lies below the symbolic link \"\(parent)\"")
                case .file: throw BundleError.unsafeEntry(path: entry.path, reason: "it lies below the file \"\(parent)\"")
                case nil: throw BundleError.unsafeEntry(path: entry.path, reason: "its folder \"\(parent)\" is not an earlier entry")
                }
            }
            guard let permissions = entry.permissions, permissions <= 0o7777 else {
                throw BundleError.manifest("\"\(entry.path)\" has an invalid mode \"\(entry.mode)\"")
            }
            if permissions & 0o6000 != 0 {
                throw BundleError.unsafeEntry(path: entry.path, reason: "it has the setuid or setgid bit (mode \(entry.mode))")
            }
            guard entry.size >= 0, entry.type == .file || entry.size == 0 else {
                throw BundleError.manifest("\"\(entry.path)\" has an invalid size \(entry.size)")
            }
            switch entry.type {
            case .file where digestsLast:
                guard entry.sha256 == nil else {
                    throw BundleError.manifest("\"\(entry.path)\" has a sha256 in a version \(version) manifest (its digests come last)")
                }
            case .file:
                guard let digest = entry.sha256, BundleDigests.isDigest(digest) else {
                    throw BundleError.manifest("\"\(entry.path)\" has no valid sha256")
                }
            case .symlink:
                guard entry.target?.isEmpty == false else { throw BundleError.manifest("the link \"\(entry.path)\" has no target") }
            case .directory: break
            }
            kinds[entry.path] = entry.type
        }
        let links = Dictionary(uniqueKeysWithValues: entries.filter { $0.type == .symlink }.map { ($0.path, $0.target!) })
        for (path, target) in links where !BundlePath.linkStaysInside(path: path, target: target, links: links) {
            throw BundleError.unsafeEntry(path: path, reason: "the symbolic link points outside the folder (\"\(target)\")")
        }
    }

    /// The entries that carry content or a name a policy can judge (not folders).
    public var contentEntries: [Entry] { entries.filter { $0.type != .directory } }
}

/// Path rules for bundle entries.
package enum BundlePath {
    package static func check(_ path: String) throws {
        func refuse(_ why: String) -> BundleError { .unsafeEntry(path: path, reason: why) }
        if path.isEmpty { throw refuse("the path is empty") }
        if path.hasPrefix("/") { throw refuse("the path is absolute") }
        if path.utf8.contains(0) { throw refuse("the path contains a NUL byte") }
        if path == BundleManifest.entryName { throw refuse("the name is reserved for the manifest") }
        for part in path.split(separator: "/", omittingEmptySubsequences: false) {
            if part == ".." { throw refuse("the path contains \"..\"") }
            if part == "." || part.isEmpty { throw refuse("the path is not in normal form") }
        }
    }

    /// The last component of a path.
    package static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    package static func parent(of path: String) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }

    /// Whether a link at `path` pointing at `target` resolves inside the folder, also
    /// through the bundle's other links (`links`: path → target).
    package static func linkStaysInside(path: String, target: String, links: [String: String]) -> Bool {
        var stack = parent(of: path).map { $0.split(separator: "/").map(String.init) } ?? []
        var hops = 0
        func walk(_ target: String) -> Bool {
            if target.hasPrefix("/") { return false }
            for part in target.split(separator: "/") {
                if part == "." { continue }
                if part == ".." {
                    if stack.isEmpty { return false }
                    stack.removeLast()
                    continue
                }
                stack.append(String(part))
                if let next = links[stack.joined(separator: "/")] {
                    hops += 1
                    if hops > 40 { return false }
                    stack.removeLast()
                    if !walk(next) { return false }
                }
            }
            return true
        }
        return walk(target)
    }
}
