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
    /// A mount point inside a tree (another file system, or a bind mount): not crossed.
    case otherFileSystem
    /// On sysfs, proc, devtmpfs, cgroup or another kernel pseudo file system (its name).
    case pseudoFileSystem(String)

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
        case .otherFileSystem: return "is a mount point (another file system or a bind mount); not crossed"
        case .pseudoFileSystem(let name): return "is on \(name), a kernel pseudo file system, not stored data; refused"
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
    /// A folder named on the command line is a mount point: what it held went, the
    /// folder itself stays (a mount point can't be removed).
    case keptMountPoint(path: String)
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
    /// Every path destroyed (overwritten with `kept`, selected with `dryRun`): files,
    /// devices, links, and folders (ending in '/'), in the order they went.
    public var destroyed: [String] = []
    public var skipped: [Entry] = []
    public var errors: [Entry] = []
    public var warnings: [Entry] = []

    public init() {}

    /// Why a mount point named on the command line was kept.
    public static let mountPointKept = "is a mount point: what it held was shredded, the folder itself stays"

    /// Exit 0 only when nothing was skipped or failed.
    public var complete: Bool { skipped.isEmpty && errors.isEmpty }

    /// Paths (and reasons naming them) as JSON carries them: a byte that is not UTF-8
    /// written \xHH, as the other tools' messages and vfs-wrap's manifest "path" write it.
    mutating func record(_ event: ShredEvent) {
        let shown = RawName.escaped
        switch event {
        case .destroyed(let path, let n), .overwroteDevice(let path, let n): files += 1; bytes += n; destroyed.append(shown(path))
        case .removedLink(let path): links += 1; destroyed.append(shown(path))
        case .removedFolder(let path): folders += 1; destroyed.append(shown(path) + "/")
        case .skipped(let path, let reason): skipped.append(Entry(path: shown(path), reason: reason.description))
        case .failed(let path, let reason): errors.append(Entry(path: shown(path), reason: shown(reason)))
        case .weakFileSystem(let path, let kind):
            warnings.append(Entry(path: shown(path), reason: "\(kind.name): \(kind.caveat ?? "")"))
        case .keptMountPoint(let path):
            warnings.append(Entry(path: shown(path), reason: Self.mountPointKept))
        }
    }
}

/// One line of `--json-lines`: an event as it happens, or the closing summary.
public struct ShredLogLine: Codable, Sendable, Equatable {
    /// destroyed, overwrote-device, removed-link, removed-folder, skipped, failed,
    /// warning, or summary.
    public var event: String
    public var path: String?
    public var bytes: Int?
    public var reason: String?

    /// Paths as in the summary: bytes that are not UTF-8 written \xHH.
    public init(_ event: ShredEvent) {
        switch event {
        case .destroyed(let path, let n): self.event = "destroyed"; self.path = RawName.escaped(path); bytes = n
        case .overwroteDevice(let path, let n): self.event = "overwrote-device"; self.path = RawName.escaped(path); bytes = n
        case .removedLink(let path): self.event = "removed-link"; self.path = RawName.escaped(path)
        case .removedFolder(let path): self.event = "removed-folder"; self.path = RawName.escaped(path) + "/"
        case .skipped(let path, let why): self.event = "skipped"; self.path = RawName.escaped(path); reason = why.description
        case .failed(let path, let why): self.event = "failed"; self.path = RawName.escaped(path); reason = RawName.escaped(why)
        case .weakFileSystem(let path, let kind): self.event = "warning"; self.path = RawName.escaped(path); reason = "\(kind.name): \(kind.caveat ?? "")"
        case .keptMountPoint(let path): self.event = "warning"; self.path = RawName.escaped(path); reason = ShredSummary.mountPointKept
        }
    }
}
