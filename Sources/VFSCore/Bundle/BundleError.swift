/// What can go wrong writing or opening a bundle.
public enum BundleError: Error, CustomStringConvertible, Equatable {
    /// libarchive failed; `message` is its archive_error_string. Writing is an I/O
    /// problem (74), reading means the plaintext is not a valid bundle (65).
    case archive(String, writing: Bool)
    /// The plaintext is not a vfs bundle (no manifest first).
    case notABundle(String)
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

    public var description: String {
        switch self {
        case .archive(let message, _): return "archive: \(message)"
        case .notABundle(let why): return "not a vfs bundle: \(why)"
        case .manifest(let why): return "invalid manifest: \(why)"
        case .unsafeEntry(let path, let reason): return "refusing entry \"\(path)\": \(reason)"
        case .digestMismatch(let path): return "\"\(path)\" does not match its SHA-256 in the manifest"
        case .changedWhileWrapping(let path): return "\"\(path)\" changed while it was being wrapped"
        case .exists(let path, let folder):
            return folder ? "\"\(path)\" is a folder; a file or link can't replace it" : "\"\(path)\" already exists"
        case .badInput(let why), .cannotExtract(let why): return why
        }
    }
}
