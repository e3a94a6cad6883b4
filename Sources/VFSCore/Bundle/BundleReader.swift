import CLinux
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads a bundle's plaintext: the manifest first (validated, so a caller can check the
/// policy before anything is released), then every entry, each checked against the
/// manifest (same path, order, type, size, mode and link target; no hard links,
/// devices or setuid bits) and its content against its SHA-256.
public final class BundleReader {
    public let manifest: BundleManifest
    private let archive: ArchiveReader
    private let source: ByteSource
    private var nextIndex = 0
    /// Set while extracting to a staging folder.
    private var interrupt: ExtractionInterrupt?
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)

    /// Reads and validates the manifest.
    public init(source: ByteSource) throws {
        self.source = source
        do {
            archive = try ArchiveReader(source: source)
            guard let first = try archive.nextHeader() else { throw BundleError.notABundle("the archive is empty") }
            guard first.path == BundleManifest.entryName, first.kind == .file else {
                throw BundleError.notABundle("the first entry is \"\(first.path)\", not \(BundleManifest.entryName)")
            }
            guard first.size <= BundleManifest.maximumSize else { throw BundleError.manifest("it is larger than 64 MiB") }
            var bytes = [UInt8]()
            bytes.reserveCapacity(first.size)
            while true {
                let n = try archive.readData(into: buffer)
                if n == 0 { break }
                bytes.append(contentsOf: buffer[0..<n])
                guard bytes.count <= first.size else { throw BundleError.manifest("it is longer than its header says") }
            }
            manifest = try BundleManifest.decode(bytes)
        } catch BundleError.archive(let message, _) {
            throw BundleError.notABundle(message)
        }
    }

    deinit {
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        buffer.deallocate()
    }

    // MARK: entries

    /// The next entry, checked against the manifest; nil after the last.
    private func nextEntry() throws -> BundleManifest.Entry? {
        guard let header = try archive.nextHeader() else {
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

    /// Passes the current entry's content to `body`, then checks it against the manifest.
    private func readContent(of entry: BundleManifest.Entry, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let hasher = SHA256()
        var total = 0
        while true {
            let n = try archive.readData(into: buffer)
            if n == 0 { break }
            total += n
            guard total <= entry.size else { throw BundleError.digestMismatch(path: entry.path) }
            try interrupt?.check()
            let part = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            hasher.update(part)
            try body(part)
        }
        guard total == entry.size, hasher.finalize().hexString == entry.sha256 else {
            throw BundleError.digestMismatch(path: entry.path)
        }
    }

    /// Reads what is left of the input, so the age layer authenticates its last chunk.
    private func drain() throws {
        while try source.read(into: buffer) > 0 {}
    }

    // MARK: outputs

    /// Streams the content of a bundle that holds exactly one file.
    public func writeSingleFile(to sink: ByteSink) throws {
        guard manifest.entries.count == 1, manifest.entries[0].type == .file else {
            throw BundleError.badInput("--stdout needs a bundle of exactly one file; this one has \(manifest.entries.count) entries")
        }
        guard let entry = try nextEntry() else { return }
        try readContent(of: entry) { try sink.write($0) }
        guard try nextEntry() == nil else { throw BundleError.manifest("entries follow the last one") }
        try drain()
    }

    /// Extracts every entry into `folder`: first into a private staging folder inside
    /// it, then, once every digest matched and the input authenticated to its end,
    /// moved into place. Existing paths are replaced only with `force` (a folder is
    /// never replaced by a file; folders that exist are merged into). On failure the
    /// staging folder is removed and `folder` is as it was.
    /// - Returns: the count of entries extracted.
    @discardableResult
    public func extract(into folder: String, force: Bool) throws -> Int {
        let placement = try plan(into: folder, force: force)
        // The handlers go in before the staging folder exists: a signal from then on is
        // recorded, not fatal, so there is no moment where dying would leave the folder.
        let interrupt = ExtractionInterrupt()
        self.interrupt = interrupt
        var template = Array("\(folder)/.vfs-unwrap-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            let error = IOError("cannot create a staging folder in", path: folder)
            self.interrupt = nil
            interrupt.finish()
            throw BundleError.cannotExtract(error.description)
        }
        let staging = String(cString: template)
        var succeeded = false
        defer {
            if !succeeded { StagingFolder.remove(staging) }
            self.interrupt = nil
            interrupt.finish()
        }

        while let entry = try nextEntry() {
            try interrupt.check()
            let path = staging + "/" + entry.path
            switch entry.type {
            case .directory:
                guard mkdir(path, 0o700) == 0 else { throw IOError("cannot create folder", path: path) }
            case .file:
                let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
                guard fd >= 0 else { throw IOError("cannot create", path: path) }
                defer { close(fd) }
                let out = FileDescriptorSink(fd: fd, name: path)
                try readContent(of: entry) { try out.write($0) }
                guard fchmod(fd, mode_t(entry.permissions ?? 0o600)) == 0 else { throw IOError("cannot set the mode of", path: path) }
                var times = Self.times(entry.mtime)
                futimens(fd, &times)
            case .symlink:
                guard symlink(entry.target ?? "", path) == 0 else { throw IOError("cannot create link", path: path) }
                var times = Self.times(entry.mtime)
                utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW)
            }
        }
        try drain()

        // Folders get their mode and time last (children first), except those merged
        // into existing folders, which stay behind in staging.
        for entry in manifest.entries.reversed() where entry.type == .directory && placement[entry.path] != .merge {
            let path = staging + "/" + entry.path
            guard chmod(path, mode_t(entry.permissions ?? 0o700)) == 0 else { throw IOError("cannot set the mode of", path: path) }
            var times = Self.times(entry.mtime)
            utimensat(AT_FDCWD, path, &times, 0)
        }
        try moveIntoPlace(from: staging, to: folder, placement: placement)
        succeeded = true
        StagingFolder.remove(staging)
        return manifest.entries.count
    }

    enum Placement: Equatable {
        /// Nothing there: move the entry (a folder with everything in it).
        case new
        /// A folder is there and the entry is a folder: move its entries one by one.
        case merge
        /// Something else is there and `force` allows replacing it.
        case replace
        /// Inside an entry that moves whole.
        case carried
    }

    /// Where each entry goes, checked before anything is written.
    private func plan(into folder: String, force: Bool) throws -> [String: Placement] {
        var info = stat()
        guard stat(folder, &info) == 0 else { throw BundleError.cannotExtract(IOError("cannot extract into", path: folder).description) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw BundleError.cannotExtract(IOError("cannot extract into", path: folder, code: ENOTDIR).description)
        }
        var placement = [String: Placement]()
        for entry in manifest.entries {
            if let parent = BundlePath.parent(of: entry.path), placement[parent] != .merge {
                placement[entry.path] = .carried
                continue
            }
            let destination = folder + "/" + entry.path
            guard lstat(destination, &info) == 0 else {
                guard errno == ENOENT else { throw IOError("cannot check", path: destination) }
                placement[entry.path] = .new
                continue
            }
            let isFolder = (info.st_mode & S_IFMT) == S_IFDIR
            if isFolder && entry.type == .directory {
                placement[entry.path] = .merge
            } else if isFolder {
                throw BundleError.exists(path: destination, folder: true)
            } else if !force {
                throw BundleError.exists(path: destination, folder: false)
            } else {
                placement[entry.path] = .replace
            }
        }
        return placement
    }

    /// Moves the staged entries into `folder`. If a move fails, the entries this run
    /// placed where nothing was are moved back into staging (which the caller then
    /// removes), so `folder` is left as it was; a replaced entry (--force) stays replaced.
    private func moveIntoPlace(from staging: String, to folder: String, placement: [String: Placement]) throws {
        var placed: [(from: String, to: String)] = []
        do {
            for entry in manifest.entries {
                let from = staging + "/" + entry.path, to = folder + "/" + entry.path
                switch placement[entry.path] {
                case .new?:
                    try Self.moveWithoutReplacing(from, to, isFolder: entry.type == .directory)
                    placed.append((from, to))
                case .replace?:
                    if entry.type == .directory {
                        // A file or link where the folder goes (rename can't replace it).
                        guard unlink(to) == 0 || errno == ENOENT else { throw IOError("cannot replace", path: to) }
                    }
                    guard rename(from, to) == 0 else { throw IOError("cannot move into place", path: to) }
                case .merge?, .carried?, nil:
                    break
                }
            }
        } catch {
            for move in placed.reversed() { rename(move.to, move.from) }
            if let io = error as? IOError { throw BundleError.cannotExtract(io.description) }
            throw error
        }
    }

    /// Nothing was there when the plan was made; something that appeared since (another
    /// program's file) is not replaced (renameat2 RENAME_NOREPLACE).
    private static func moveWithoutReplacing(_ from: String, _ to: String, isFolder: Bool) throws {
        if vfs_renameat_noreplace(AT_FDCWD, from, AT_FDCWD, to) == 0 { return }
        if errno == EEXIST { throw BundleError.exists(path: to, folder: isFolder) }
        guard errno == EINVAL || errno == ENOSYS else { throw IOError("cannot move into place", path: to) }
        var info = stat()
        if lstat(to, &info) == 0 { throw BundleError.exists(path: to, folder: isFolder) }
        guard rename(from, to) == 0 else { throw IOError("cannot move into place", path: to) }
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
        return try BytePipe.run(producerOnThread: { plaintext in
            try job.value.decrypt(fileKey: fileKey, to: plaintext, progress: progress)
        }, consumer: { plaintext in
            try body(BundleReader(source: plaintext))
        })
    }

    /// True if the input starts like an age file (binary or armored), without consuming it.
    public static func looksLikeAge(_ input: BufferedSource) throws -> Bool {
        let magic = Array("age-encryption.org/".utf8)
        if try input.peek(magic.count).elementsEqual(magic) { return true }
        return try Armor.looksArmored(input)
    }
}

/// Removes a staging tree we created (no links are followed; read-only folders are
/// made writable first).
enum StagingFolder {
    static func remove(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            chmod(path, 0o700)
            if let names = try? BundlePlan.names(in: path) {
                for name in names { remove(path + "/" + String(decoding: name, as: UTF8.self)) }
            }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
