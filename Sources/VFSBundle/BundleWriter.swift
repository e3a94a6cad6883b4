import VFSCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What to wrap: the inputs walked (folders recursively, links kept as links).
///
/// For a version 1 manifest (the digests inside it, which comes first) every file is
/// hashed before it is archived; each file's identity, size, mtime and ctime are checked
/// again while it is archived, so a file that changes in between fails the wrap instead
/// of disagreeing with its digest. A file that changes while it is hashed is read once
/// more; if it changed again it fails the plan, or with `skipChanged` is left out
/// (`leftOut`).
///
/// With `digestsLast` (a version 2 manifest: `BundleDigests` after the last file) no file
/// is read before it is archived, but for the compression samples: each is hashed as it
/// goes into the archive, read once, and one that changed since the plan fails the write.
public final class BundlePlan {
    public private(set) var entries: [BundleManifest.Entry] = []
    /// Whether the digests come after the last file (the manifest's version 2).
    public let digestsLast: Bool
    /// Bytes of file content (for progress).
    public private(set) var contentBytes = 0
    private var sources: [Source] = []
    /// Where each link was found (stored path → path on disk), for messages.
    private var linkPaths: [String: String] = [:]
    /// `--exclude` patterns (MemberPattern.excludes), matched against stored paths.
    private let excludes: [String]
    /// Files that changed while they were read, left out (paths on disk), in order.
    public private(set) var leftOut: [String] = []
    /// Names that can't be stored (RawName: they hold U+F780…U+F7FF), left out, each
    /// escaped, with a warning; the caller exits non-zero once the bundle holds the rest.
    public private(set) var refused: [String] = []
    /// Whether zstd is worth it for this content (`CompressionEstimate`: from samples taken
    /// while the files were hashed; standard input is not sampled, and compresses).
    public var compression: CompressionEstimate {
        var estimate = samples
        estimate.contentBytes = contentBytes
        estimate.entries = entries.count
        if sources.contains(where: { if case .spool = $0 { return true } else { return false } }) { estimate.unsampled = true }
        return estimate
    }
    private var samples = CompressionEstimate(contentBytes: 0, entries: 0)

    enum Source {
        case none
        case file(path: String, signature: FileSignature)
        case spool(StandardInputSpool)
    }

    /// Walks `paths` (each stored under its last component) and, if `standardInputName`
    /// is given, spools stdin under that name. `warning` hears about skipped entries
    /// (sockets, FIFOs, devices, names that can't be stored). Names that are not UTF-8
    /// are kept byte for byte (RawName).
    ///
    /// `excluding` leaves out every entry whose stored path a pattern matches, and what is
    /// below it (MemberPattern.excludes: as GNU tar's --exclude). With `skipChanged`, a
    /// file that changed while it was hashed, and again when read a second time, is left
    /// out with a warning instead of failing the plan.
    public init(paths: [String], excluding: [String] = [], skipChanged: Bool = false,
                standardInputName: String? = nil, standardInput: ByteSource? = nil, digestsLast: Bool = false,
                warning: (String) -> Void = { _ in }) throws {
        self.excludes = excluding
        self.digestsLast = digestsLast
        var topNames = Set<String>()
        func addTop(_ name: String, shown: String) throws {
            do { try BundlePath.check(name) } catch {
                throw BundleError.badInput("can't store \"\(shown)\" under the name \"\(name)\"")
            }
            guard name.firstIndex(of: "/") == nil else {
                throw BundleError.badInput("the name \"\(name)\" must not contain '/'")
            }
            guard topNames.insert(name).inserted else {
                throw BundleError.badInput("two inputs would both be stored as \"\(name)\"")
            }
        }
        for path in paths {
            let name = try Self.storedName(of: path)
            if isExcluded(name) { continue }
            try addTop(name, shown: path)
            try walk(path: path, stored: name, warning: warning)
        }
        try checkLinksStayInside()
        if let name = standardInputName, let input = standardInput {
            try addTop(name, shown: "standard input")
            let spool = try StandardInputSpool(source: input)
            let now = Int(Date().timeIntervalSince1970)
            entries.append(.init(path: name, type: .file, size: spool.size, permissions: UInt32(0o666 & ~AtomicOutputFile.currentUmask()),
                                 mtime: now, sha256: digestsLast ? nil : spool.digest.hexString))
            sources.append(.spool(spool))
            contentBytes += spool.size
        }
        if digestsLast { sampleFiles() } else { try hashFiles(skipChanged: skipChanged, warning: warning) }
    }

    private func isExcluded(_ stored: String) -> Bool {
        excludes.contains { MemberPattern.excludes($0, stored) }
    }

    /// Leaves out the file at `path` (on disk) that changed after it was hashed, for a
    /// bundle written again without it; false if it is not one of this plan's files.
    public func leaveOut(path: String) -> Bool {
        guard let index = sources.firstIndex(where: { if case .file(path, _) = $0 { return true } else { return false } }) else {
            return false
        }
        remove(at: index)
        leftOut.append(path)
        return true
    }

    private func remove(at index: Int) {
        contentBytes -= entries[index].size
        entries.remove(at: index)
        sources.remove(at: index)
    }

    /// Every link must resolve inside what is wrapped (through the other links too), as
    /// vfs-unwrap insists; one that does not is refused here, by its path.
    private func checkLinksStayInside() throws {
        let links = Dictionary(uniqueKeysWithValues: entries.filter { $0.type == .symlink }.map { ($0.path, $0.target ?? "") })
        for entry in entries where entry.type == .symlink {
            let target = entry.target ?? ""
            if !BundlePath.linkStaysInside(path: entry.path, target: target, links: links) {
                throw BundleError.notUnwrappable(path: linkPaths[entry.path] ?? entry.path, reason: .linkOutside(target: target))
            }
        }
    }

    /// The name an input path is stored under: its last component (`docs/` → `docs`).
    static func storedName(of path: String) throws -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        var name = trimmed.split(separator: "/").last.map(String.init) ?? ""
        if name.isEmpty || name == "." || name == ".." {
            guard let real = realpath(path, nil) else { throw IOError("cannot resolve", path: path) }
            defer { free(real) }
            name = String(cString: real).split(separator: "/").last.map(String.init) ?? ""
        }
        guard !name.isEmpty else { throw BundleError.badInput("can't wrap \"\(path)\" itself; name the folders inside it") }
        return name
    }

    private func walk(path: String, stored: String, warning: (String) -> Void) throws {
        var info = stat()
        guard lstat(RawName.cString(path), &info) == 0 else { throw IOError("cannot read", path: RawName.escaped(path)) }
        var permissions = UInt32(info.st_mode & 0o7777)
        let mtime = Int(info.st_mtim.tv_sec)
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            // vfs-unwrap never creates setuid or setgid files: refuse now, not there.
            if permissions & 0o6000 != 0 { throw BundleError.notUnwrappable(path: path, reason: .setuidFile) }
            // One that can't be read is left out, named, before anything is written: the
            // rest goes (as tar does), and the caller exits non-zero.
            guard Self.canRead(path) else { return refuse(path, "it can't be read (\(String(cString: strerror(errno))))", warning: warning) }
            let signature = FileSignature(info)
            entries.append(.init(path: stored, type: .file, size: signature.size, permissions: permissions, mtime: mtime))
            sources.append(.file(path: path, signature: signature))
            contentBytes += signature.size
        case S_IFLNK:
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(RawName.cString(path), &buffer, buffer.count - 1)
            guard n >= 0 else { throw IOError("cannot read the link", path: RawName.escaped(path)) }
            guard let target = RawName.string(buffer[0..<n].map { UInt8(bitPattern: $0) }) else {
                return refuse(path, "its target can't be stored" + Self.escapeNote, warning: warning)
            }
            entries.append(.init(path: stored, type: .symlink, size: 0, permissions: permissions, mtime: mtime, target: target))
            sources.append(.none)
            linkPaths[stored] = path
        case S_IFDIR:
            // A folder's setgid bit (new files take its group) is about this machine's
            // groups; it is not kept, as vfs-unwrap never sets it.
            permissions &= ~0o6000
            let names: [[UInt8]]
            do {
                names = try Self.names(in: path)
            } catch {
                // A folder that can't be listed is left out with what is in it, named.
                return refuse(path, "its folder can't be read (\(String(cString: strerror(errno))))", warning: warning)
            }
            entries.append(.init(path: stored, type: .directory, size: 0, permissions: permissions, mtime: mtime))
            sources.append(.none)
            for name in names {
                guard let text = RawName.string(name) else {
                    refuse(path + "/" + String(decoding: name, as: UTF8.self), "its name can't be stored" + Self.escapeNote, warning: warning)
                    continue
                }
                if isExcluded(stored + "/" + text) { continue }
                try walk(path: path.hasSuffix("/") ? path + text : path + "/" + text, stored: stored + "/" + text, warning: warning)
            }
        default:
            warning("skipping \"\(RawName.escaped(path))\": not a file, folder or symbolic link")
        }
    }

    /// Why a name holding RawName's escape characters can't be stored.
    static let escapeNote = " (it holds characters U+F780 to U+F7FF, which stand for raw bytes)"

    /// Whether the file at `path` opens for reading (O_NONBLOCK: never waits).
    static func canRead(_ path: String) -> Bool {
        let fd = open(RawName.cString(path), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    /// Leaves out an entry that can't be stored or read, naming it (escaped) in a warning.
    private func refuse(_ path: String, _ why: String, warning: (String) -> Void) {
        // The characters themselves (\u{…}), not the bytes they would stand for.
        let shown = DisplayText.printable(String(String.UnicodeScalarView(path.unicodeScalars.flatMap { scalar in
            RawName.isEscape(scalar) ? Array("\\u{\(String(scalar.value, radix: 16))}".unicodeScalars) : [scalar]
        })))
        warning("leaving out \"\(shown)\": \(why)")
        refused.append(shown)
    }

    /// A folder's names, sorted bytewise, without `.` and `..`.
    static func names(in folder: String) throws -> [[UInt8]] {
        guard let dir = opendir(RawName.cString(folder)) else { throw IOError("cannot list", path: RawName.escaped(folder)) }
        defer { closedir(dir) }
        var out = [[UInt8]]()
        errno = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix(while: { $0 != 0 }))
            }
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            out.append(name)
        }
        guard errno == 0 else { throw IOError("cannot list", path: RawName.escaped(folder)) }
        return out.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// Hashes every file on all cores, sampling the content for `compression` as it goes.
    /// A file that changed while it was read is read once more (its new size, mode and
    /// times taken); if it changed again, it fails the plan or, with `skipChanged`, is
    /// left out with a warning.
    private func hashFiles(skipChanged: Bool, warning: (String) -> Void) throws {
        let jobs = sources.indices.filter { if case .file = sources[$0] { return true } else { return false } }
        // Where each file starts in the content stream the samples are spread over.
        var starts: [Int] = [], fileBytes = 0
        for index in jobs {
            starts.append(fileBytes)
            fileBytes += entries[index].size
        }
        let windows = CompressionEstimate.windows(contentBytes: fileBytes)
        let work = HandOff(value: (sources, starts))
        typealias Hashed = (digest: String, reread: FileSignature?, permissions: UInt32, sample: ContentSampler)
        let digests = WorkQueue<Result<Hashed, Error>>.forEach(count: jobs.count,
                                                                workers: ProcessorCount.available(limit: jobs.count)) { queue in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { buffer.deallocate() }
            while let job = queue.take() {
                guard case .file(let path, let signature) = work.value.0[jobs[job]] else { preconditionFailure("jobs are files") }
                queue.record(job, Result {
                    func hash(_ expecting: FileSignature) throws -> (String, ContentSampler) {
                        let hasher = SHA256()
                        var sampler = ContentSampler(windows: windows, fileAt: work.value.1[job], size: expecting.size)
                        try FileSignature.read(path: path, expecting: expecting, buffer: buffer) {
                            hasher.update($0)
                            sampler.feed($0)
                        }
                        sampler.finish()
                        return (hasher.finalize().hexString, sampler)
                    }
                    do {
                        let (digest, sample) = try hash(signature)
                        return (digest, nil, 0, sample)
                    } catch BundleError.changedWhileWrapping {
                        // Read once more, as it is now; a second change is final.
                        var info = stat()
                        guard lstat(RawName.cString(path), &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw BundleError.changedWhileWrapping(path: path) }
                        let (digest, sample) = try hash(FileSignature(info))
                        return (digest, FileSignature(info), UInt32(info.st_mode & 0o7777), sample)
                    }
                })
            }
        }
        var gone: [Int] = []
        for (job, index) in jobs.enumerated() {
            do {
                let (digest, reread, permissions, sample) = try digests[job].get()
                entries[index].sha256 = digest
                samples.add(samplesOf: sample.samples)
                if let signature = reread, case .file(let path, _) = sources[index] {
                    if permissions & 0o6000 != 0 { throw BundleError.notUnwrappable(path: path, reason: .setuidFile) }
                    contentBytes += signature.size - entries[index].size
                    entries[index].size = signature.size
                    entries[index].mode = "0" + String(permissions, radix: 8)
                    entries[index].mtime = signature.mtime
                    sources[index] = .file(path: path, signature: signature)
                }
            } catch BundleError.changedWhileWrapping(let path) where skipChanged {
                warning("\"\(path)\": file changed as we read it; left out")
                leftOut.append(path)
                gone.append(index)
            }
        }
        for index in gone.reversed() { remove(at: index) }
    }

    /// Samples the content for `compression` when the files are not hashed before they are
    /// archived (`digestsLast`): the same windows `hashFiles` samples, read on their own
    /// (at most 4 MiB). A file that can't be read leaves the estimate unsampled (compress).
    private func sampleFiles() {
        var files: [(path: String, start: Int, size: Int)] = [], total = 0
        for source in sources {
            guard case .file(let path, let signature) = source else { continue }
            files.append((path, total, signature.size))
            total += signature.size
        }
        let windows = CompressionEstimate.windows(contentBytes: total)
        guard !windows.isEmpty else { return }
        var sample = [UInt8](repeating: 0, count: CompressionEstimate.sampleSize)
        for file in files {
            let parts = ContentSampler.windows(windows, fileAt: file.start, size: file.size)
            if parts.isEmpty { continue }
            let fd = open(RawName.cString(file.path), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else {
                samples.unsampled = true
                continue
            }
            defer { close(fd) }
            for part in parts {
                let n = sample.withUnsafeMutableBytes { pread(fd, $0.baseAddress, part.count, off_t(part.lowerBound)) }
                guard n > 0 else { continue }
                sample.withUnsafeBytes { samples.add(sample: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            }
        }
    }

    /// Writes the plaintext bundle: the manifest, its signature by `signer` (if any), then
    /// every entry in its order. With `digestsLast`, each file is hashed as it is archived
    /// and the digests entry follows the last, then the signature (of the manifest and the
    /// digests). `compressOnAllCores`: as `ArchiveWriter`'s `onAllCores`.
    func write(manifest: BundleManifest, compress: Bool, compressOnAllCores: Bool = true, to sink: ByteSink,
               progress: (@Sendable (Int) -> Void)?, added: ((BundleManifest.Entry) -> Void)? = nil,
               signer: BundleSignature.Signer? = nil) throws {
        precondition(manifest.entries == entries, "the manifest must be this plan's (use manifest(group:accessID:sender:))")
        let writer = try ArchiveWriter(sink: sink, compress: compress, onAllCores: compressOnAllCores)
        let manifestBytes = try manifest.encoded()
        try writer.writeHeader(path: BundleManifest.entryName, kind: .file, size: manifestBytes.count, permissions: 0o644,
                               mtime: Int(manifest.created.timeIntervalSince1970), mtimeNanoseconds: 0)
        try manifestBytes.withUnsafeBytes { try writer.writeData($0) }
        /// An entry of the bundle's own: the signature, the digests.
        func writeOwn(_ name: String, _ bytes: [UInt8]) throws {
            try writer.writeHeader(path: name, kind: .file, size: bytes.count, permissions: 0o644,
                                   mtime: Int(manifest.created.timeIntervalSince1970), mtimeNanoseconds: 0)
            try bytes.withUnsafeBytes { try writer.writeData($0) }
        }
        /// The signature by `signer`, if any: of the manifest, and of the digests when they come last.
        func writeSignature(digests: [UInt8]?) throws {
            guard let signer else { return }
            try writeOwn(BundleSignature.entryName, try BundleSignature.sign(manifest: manifestBytes, digests: digests, user: signer.user,
                                                                             device: signer.device, key: signer.key,
                                                                             recipients: signer.recipients, time: signer.time).encoded())
        }
        if !manifest.digestsLast { try writeSignature(digests: nil) }
        var digests: [String] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var done = 0
        for (entry, source) in zip(manifest.entries, sources) {
            let kind: ArchiveEntryHeader.Kind = entry.type == .file ? .file : entry.type == .directory ? .directory : .symlink
            var nanoseconds = 0
            if case .file(_, let signature) = source { nanoseconds = signature.mtimeNanoseconds }
            added?(entry)
            try writer.writeHeader(path: entry.path, kind: kind, size: entry.size, permissions: entry.permissions ?? 0o600,
                                   mtime: entry.mtime, mtimeNanoseconds: nanoseconds, linkTarget: entry.target)
            // Standard input's replay is checked against the digest taken as it was spooled.
            let hasher: SHA256? = if manifest.digestsLast, case .file = source { SHA256() } else { nil }
            let write: (UnsafeRawBufferPointer) throws -> Void = { bytes in
                hasher?.update(bytes)
                try writer.writeData(bytes)
                done += bytes.count
                progress?(done)
            }
            switch source {
            case .none: break
            case .file(let path, let signature):
                try FileSignature.read(path: path, expecting: signature, buffer: buffer, write)
            case .spool(let spool):
                try spool.replay(write)
            }
            if let hasher {
                digests.append(hasher.finalize().hexString)
            } else if manifest.digestsLast, case .spool(let spool) = source {
                digests.append(spool.digest.hexString)
            }
        }
        if manifest.digestsLast {
            let digestBytes = try BundleDigests(sha256: digests).encoded()
            try writeOwn(BundleDigests.entryName, digestBytes)
            try writeSignature(digests: digestBytes)
        }
        try writer.close()
    }

    /// The manifest this plan writes.
    public func manifest(group: String?, accessID: String?, sender: String?, created: Date = Date()) -> BundleManifest {
        BundleManifest(group: group, accessID: accessID, sender: sender, created: created, entries: entries,
                       version: digestsLast ? BundleManifest.digestsLastVersion : BundleManifest.currentVersion)
    }
}

/// The bundle writer: plaintext or sealed with age.
public enum BundleWriter {
    /// Writes the plaintext bundle (a pax archive, zstd unless `compress` is false).
    public static func write(_ plan: BundlePlan, manifest: BundleManifest, compress: Bool = true, to sink: ByteSink,
                             progress: (@Sendable (Int) -> Void)? = nil) throws {
        try plan.write(manifest: manifest, compress: compress, to: sink, progress: progress)
    }

    /// Writes the plaintext bundle signed by `signer` (the `.vfs-signature.json` entry
    /// after the manifest).
    package static func write(_ plan: BundlePlan, manifest: BundleManifest, compress: Bool = true, signer: BundleSignature.Signer,
                              to sink: ByteSink) throws {
        try plan.write(manifest: manifest, compress: compress, to: sink, progress: nil, signer: signer)
    }

    /// Writes the bundle as an age file for `recipients` (PEM-armored with `armor`):
    /// libarchive writes on this thread straight into the batches the age encryptor's
    /// workers seal. `added` hears each entry as it goes into the archive (on this thread).
    public static func seal(_ plan: BundlePlan, manifest: BundleManifest, compress: Bool = true, recipients: [Recipient],
                            armor: Bool = false, to sink: ByteSink, progress: (@Sendable (Int) -> Void)? = nil,
                            added: ((BundleManifest.Entry) -> Void)? = nil) throws {
        try seal(plan, manifest: manifest, compress: compress, recipients: recipients, armor: armor, to: sink, progress: progress,
                 added: added, signer: nil)
    }

    /// `seal`, the bundle signed by `signer` when one is given (vfs-push). Without
    /// `compressOnAllCores`, zstd runs in the archive's thread (beside the encryptor's),
    /// in memory that does not grow with the cores (`ArchiveWriter`).
    package static func seal(_ plan: BundlePlan, manifest: BundleManifest, compress: Bool = true, compressOnAllCores: Bool = true,
                             recipients: [Recipient], armor: Bool = false, to sink: ByteSink, progress: (@Sendable (Int) -> Void)? = nil,
                             added: ((BundleManifest.Entry) -> Void)? = nil, signer: BundleSignature.Signer?) throws {
        try AgeEncryptor.encrypt(to: recipients, to: sink, armor: armor) { plaintext in
            try plan.write(manifest: manifest, compress: compress, compressOnAllCores: compressOnAllCores, to: plaintext,
                           progress: progress, added: added, signer: signer)
        }
    }
}

/// What identifies a file's content without reading it: if any of these changed, the
/// content may have.
struct FileSignature: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int
    var mtime: Int
    var mtimeNanoseconds: Int
    var ctime: Int
    var ctimeNanoseconds: Int

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int(info.st_size)
        mtime = Int(info.st_mtim.tv_sec)
        mtimeNanoseconds = Int(info.st_mtim.tv_nsec)
        ctime = Int(info.st_ctim.tv_sec)
        ctimeNanoseconds = Int(info.st_ctim.tv_nsec)
    }

    /// Reads the whole file at `path`, passing its bytes to `body`, and throws
    /// `changedWhileWrapping` unless it is the file `expecting` describes, unchanged
    /// from before the first read to after the last.
    static func read(path: String, expecting: FileSignature, buffer: UnsafeMutableRawBufferPointer,
                     _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let fd = open(RawName.cString(path), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ELOOP || errno == ENOENT { throw BundleError.changedWhileWrapping(path: path) }
            throw IOError("cannot open", path: path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw IOError("cannot read", path: path) }
        guard FileSignature(info) == expecting else { throw BundleError.changedWhileWrapping(path: path) }
        var total = 0
        while true {
            let n = retryingEINTR { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            if n < 0 { throw IOError("cannot read", path: path) }
            if n == 0 { break }
            total += n
            guard total <= expecting.size else { throw BundleError.changedWhileWrapping(path: path) }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        guard fstat(fd, &info) == 0 else { throw IOError("cannot read", path: path) }
        guard total == expecting.size, FileSignature(info) == expecting else { throw BundleError.changedWhileWrapping(path: path) }
    }
}

/// Standard input, spooled so it can be hashed before it is archived. The spool is an
/// unlinked temporary file (nothing to clean up, even after a crash) holding the input
/// age-encrypted to a one-time identity that lives only in this process's memory, so
/// the plaintext never reaches the disk.
final class StandardInputSpool {
    let size: Int
    let digest: [UInt8]
    private let fd: Int32
    private let identity: X25519Identity

    init(source: ByteSource) throws {
        let folder = VFSPaths.current.temporaryFolder
        var template = Array("\(folder)/.vfs-wrap-spool-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw IOError("cannot create a temporary file in", path: folder) }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.fd = fd
        identity = try X25519Identity.generate()
        let hashing = HashingSource(source)
        try AgeEncryptor.encrypt(to: [identity.recipient], from: hashing, to: FileDescriptorSink(fd: fd, name: "the spool file"))
        size = hashing.count
        digest = hashing.hasher.finalize()
    }

    deinit { close(fd) }

    /// Passes the spooled input to `body` again (decrypted on another thread).
    func replay(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard lseek(fd, 0, SEEK_SET) == 0 else { throw IOError("cannot rewind the spool file") }
        let decryptor = try AgeDecryptor(source: FileDescriptorSource(fd: fd, name: "the spool file"), armored: false)
        let key = try decryptor.fileKey(identities: [identity])
        let job = HandOff(value: decryptor)
        try BytePipe.run(producerOnThread: { sink in
            try job.value.decrypt(fileKey: key, to: sink)
        }, consumer: { source in
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            defer { chunk.wipe() }
            let hasher = SHA256()
            var total = 0
            while true {
                let n = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
                if n == 0 { break }
                total += n
                try chunk.withUnsafeBytes { raw in
                    let part = UnsafeRawBufferPointer(rebasing: raw[0..<n])
                    hasher.update(part)
                    try body(part)
                }
            }
            guard total == size, hasher.finalize() == digest else {
                throw BundleError.changedWhileWrapping(path: "standard input")
            }
        })
    }
}

/// Passes a source through, hashing and counting it.
final class HashingSource: ByteSource {
    let base: ByteSource
    let hasher = SHA256()
    private(set) var count = 0
    init(_ base: ByteSource) { self.base = base }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = try base.read(into: buffer)
        hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        count += n
        return n
    }
}
