/// What can go wrong writing or opening a bundle.
public enum BundleError: Error, CustomStringConvertible, Equatable {
    /// libarchive failed; `message` is its archive_error_string. Writing is an I/O
    /// problem (74), reading means the plaintext is not a valid bundle (65).
    case archive(String, writing: Bool)
    /// The plaintext is not a vfs bundle (no manifest first).
    case notABundle(String)
    /// The plaintext is zstd-compressed but its compressed data is damaged: a bundle
    /// sealed that way (it decrypted and authenticated), not a plain age file.
    case damagedCompression(String)
    /// The manifest does not parse or breaks a rule.
    case manifest(String)
    /// An entry a safe extraction refuses: absolute paths, `..`, links out of the
    /// folder, devices, setuid bits, entries not in the manifest.
    case unsafeEntry(path: String, reason: String)
    /// An entry's content does not match the manifest.
    case digestMismatch(path: String)
    /// A file changed between hashing and archiving.
    case changedWhileWrapping(path: String)
    /// Extraction would replace something that exists.
    case exists(path: String, folder: Bool)
    /// An input path cannot be wrapped as given.
    case badInput(String)
    /// The target folder does not exist or can't be written.
    case cannotExtract(String)
    /// A folder in the target that extraction merges into was replaced (by a link or
    /// another folder) between the plan and the move; nothing is placed through it.
    case changedDuringExtraction(path: String)
    /// The manifest's files need more room than the target's file system has free
    /// (bytes, counted in whole blocks).
    case notEnoughSpace(folder: String, needed: Int, available: Int)
    /// The content is more than `limit` times the size of the bundle (`bundle`: its size,
    /// or what was read of it so far when it comes through a pipe).
    case expansionTooLarge(content: Int, bundle: Int, limit: Int, streaming: Bool)
    /// An input that vfs-unwrap would refuse, so it is not wrapped (`path` on disk).
    case notUnwrappable(path: String, reason: UnwrappableReason)
    /// Members asked for by name (or glob, with `wildcards`) that match no entry.
    case notInBundle(members: [String], wildcards: Bool)

    /// Why an input can't go into a bundle.
    public enum UnwrappableReason: Sendable, Equatable {
        /// A regular file with the setuid or setgid bit.
        case setuidFile
        /// A symbolic link that resolves outside what is wrapped.
        case linkOutside(target: String)
    }

    public var description: String {
        switch self {
        case .archive(let message, _): return "archive: \(message)"
        case .notABundle(let why): return "not a vfs bundle: \(why)"
        case .damagedCompression(let why): return "the bundle's zstd-compressed archive is damaged: \(why)"
        case .manifest(let why): return "invalid manifest: \(why)"
        case .unsafeEntry(let path, let reason): return "refusing entry \"\(path)\": \(reason)"
        case .digestMismatch(let path): return "\"\(path)\" does not match its SHA-256 in the manifest"
        case .changedWhileWrapping(let path): return "\"\(path)\": file changed as we read it"
        case .exists(let path, let folder):
            return folder ? "\"\(path)\" is a folder; a file or link can't replace it" : "\"\(path)\" already exists"
        case .badInput(let why), .cannotExtract(let why): return why
        case .changedDuringExtraction(let path):
            return "\"\(path)\" was replaced during extraction; nothing is placed through it"
        case let .notEnoughSpace(folder, needed, available):
            return "the bundle's files need \(Self.size(needed)) but \"\(folder)\" has \(Self.size(available)) free"
        case let .expansionTooLarge(content, bundle, limit, streaming):
            let what = streaming ? "\(Self.size(content)) came out of the first \(Self.size(bundle)) of the bundle"
                                 : "the bundle's files hold \(Self.size(content)) in a bundle of \(Self.size(bundle))"
            return "\(what): more than \(limit) times its size, the most an extraction expands by default"
        case let .notInBundle(members, _):
            return members.map { "\"\($0)\"" }.joined(separator: ", ") + " not found in bundle"
        case let .notUnwrappable(path, .setuidFile):
            return "can't wrap \"\(path)\": it has the setuid or setgid bit, which vfs-unwrap refuses"
        case let .notUnwrappable(path, .linkOutside(target)):
            return "can't wrap \"\(path)\": the symbolic link points outside what is wrapped (\"\(target)\"), which vfs-unwrap refuses"
        }
    }
}

extension BundleError {
    /// Bytes for messages: exact below 1 KiB, else with one decimal in KiB, MiB, GiB or TiB.
    static func size(_ bytes: Int) -> String {
        guard bytes >= 1024 else { return "\(bytes) bytes" }
        var value = Double(bytes), unit = 0
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
