import VFSCore
internal import CLinux
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Reads a bundle's plaintext: the manifest first (validated, so a caller can check the
/// policy before anything is released), then every entry, each checked against the
/// manifest (same path, order, type, size, mode and link target; no hard links,
/// devices or setuid bits) and its content against its SHA-256: the manifest's
/// (version 1), or, for a bundle whose digests come last (version 2), the digests
/// entry's after the last file, where every file read is compared at once.
public final class BundleReader {
    public let manifest: BundleManifest
    /// The manifest entry's exact bytes (what a bundle signature signs).
    package let manifestBytes: [UInt8]
    /// The `.vfs-signature.json` entry's bytes when the bundle has one (docs/device-chain.md):
    /// right after the manifest (version 1), or after the digests entry, last (version 2:
    /// known once the last file was read, `whenSignatureRead`). It is not one of the
    /// bundle's files and is never extracted. Decode and verify it with `BundleSignature`.
    package private(set) var signatureEntry: [UInt8]?
    /// The digests entry's exact bytes (version 2, once the last file was read, its digests
    /// matched and the signature after it, if any, read; what the signature signs beside
    /// the manifest).
    package private(set) var digestsEntry: [UInt8]?
    /// Version 2: each file's SHA-256 as read, by its index in the manifest.
    private var digests: [Int: String] = [:]
    /// Waits for the signature of a version 2 bundle (`whenSignatureRead`).
    private var signatureCheck: ((BundleReader) throws -> Void)?
    /// The header read after the manifest when it was not a signature: the first entry.
    private var pendingHeader: ArchiveEntryHeader??
    private let archive: ArchiveReader
    private let source: ByteSource
    private var nextIndex = 0
    /// Set while extracting to a staging folder.
    private var interrupt: ExtractionInterrupt?
    /// How much of the sealed bundle was read so far (set by `openSealed`).
    private var bundleBytesRead: (() -> Int)?
    /// While extracting a bundle of unknown size: the expansion cap, checked as content
    /// comes out; and the content written so far.
    private var streamingLimit: Int?
    private var extracted = 0
    /// What `extract(noBackup: true)` marked.
    public private(set) var backupMarks = BackupMarks()
    /// The entries the last `extract` placed (or merged into), in the bundle's order,
    /// as extracted (after --strip-components); those skipped as existing are not in it.
    public private(set) var extractedEntries: [BundleManifest.Entry] = []

    /// What an extraction does with a file or link that exists where an entry goes.
    public enum ExistingFiles: Sendable, Equatable {
        /// Fail before anything is written (the default; tar's --keep-old-files).
        case refuse
        /// Replace it (--force).
        case replace
        /// Keep it and leave the entry out, silently (tar's --skip-old-files).
        case skip
    }

    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)

    /// Reads and validates the manifest.
    public init(source: ByteSource) throws {
        // zstd's frame magic first: a failure below is then damaged compressed data in
        // a bundle, not a plaintext that was never a bundle.
        let buffered = BufferedSource(source)
        let compressed = (try? buffered.peek(4)).map { Array($0) == [0x28, 0xB5, 0x2F, 0xFD] } ?? false
        self.source = buffered
        do {
            archive = try ArchiveReader(source: buffered)
            guard let first = try archive.nextHeader() else { throw BundleError.notABundle("the archive is empty") }
            guard first.path == BundleManifest.entryName, first.kind == .file else {
                throw BundleError.notABundle("the first entry is \"\(first.path)\", not \(BundleManifest.entryName)")
            }
            guard first.size <= BundleManifest.maximumSize else { throw BundleError.manifest("it is larger than 64 MiB") }
            let bytes = try Self.readWhole(archive, size: first.size, buffer: buffer) {
                BundleError.manifest("it is longer than its header says")
            }
            manifest = try BundleManifest.decode(bytes)
            manifestBytes = bytes
            // Version 2: the signature, if any, is last.
            let second = manifest.digestsLast ? nil : try archive.nextHeader()
            // A first file of that name, as the manifest has it, is the file (an unsigned
            // bundle of a file called .vfs-signature.json), not a signature.
            let firstFile = manifest.entries.first.map { entry in
                entry.path == second?.path && entry.type == .file && entry.size == second?.size && entry.permissions == second?.permissions
            } ?? false
            if let second, second.path == BundleSignature.entryName, second.kind == .file, !firstFile {
                guard second.size <= BundleSignature.maximumSize else {
                    throw BundleSignatureError.malformed("a signature entry of \(second.size) bytes")
                }
                signatureEntry = try Self.readWhole(archive, size: second.size, buffer: buffer) {
                    BundleSignatureError.malformed("a signature entry longer than its header says")
                }
                pendingHeader = nil
            } else {
                signatureEntry = nil
                // Version 2 read no second header.
                pendingHeader = manifest.digestsLast ? nil : .some(second)
            }
        } catch BundleError.archive(let message, _) {
            throw compressed ? BundleError.damagedCompression(message) : BundleError.notABundle(message)
        }
    }

    /// The current entry's content, at most `size` bytes (`tooLong` otherwise).
    private static func readWhole(_ archive: ArchiveReader, size: Int, buffer: UnsafeMutableRawBufferPointer,
                                  tooLong: () -> Error) throws -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(size)
        while true {
            let n = try archive.readData(into: buffer)
            if n == 0 { return bytes }
            bytes.append(contentsOf: buffer[0..<n])
            guard bytes.count <= size else { throw tooLong() }
        }
    }

    deinit {
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        buffer.deallocate()
    }

    // MARK: entries

    /// The next entry, checked against the manifest; nil after the last (for version 2,
    /// once the digests, and the signature if any, were read and the digests matched).
    private func nextEntry() throws -> BundleManifest.Entry? {
        if manifest.digestsLast && nextIndex == manifest.entries.count {
            try readTrailer()
            return nil
        }
        let read: ArchiveEntryHeader?
        if let pending = pendingHeader {
            read = pending
            pendingHeader = nil
        } else {
            read = try archive.nextHeader()
        }
        guard let header = read else {
            if nextIndex < manifest.entries.count {
                throw BundleError.manifest("\"\(manifest.entries[nextIndex].path)\" is missing from the archive")
            }
            return nil
        }
        var path = header.path
        if header.kind == .directory && path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        func refuse(_ why: String) -> BundleError { .unsafeEntry(path: path, reason: why) }
        try BundlePath.check(path)
        switch header.kind {
        case .hardlink: throw refuse("it is a hard link (to \"\(header.linkTarget ?? "")\")")
        case .other(let type):
            let what = [S_IFCHR: "a character device", S_IFBLK: "a block device", S_IFIFO: "a FIFO", S_IFSOCK: "a socket"][type] ?? "not a file, folder or link"
            throw refuse("it is \(what)")
        default: break
        }
        if header.permissions & 0o6000 != 0 { throw refuse("it has the setuid or setgid bit") }
        if header.sparse { throw refuse("it is a sparse file (its holes could claim far more than the bundle holds)") }
        guard nextIndex < manifest.entries.count, manifest.entries[nextIndex].path == path else {
            if manifest.entries.contains(where: { $0.path == path }) { throw refuse("it is out of the manifest's order") }
            throw refuse("it is not in the manifest")
        }
        let entry = manifest.entries[nextIndex]
        nextIndex += 1
        let kind: ArchiveEntryHeader.Kind = entry.type == .file ? .file : entry.type == .directory ? .directory : .symlink
        guard header.kind == kind else { throw refuse("the manifest says it is a \(entry.type.rawValue)") }
        guard header.permissions == mode_t(entry.permissions ?? 0) else { throw refuse("its mode differs from the manifest's \(entry.mode)") }
        if entry.type == .file && header.size != entry.size { throw refuse("its size differs from the manifest's \(entry.size)") }
        if entry.type == .symlink && header.linkTarget != entry.target { throw refuse("its link target differs from the manifest's") }
        return entry
    }

    /// Version 2: the entries after the last file, the digests, then the signature if any,
    /// and nothing else; each file's digest must match the one it was read with. Then the
    /// check `whenSignatureRead` left runs.
    private func readTrailer() throws {
        if digestsEntry != nil { return }
        func notListed(_ header: ArchiveEntryHeader) -> BundleError { .unsafeEntry(path: header.path, reason: "it is not in the manifest") }
        guard let header = try archive.nextHeader() else {
            throw BundleError.manifest("the bundle ends without \(BundleDigests.entryName) after its last file")
        }
        guard header.path == BundleDigests.entryName, header.kind == .file else { throw notListed(header) }
        guard header.size <= BundleDigests.maximumSize else { throw BundleError.manifest("\(BundleDigests.entryName) is larger than 64 MiB") }
        let bytes = try Self.readWhole(archive, size: header.size, buffer: buffer) {
            BundleError.manifest("\(BundleDigests.entryName) is longer than its header says")
        }
        let files = manifest.entries.indices.filter { manifest.entries[$0].type == .file }
        let listed = try BundleDigests.decode(bytes, files: files.count)
        for (n, index) in files.enumerated() where digests[index] != listed.sha256[n] {
            throw BundleError.digestMismatch(path: manifest.entries[index].path)
        }
        if let next = try archive.nextHeader() {
            guard next.path == BundleSignature.entryName, next.kind == .file else { throw notListed(next) }
            guard next.size <= BundleSignature.maximumSize else {
                throw BundleSignatureError.malformed("a signature entry of \(next.size) bytes")
            }
            signatureEntry = try Self.readWhole(archive, size: next.size, buffer: buffer) {
                BundleSignatureError.malformed("a signature entry longer than its header says")
            }
            if let after = try archive.nextHeader() { throw notListed(after) }
        }
        digestsEntry = bytes
        if let check = signatureCheck {
            signatureCheck = nil
            try check(self)
        }
    }

    /// Runs `check` (a signature check: `signatureEntry`, `manifestBytes`, `digestsEntry`)
    /// once what the signature signs is read: at once for a version 1 bundle (its signature
    /// follows the manifest); for version 2, when the last file was read and every digest
    /// matched, which is before `extract` places anything, but after `writeFiles` and
    /// `writeSingleFile` wrote their output: read such a bundle through once (into nothing)
    /// before the output matters.
    package func whenSignatureRead(_ check: @escaping (BundleReader) throws -> Void) throws {
        if manifest.digestsLast && digestsEntry == nil {
            signatureCheck = check
        } else {
            try check(self)
        }
    }

    /// Passes the current entry's content to `body`, then checks it against the manifest
    /// (version 2: records its digest, checked after the last file).
    private func readContent(of entry: BundleManifest.Entry, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let hasher = SHA256()
        var total = 0
        // The blocks where libarchive decompressed them: no copy into a buffer of ours.
        while let (part, offset) = try archive.readDataBlock() {
            // A block past a hole (sparse entries are refused, so none should come) or
            // past the size: not the content the manifest hashed.
            guard offset == total else { throw BundleError.digestMismatch(path: entry.path) }
            let n = part.count
            if n == 0 { continue }
            total += n
            guard total <= entry.size else { throw BundleError.digestMismatch(path: entry.path) }
            try interrupt?.check()
            if let limit = streamingLimit, let read = bundleBytesRead?() {
                extracted += n
                // Some slack: the content of the first chunks is already out when little
                // of the bundle was counted.
                if extracted > Self.saturatingMultiply(limit, read) + ExtractionLimits.streamingSlack {
                    throw BundleError.expansionTooLarge(content: extracted, bundle: read, limit: limit, streaming: true)
                }
            }
            hasher.update(part)
            try body(part)
        }
        guard total == entry.size else { throw BundleError.digestMismatch(path: entry.path) }
        let digest = hasher.finalize().hexString
        if manifest.digestsLast {
            digests[nextIndex - 1] = digest
        } else if digest != entry.sha256 {
            throw BundleError.digestMismatch(path: entry.path)
        }
    }

    /// Reads what is left of the input, so the age layer authenticates its last chunk.
    private func drain() throws {
        while try source.read(into: buffer) > 0 {}
    }

    // MARK: outputs

    /// Streams the content of the regular files `selection` picks, concatenated in the
    /// bundle's order (as tar -xO does); `each` hears each file's name (as extracted)
    /// before its content. Every entry's digest is checked, also those left out.
    public func writeFiles(to sink: ByteSink, selection: BundleSelection = BundleSelection(),
                           each: (String) -> Void = { _ in }) throws {
        let outputs = try selection.outputs(of: manifest, validate: false)
        while let entry = try nextEntry() {
            guard entry.type == .file else { continue }
            if let out = outputs[nextIndex - 1] {
                each(out.path)
                try readContent(of: entry) { try sink.write($0) }
            } else {
                try readContent(of: entry) { _ in }
            }
        }
        try drain()
    }

    /// Streams the content of a bundle that holds exactly one file.
    public func writeSingleFile(to sink: ByteSink) throws {
        try checkSingleFile()
        guard let entry = try nextEntry() else { return }
        try readContent(of: entry) { try sink.write($0) }
        guard try nextEntry() == nil else { throw BundleError.manifest("entries follow the last one") }
        try drain()
    }

    /// Throws unless the bundle holds exactly one file (what `writeSingleFile` writes).
    package func checkSingleFile() throws {
        guard manifest.entries.count == 1, manifest.entries[0].type == .file else {
            throw BundleError.badInput("only a bundle of exactly one file can be written as one stream; this one has \(manifest.entries.count) entries")
        }
    }

    /// Reads every entry and checks it, writing nothing: the first of two readings of a
    /// version 2 bundle whose output may go nowhere before its signature passed.
    package func readThrough() throws {
        while let entry = try nextEntry() {
            if entry.type == .file { try readContent(of: entry) { _ in } }
        }
        try drain()
    }

    /// Extracts every entry into `folder`: first into a private staging folder inside
    /// it, then, once every digest matched and the input authenticated to its end,
    /// moved into place. Existing paths are replaced only with `force` (a folder is
    /// never replaced by a file; folders that exist are merged into). On failure the
    /// staging folder is removed and `folder` is as it was.
    ///
    /// Everything is done relative to descriptors: `folder` is opened once, the staging
    /// folder is created and filled with `mkdirat`/`openat`/`symlinkat`, folders are
    /// opened with `O_DIRECTORY|O_NOFOLLOW`, a folder merged into must still be the one
    /// the plan saw (device and inode) when entries move into it with `renameat2`, and
    /// rollback and cleanup use the same descriptors. Someone who can rename entries in
    /// `folder` can make the extraction fail, but not put a file outside it.
    ///
    /// Before anything is written, the manifest's total is checked against the free space
    /// of `folder`'s file system and, with `limits`, against the bundle's size.
    ///
    /// Modes are those of the manifest for root and, for anyone else, those less the
    /// umask, as tar does.
    /// With `noBackup`, every file and folder written gets the nodump flag where the file
    /// system keeps it, and every folder the bundle creates in `folder` (not one merged
    /// into) a CACHEDIR.TAG, unless the bundle has one there (`backupMarks` says what
    /// was done). Links are not marked: the flag can't be set on a link.
    /// - Returns: the count of entries extracted.
    ///
    /// `selection` picks the entries and names (members, --strip-components); a member
    /// that matches nothing fails the run before anything is written. `existing` says
    /// what happens to a file or link already where an entry goes (`force` is
    /// `.replace`).
    @discardableResult
    public func extract(into folder: String, force: Bool, limits: ExtractionLimits = ExtractionLimits(maxExpansion: nil),
                        noBackup: Bool = false, selection: BundleSelection = BundleSelection(),
                        existing: ExistingFiles = .refuse) throws -> Int {
        let outputs = try selection.outputs(of: manifest)
        let chosen = outputs.compactMap { $0 }
        let target: FolderHandle
        do { target = try FolderHandle.open(folder) } catch {
            throw BundleError.cannotExtract(IOError("cannot extract into", path: folder, code: error.code).description)
        }
        StagingFolder.removeStale(in: target)
        let placement = try plan(chosen, in: target, shown: folder, existing: force ? .replace : existing)
        try check(limits, entries: chosen, target: target, shown: folder)
        extractedEntries = []
        streamingLimit = limits.bundleSize == nil ? limits.maxExpansion : nil
        extracted = 0
        backupMarks = BackupMarks()
        defer { streamingLimit = nil }
        func markNoDump(_ fd: Int32) {
            if BackupExclusion.markNoDump(fd: fd) { backupMarks.noDump += 1 } else { backupMarks.noDumpRefused += 1 }
        }
        // The handlers go in before the staging folder exists: a signal from then on is
        // recorded, not fatal, so there is no moment where dying would leave the folder.
        let interrupt = ExtractionInterrupt()
        self.interrupt = interrupt
        let staging: StagingFolder
        do { staging = try StagingFolder(in: target, shown: folder) } catch {
            self.interrupt = nil
            interrupt.finish()
            throw error
        }
        var succeeded = false
        defer {
            if !succeeded { staging.remove() }
            self.interrupt = nil
            interrupt.finish()
        }

        // Modes as tar sets them: as they are in the bundle for root, less the umask for
        // anyone else (a world-writable folder in a bundle is not one under umask 077).
        let mask: mode_t = geteuid() == 0 ? 0 : AtomicOutputFile.currentUmask()
        let stagingPath = folder + "/" + staging.name
        var staged = FolderChain(root: staging.handle, rootPath: stagingPath)
        while let original = try nextEntry() {
            try interrupt.check()
            guard let entry = outputs[nextIndex - 1], placement[entry.path] != .skip else {
                // Left out: its content is still read and checked against its digest.
                if original.type == .file { try readContent(of: original) { _ in } }
                continue
            }
            let path = stagingPath + "/" + entry.path
            let parent = try staged.handle(for: BundlePath.parent(of: entry.path))
            let name = RawName.cString(BundlePath.name(of: entry.path))
            switch entry.type {
            case .directory:
                guard mkdirat(parent.fd, name, 0o700) == 0 else { throw IOError("cannot create folder", path: path) }
                if noBackup {
                    let fd = openat(parent.fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    guard fd >= 0 else { throw IOError("cannot open folder", path: path) }
                    markNoDump(fd)
                    close(fd)
                }
            case .file:
                let fd = openat(parent.fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
                guard fd >= 0 else { throw IOError("cannot create", path: path) }
                defer { close(fd) }
                if noBackup { markNoDump(fd) }
                let out = FileDescriptorSink(fd: fd, name: path)
                // A large file goes to disk as it is written, not into fresh cache pages.
                let behind = WriteBehind(fd: fd)
                var written: Int64 = 0
                try readContent(of: original) {
                    try out.write($0)
                    written += Int64($0.count)
                    behind.advance(to: written)
                }
                guard fchmod(fd, mode_t(entry.permissions ?? 0o600) & ~mask) == 0 else { throw IOError("cannot set the mode of", path: path) }
                var times = Self.times(entry.mtime)
                futimens(fd, &times)
            case .symlink:
                guard symlinkat(RawName.cString(entry.target ?? ""), parent.fd, name) == 0 else { throw IOError("cannot create link", path: path) }
                var times = Self.times(entry.mtime)
                utimensat(parent.fd, name, &times, AT_SYMLINK_NOFOLLOW)
            }
        }
        try drain()
        if noBackup {
            // The top of each tree the bundle creates; a folder merged into is the user's.
            for entry in chosen where entry.type == .directory && (placement[entry.path] == .new || placement[entry.path] == .replace) {
                if BackupExclusion.tag(folderFD: try staged.handle(for: entry.path).fd) { backupMarks.tagged += 1 }
            }
        }

        // Folders get their mode and time last (children first), except those merged
        // into existing folders, which stay behind in staging, and those that move
        // themselves: moving a folder to another parent rewrites its "..", which takes
        // write permission on it, so a read-only one gets its mode once in place.
        for entry in chosen.reversed() where entry.type == .directory && placement[entry.path] == .carried {
            let path = stagingPath + "/" + entry.path
            let handle = try staged.handle(for: entry.path)
            guard fchmod(handle.fd, mode_t(entry.permissions ?? 0o700) & ~mask) == 0 else { throw IOError("cannot set the mode of", path: path) }
            var times = Self.times(entry.mtime)
            futimens(handle.fd, &times)
        }
        staged = FolderChain(root: staging.handle, rootPath: stagingPath)
        try moveIntoPlace(chosen, from: &staged, to: target, shown: folder, placement: placement, mask: mask)
        succeeded = true
        staging.remove()
        extractedEntries = chosen.filter { placement[$0.path] != .skip }
        return extractedEntries.count
    }

    /// The space and expansion checks made before anything is written.
    /// The expansion cap counts every file of the bundle (those left out by a selection are
    /// decompressed too, to check their digests); the space, only what `entries` write.
    private func check(_ limits: ExtractionLimits, entries: [BundleManifest.Entry], target: FolderHandle, shown folder: String) throws {
        var content = 0
        for entry in manifest.entries where entry.type == .file { content = Self.saturatingAdd(content, entry.size) }
        if let limit = limits.maxExpansion, let size = limits.bundleSize, content > Self.saturatingMultiply(limit, max(size, 1)) {
            throw BundleError.expansionTooLarge(content: content, bundle: size, limit: limit, streaming: false)
        }
        var info = statvfs()
        guard fstatvfs(target.fd, &info) == 0 else { throw IOError("cannot check the free space of", path: folder) }
        // A file system with no size at all (ramfs: it grows until memory runs out)
        // reports no blocks: nothing to check against.
        if info.f_blocks == 0 { return }
        let block = max(Int(info.f_frsize), 1)
        let available = Self.saturatingMultiply(Int(clamping: info.f_bavail), block)
        // Whole blocks: each file rounded up, a block for each folder and link.
        var needed = 0
        for entry in entries {
            let blocks = entry.type == .file ? entry.size / block + (entry.size % block == 0 ? 0 : 1) : 1
            needed = Self.saturatingAdd(needed, Self.saturatingMultiply(blocks, block))
        }
        if needed > available { throw BundleError.notEnoughSpace(folder: folder, needed: needed, available: available) }
    }

    static func saturatingAdd(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    static func saturatingMultiply(_ a: Int, _ b: Int) -> Int {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? .max : product
    }

    enum Placement: Equatable {
        /// Nothing there: move the entry (a folder with everything in it).
        case new
        /// A folder is there and the entry is a folder: move its entries one by one. The
        /// folder must still be this one (device and inode) when they move.
        case merge(FileIdentity)
        /// Something else is there and `force` allows replacing it.
        case replace
        /// Inside an entry that moves whole.
        case carried
        /// Something is there and is kept (--skip-old-files), with all below the entry.
        case skip

        var isMerge: Bool { if case .merge = self { return true } else { return false } }
    }

    /// Where each entry goes, checked before anything is written.
    private func plan(_ entries: [BundleManifest.Entry], in target: FolderHandle, shown folder: String,
                      existing policy: ExistingFiles) throws -> [String: Placement] {
        var placement = [String: Placement]()
        var existing = FolderChain(root: target, rootPath: folder)
        for entry in entries {
            let parent = BundlePath.parent(of: entry.path)
            if let parent, placement[parent] == .skip {
                placement[entry.path] = .skip
                continue
            }
            if let parent, !(placement[parent]?.isMerge ?? false) {
                placement[entry.path] = .carried
                continue
            }
            let destination = folder + "/" + entry.path
            let parentHandle = try existing.handle(for: parent)
            guard let info = try parentHandle.entry(BundlePath.name(of: entry.path), shown: destination) else {
                placement[entry.path] = .new
                continue
            }
            let isFolder = (info.st_mode & S_IFMT) == S_IFDIR
            if isFolder && entry.type == .directory {
                placement[entry.path] = .merge(FileIdentity(info))
            } else if policy == .skip {
                placement[entry.path] = .skip
            } else if isFolder {
                throw BundleError.exists(path: destination, folder: true)
            } else if policy == .refuse {
                throw BundleError.exists(path: destination, folder: false)
            } else {
                placement[entry.path] = .replace
            }
        }
        return placement
    }

    /// Moves the staged entries into `target`. Each move goes from an open staging folder
    /// to an open target folder; the target folders merged into are reopened without
    /// following links and must be the ones the plan saw. If a move fails, the entries
    /// this run placed where nothing was are moved back into staging (which the caller
    /// then removes), so the target is left as it was; a replaced entry (--force) stays
    /// replaced.
    private func moveIntoPlace(_ entries: [BundleManifest.Entry], from staged: inout FolderChain, to target: FolderHandle,
                               shown folder: String, placement: [String: Placement], mask: mode_t) throws {
        var merged = [String: FileIdentity]()
        for (path, place) in placement { if case .merge(let identity) = place { merged[path] = identity } }
        var destinations = FolderChain(root: target, rootPath: folder, expected: merged)
        var placed: [(from: FolderHandle, to: FolderHandle, name: String)] = []
        /// Folders moved themselves, to get their mode and time once every move is done.
        var settle: [(to: FolderHandle, name: String, identity: FileIdentity, entry: BundleManifest.Entry)] = []
        do {
            for entry in entries {
                let place = placement[entry.path]
                guard place == .new || place == .replace else { continue }
                let parent = BundlePath.parent(of: entry.path)
                let name = BundlePath.name(of: entry.path)
                let from = try staged.handle(for: parent), to = try destinations.handle(for: parent)
                let shown = folder + "/" + entry.path
                if entry.type == .directory {
                    settle.append((to, name, try from.folder(name, shown: shown).identity, entry))
                }
                if place == .new {
                    try Self.moveWithoutReplacing(name, from: from, to: to, shown: shown, isFolder: entry.type == .directory)
                    placed.append((from, to, name))
                } else {
                    if entry.type == .directory {
                        // A file or link where the folder goes (rename can't replace it).
                        guard unlinkat(to.fd, RawName.cString(name), 0) == 0 || errno == ENOENT else { throw IOError("cannot replace", path: shown) }
                    }
                    guard renameat(from.fd, RawName.cString(name), to.fd, RawName.cString(name)) == 0 else { throw IOError("cannot move into place", path: shown) }
                }
            }
            for (to, name, identity, entry) in settle.reversed() {
                let shown = folder + "/" + entry.path
                let moved = try to.folder(name, shown: shown)
                guard moved.identity == identity else { throw BundleError.changedDuringExtraction(path: shown) }
                // The handle closes its descriptor when it goes, and nothing else holds this
                // one: alive until futimens has used it (docs/memory-safety.md).
                try withExtendedLifetime(moved) {
                    guard fchmod(moved.fd, mode_t(entry.permissions ?? 0o700) & ~mask) == 0 else { throw IOError("cannot set the mode of", path: shown) }
                    var times = Self.times(entry.mtime)
                    futimens(moved.fd, &times)
                }
            }
        } catch {
            for move in placed.reversed() { renameat(move.to.fd, RawName.cString(move.name), move.from.fd, RawName.cString(move.name)) }
            if let io = error as? IOError { throw BundleError.cannotExtract(io.description) }
            throw error
        }
    }

    /// Nothing was there when the plan was made; something that appeared since (another
    /// program's file) is not replaced (renameat2 RENAME_NOREPLACE).
    private static func moveWithoutReplacing(_ name: String, from: FolderHandle, to: FolderHandle, shown: String,
                                             isFolder: Bool) throws {
        let name = RawName.cString(name)
        if vfs_renameat_noreplace(from.fd, name, to.fd, name) == 0 { return }
        if errno == EEXIST { throw BundleError.exists(path: shown, folder: isFolder) }
        guard errno == EINVAL || errno == ENOSYS else { throw IOError("cannot move into place", path: shown) }
        var info = stat()
        if fstatat(to.fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 { throw BundleError.exists(path: shown, folder: isFolder) }
        guard renameat(from.fd, name, to.fd, name) == 0 else { throw IOError("cannot move into place", path: shown) }
    }

    /// Access time left alone (UTIME_OMIT, a macro Swift does not import), mtime set.
    static func times(_ mtime: Int) -> [timespec] {
        [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2), timespec(tv_sec: time_t(mtime), tv_nsec: 0)]
    }

    /// Opens an age-encrypted bundle: the payload is decrypted on another thread into a
    /// bounded pipe that the reader reads, so memory stays bounded; `body` gets the
    /// reader once the manifest is read.
    public static func openSealed<R>(_ decryptor: AgeDecryptor, fileKey: SecretBytes, progress: (@Sendable (Int) -> Void)? = nil,
                               _ body: (BundleReader) throws -> R) throws -> R {
        let job = HandOff(value: decryptor)
        let read = ReadCounter()
        return try BytePipe.run(producerOnThread: { plaintext in
            try job.value.decrypt(fileKey: fileKey, to: plaintext, progress: { n in
                read.set(n)
                progress?(n)
            })
        }, consumer: { plaintext in
            let reader = try BundleReader(source: plaintext)
            reader.bundleBytesRead = read.get
            return try body(reader)
        })
    }

    /// True if the input starts like an age file (binary or armored), without consuming it.
    public static func looksLikeAge(_ input: BufferedSource) throws -> Bool {
        let magic = Array("age-encryption.org/".utf8)
        if try input.peek(magic.count).elementsEqual(magic) { return true }
        return try Armor.looksArmored(input)
    }
}

/// What an extraction may write, beyond what the manifest says.
public struct ExtractionLimits: Sendable {
    /// The default cap: the content may be at most this many times the bundle's size.
    public static let defaultMaxExpansion = 1000
    /// Content (of a bundle that comes through a pipe) allowed beyond the cap while the
    /// first chunks are read.
    static let streamingSlack = 1 << 20
    /// The most bytes of content per byte of bundle; nil for no cap.
    public var maxExpansion: Int?
    /// The bundle's size when it is a file; nil for a pipe, where the cap is checked as
    /// the content comes out.
    public var bundleSize: Int?

    public init(maxExpansion: Int? = ExtractionLimits.defaultMaxExpansion, bundleSize: Int? = nil) {
        self.maxExpansion = maxExpansion
        self.bundleSize = bundleSize
    }
}

/// The count of bundle bytes read, set by the decrypting thread, read by the extracting one.
private final class ReadCounter: @unchecked Sendable {
    // Sendable: `value` is only touched under `lock`.
    private let lock = PThreadMutex()
    private var value = 0
    func set(_ n: Int) { lock.withLock { value = n } }
    func get() -> Int { lock.withLock { value } }
}
