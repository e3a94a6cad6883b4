internal import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Wipes names from a folder before the entries are removed, as coreutils shred does:
/// each entry is renamed to a meaningless name of its own length (so the new name can
/// take the place where the folder stored the old one), then to shorter and shorter
/// ones, half as long each round, down to a single character. The folder is synced
/// after every round, so each name reaches the disk. Every entry of a batch goes
/// through the rounds together: a folder of many files costs one sync per round, not
/// one per file, and halving (coreutils takes one character off per round) keeps the
/// rounds few even for long names.
///
/// Renames never replace an existing entry (RENAME_NOREPLACE); a length whose names
/// are all taken is passed over.
struct NameWiper {
    static let alphabet: [UInt8] = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_".utf8)

    let folder: Int32
    /// `unlink` leaves the names as they are; `wipe` renames without the syncs.
    var removal = NameRemoval.wipeSync
    /// Called after each successful rename with the entry's index, old and new name.
    var trace: ((Int, FileName, FileName) -> Void)? = nil

    /// Renames the entries `names` of `folder` through the rounds. Returns each entry's
    /// final name, or the error that stopped it (its name is then as the error left it).
    func wipe(_ names: [FileName], paths: [String]) -> [Result<FileName, IOError>] {
        var results = names.map { Result<FileName, IOError>.success($0) }
        guard removal != .unlink else { return results }
        var current = names
        let schedules = names.map { Self.lengths(from: $0.count) }
        var full = Set<Int>()
        var generator = NameGenerator()
        // The batch's own current names are never tried: they are taken.
        var held = Set(names)
        var round = 0
        while true {
            var active = false
            var renamed = false
            full.removeAll()
            for i in names.indices {
                guard case .success = results[i] else { continue }
                guard round < schedules[i].count else { continue }
                let length = schedules[i][round]
                active = true
                switch renameToFresh(current[i], length: length, full: &full, held: held, generator: &generator) {
                case .success(let new?):
                    trace?(i, current[i], new)
                    held.remove(current[i])
                    held.insert(new)
                    current[i] = new
                    results[i] = .success(new)
                    renamed = true
                case .success(nil):
                    break
                case .failure(let error):
                    results[i] = .failure(IOError(error.operation, path: paths[i], code: error.code))
                }
            }
            if renamed && removal == .wipeSync { _ = fsync(folder) }
            if !active { return results }
            round += 1
        }
    }

    /// The name lengths an entry goes through: its own, then half as long each round,
    /// down to one character (14 → 14, 7, 3, 1).
    static func lengths(from length: Int) -> [Int] {
        var out = [max(length, 1)]
        while out.last! > 1 { out.append(out.last! / 2) }
        return out
    }

    /// Renames `name` to an unused name of `length` characters; nil when every name
    /// tried was taken.
    private func renameToFresh(_ name: FileName, length: Int, full: inout Set<Int>, held: Set<FileName>,
                               generator: inout NameGenerator) -> Result<FileName?, IOError> {
        guard !full.contains(length) else { return .success(nil) }
        for candidate in generator.candidates(length: length) where !held.contains(candidate) {
            if rename(name, to: candidate) == 0 { return .success(candidate) }
            if errno == EEXIST || errno == ENOTEMPTY { continue }
            return .failure(IOError("cannot rename", code: errno))
        }
        if length <= 2 { full.insert(length) }
        return .success(nil)
    }

    /// renameat2(RENAME_NOREPLACE); where the file system lacks it, a check then renameat.
    private func rename(_ old: FileName, to new: FileName) -> Int32 {
        let rc = vfs_renameat_noreplace(folder, old.bytes, folder, new.bytes)
        guard rc != 0, errno == EINVAL || errno == ENOSYS else { return rc }
        var info = stat()
        if fstatat(folder, new.bytes, &info, AT_SYMLINK_NOFOLLOW) == 0 {
            errno = EEXIST
            return -1
        }
        return renameat(folder, old.bytes, folder, new.bytes)
    }
}

/// Meaningless names from the wiper's alphabet. The choice only has to avoid
/// collisions, not be secret, so a fast generator (xorshift*) seeded once is used.
struct NameGenerator {
    private var state: UInt64

    init() {
        var seed: UInt64 = 0
        withUnsafeMutableBytes(of: &seed) { try? SecureRandom.fill($0) }
        state = seed | 1
    }

    private mutating func next(_ bound: Int) -> Int {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27
        return Int((state &* 0x2545F4914F6CDD1D) >> 33) % bound
    }

    /// Names to try: every name of one or two characters (from a random start), or a
    /// few random ones when there are more.
    mutating func candidates(length: Int) -> AnySequence<FileName> {
        let alphabet = NameWiper.alphabet
        let k = alphabet.count
        if length <= 2 {
            let total = length == 1 ? k : k * k
            let start = next(total)
            return AnySequence((0..<total).lazy.map { step in
                let value = (start + step) % total
                return FileName(raw: length == 1 ? [alphabet[value]] : [alphabet[value / k], alphabet[value % k]])
            })
        }
        return AnySequence((0..<16).map { _ in FileName(raw: (0..<length).map { _ in alphabet[next(k)] }) })
    }
}
