/// Why an entry was left alone on purpose.
public enum ShredRefusal: Sendable, Equatable, CustomStringConvertible {
    case hardLinked(otherNames: Int)
    case folderWithoutRecursive
    case fifo
    case socket
    case characterDevice
    case blockDevice
    case blockDeviceInTree
    case unknownType
    /// `.`, `..` or `/`.
    case specialName
    /// The entry was replaced by another one between looking at it and opening it.
    case changedMeanwhile

    public var description: String {
        switch self {
        case .hardLinked(let n): return "it has \(n) other hard link\(n == 1 ? "" : "s")"
        case .folderWithoutRecursive: return "is a folder"
        case .fifo: return "is a FIFO (named pipe)"
        case .socket: return "is a socket"
        case .characterDevice: return "is a character device"
        case .blockDevice: return "is a block device"
        case .blockDeviceInTree: return "is a block device inside a folder"
        case .unknownType: return "is not a regular file"
        case .specialName: return "refusing to shred '.', '..' or '/'"
        case .changedMeanwhile: return "it was replaced while being shredded; left alone"
        }
    }
}

/// What happens to each entry, in the order it happens (reported on the calling thread).
public enum ShredEvent: Sendable {
    /// A file overwritten and removed (with `keep`, overwritten only; with `dryRun`, selected).
    case destroyed(path: String, bytes: Int)
    /// A block device overwritten.
    case overwroteDevice(path: String, bytes: Int)
    case removedLink(path: String)
    case removedFolder(path: String)
    case skipped(path: String, reason: ShredRefusal)
    case failed(path: String, reason: String)
    /// The first time a file system that may not overwrite in place is met.
    case weakFileSystem(path: String, kind: FileSystemKind)
}

/// The run's summary (`--json`).
public struct ShredSummary: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public let path: String
        public let reason: String
    }

    public var dryRun = false
    public var kept = false
    public var passes = 0
    public var zeroPass = false
    /// Regular files (and block devices) destroyed, or overwritten with `kept`.
    public var files = 0
    /// Their size in bytes (before rounding up to whole blocks).
    public var bytes = 0
    public var links = 0
    public var folders = 0
    public var skipped: [Entry] = []
    public var errors: [Entry] = []
    public var warnings: [Entry] = []

    public init() {}

    /// Exit 0 only when nothing was skipped or failed.
    public var complete: Bool { skipped.isEmpty && errors.isEmpty }

    mutating func record(_ event: ShredEvent) {
        switch event {
        case .destroyed(_, let n), .overwroteDevice(_, let n): files += 1; bytes += n
        case .removedLink: links += 1
        case .removedFolder: folders += 1
        case .skipped(let path, let reason): skipped.append(Entry(path: path, reason: reason.description))
        case .failed(let path, let reason): errors.append(Entry(path: path, reason: reason))
        case .weakFileSystem(let path, let kind):
            warnings.append(Entry(path: path, reason: "\(kind.name): \(kind.caveat ?? "")"))
        }
    }
}
