#if canImport(Glibc)
import Glibc
#endif

/// What a shredding run does.
public struct ShredOptions: Sendable {
    /// Random overwrite passes.
    public var passes = 1
    /// A final pass of zeros after the random ones.
    public var zeroPass = false
    /// Overwrite but do not remove.
    public var keep = false
    /// Descend into folders and remove the ones emptied.
    public var recursive = false
    /// With a filter: remove the folders named on the command line once everything in
    /// them went (without one they go anyway, as with rm -r).
    public var removeRoots = false
    /// With a filter: remove the subfolders this run emptied (they stay otherwise).
    public var pruneEmpty = false
    /// Overwrite up to the file's size, not rounded up to a whole block (GNU's --exact).
    public var exact = false
    /// How names are removed (GNU shred's --remove=HOW).
    public var removal = NameRemoval.wipeSync
    /// Overwrite files with other hard links; make read-only files writable.
    public var force = false
    /// Overwrite block devices named on the command line (never removed).
    public var devices = false
    /// Report what would be destroyed, touch nothing.
    public var dryRun = false
    /// Read the last pass back from the device and compare it.
    public var verify = false
    /// Which files (and links) are destroyed; folders are always descended.
    public var selection = ShredSelection()
    /// Files overwritten at the same time in a tree (their syncs share journal commits).
    public var workers = 4
    /// Multiply-linked files whose every name is in the run (see HardLinkCensus), with
    /// their link counts then: destroyed without `force`. Set by the Shredder.
    var completeLinkSets: [HardLinkCensus.FileID: Int] = [:]

    /// Whether a file with other names may be overwritten: with `force`, or when all of
    /// its names are in the run (and it gained none since).
    func mayOverwrite(linked info: stat) -> Bool {
        force || completeLinkSets[HardLinkCensus.FileID(info)].map { Int(info.st_nlink) <= $0 } == true
    }

    public init() {}
}

/// How a name leaves its folder, as GNU shred's --remove=HOW: `unlink` only unlinks it,
/// `wipe` renames it through shorter names first, `wipesync` (the default) also syncs
/// the folder after every rename.
public enum NameRemoval: String, Sendable, CaseIterable {
    case unlink, wipe, wipeSync = "wipesync"
}

/// The filters: age and base-name globs.
public struct ShredSelection: Sendable {
    /// Only entries last modified at least this many seconds before `now`.
    public var olderThan: Int?
    /// fnmatch(3) patterns matched against base names, as NUL-terminated bytes (a glob,
    /// like a name, need not be UTF-8); an entry must match one of `includes` (when there
    /// are any) and none of `excludes`.
    var includes: [[CChar]] = []
    var excludes: [[CChar]] = []
    /// The moment ages are measured from, in seconds since the epoch.
    public var now: Int

    public init(olderThan: Int? = nil, includes: [String] = [], excludes: [String] = [], now: Int? = nil) {
        self.init(olderThan: olderThan, rawIncludes: includes.map { Array($0.utf8) }, rawExcludes: excludes.map { Array($0.utf8) }, now: now)
    }

    /// Globs as the bytes the command line gave.
    public init(olderThan: Int? = nil, rawIncludes: [[UInt8]], rawExcludes: [[UInt8]], now: Int? = nil) {
        self.olderThan = olderThan
        self.includes = rawIncludes.map { $0.map { CChar(bitPattern: $0) } + [0] }
        self.excludes = rawExcludes.map { $0.map { CChar(bitPattern: $0) } + [0] }
        self.now = now ?? Int(time(nil))
    }

    /// True when some entries may be left out.
    public var filters: Bool { olderThan != nil || !includes.isEmpty || !excludes.isEmpty }

    /// Whether an entry with this base name, last modified `modified` seconds after the
    /// epoch, is selected.
    func selects(name: String, modified: Int) -> Bool {
        selects(Array(name.utf8CString), modified: modified)
    }

    /// The same for a name as NUL-terminated bytes (names need not be UTF-8) and the
    /// modification time as stat(2) gives it.
    func selects(_ name: [CChar], modified: timespec) -> Bool {
        selects(name, modified: Int(modified.tv_sec))
    }

    func selects(_ name: [CChar], modified: Int) -> Bool {
        if let olderThan {
            // Modified strictly before now - AGE.
            let cutoff = now - olderThan
            guard modified < cutoff else { return false }
        }
        if !includes.isEmpty && !includes.contains(where: { Self.matches($0, name) }) { return false }
        return !excludes.contains(where: { Self.matches($0, name) })
    }

    /// fnmatch without flags: `*` and `?` match any character, a leading dot included.
    static func matches(_ pattern: [CChar], _ name: [CChar]) -> Bool {
        fnmatch(pattern, name, 0) == 0
    }
}
