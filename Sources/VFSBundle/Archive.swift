import VFSCore
internal import CArchive
#if canImport(Glibc)
import Glibc
#endif

// The libarchive boundary: each handle has one owner that frees it, and every return
// code becomes a Swift error in `ArchiveHandle.check`, keeping archive_error_string.

/// One archive entry's header, copied out of libarchive.
struct ArchiveEntryHeader {
    enum Kind: Equatable { case file, directory, symlink, hardlink, other(mode_t) }
    var path: String
    var kind: Kind
    var size: Int
    /// Permission bits with setuid, setgid and sticky (07777).
    var permissions: mode_t
    var mtime: Int
    var mtimeNanoseconds: Int
    /// Symbolic or hard link target.
    var linkTarget: String?
    /// A sparse entry (GNU or pax sparse map): its holes are not in the archive.
    var sparse = false
}

/// Shared by the reader and the writer: the handle and the error checkpoint.
class ArchiveHandle {
    let handle: OpaquePointer
    let writing: Bool
    /// An error from our own callback (the sink or source), reported instead of
    /// libarchive's generic "write callback failed".
    var callbackError: Error?

    init(handle: OpaquePointer, writing: Bool) {
        self.handle = handle
        self.writing = writing
    }

    /// The one place libarchive return codes become errors.
    @discardableResult
    func check(_ rc: Int32, _ action: String) throws -> Int32 {
        if rc >= ARCHIVE_WARN { return rc }
        if let callbackError {
            self.callbackError = nil
            throw callbackError
        }
        let message = archive_error_string(handle).map { String(cString: $0) } ?? "failed to \(action)"
        throw BundleError.archive(message.prefix(1).lowercased() + message.dropFirst(), writing: writing)
    }

    func check(count: Int, _ action: String) throws -> Int {
        if count >= 0 { return count }
        try check(Int32(truncatingIfNeeded: count), action)
        throw BundleError.archive("failed to \(action)", writing: writing)
    }
}

/// Writes a pax archive (zstd-compressed unless told not to) to a `ByteSink`.
final class ArchiveWriter: ArchiveHandle {
    private let sink: ByteSink
    private var closed = false

    /// `onAllCores`: zstd compresses with a worker per core (the output is still one zstd
    /// stream). Its jobs are 8 MiB at the default level, and it holds input and output
    /// for several per worker (64 MiB on 2 cores, more with more cores); without workers
    /// it compresses in the calling thread in about 4 MiB, whatever the cores.
    init(sink: ByteSink, compress: Bool, onAllCores: Bool = true) throws {
        guard let a = archive_write_new() else { fatalError("archive_write_new: out of memory") }
        self.sink = sink
        super.init(handle: a, writing: true)
        try check(archive_write_set_format_pax(a), "select the pax format")
        if compress {
            try check(archive_write_add_filter_zstd(a), "add the zstd filter")
            if onAllCores {
                let cores = ProcessorCount.available(limit: 16)
                try check(archive_write_set_filter_option(a, "zstd", "threads", "\(cores)"), "set the zstd threads")
            }
        }
        // Blocks of 1 MiB (few hand-offs to the encryptor), and the last one not padded: the stream ends where its data
        // does, so a zstd frame is clean (zstd -t accepts it).
        try check(archive_write_set_bytes_per_block(a, 1 << 20), "set the block size")
        try check(archive_write_set_bytes_in_last_block(a, 1), "set the last block size")
        let client = Unmanaged.passUnretained(self).toOpaque()
        try check(archive_write_open(a, client, nil, { _, client, buffer, length in
            let me = Unmanaged<ArchiveWriter>.fromOpaque(client!).takeUnretainedValue()
            do {
                try me.sink.write(UnsafeRawBufferPointer(start: buffer, count: length))
                return length
            } catch {
                me.callbackError = error
                return -1
            }
        }, nil), "open the archive for writing")
    }

    deinit {
        // Not closed: a failed write; don't let free() flush a partial archive.
        if !closed { archive_write_fail(handle) }
        archive_write_free(handle)
    }

    func writeHeader(path: String, kind: ArchiveEntryHeader.Kind, size: Int, permissions: mode_t,
                     mtime: Int, mtimeNanoseconds: Int, linkTarget: String? = nil) throws {
        guard let entry = archive_entry_new() else { fatalError("archive_entry_new: out of memory") }
        defer { archive_entry_free(entry) }
        // A name that is not UTF-8 goes in as its bytes: the pax header then says
        // hdrcharset=BINARY and tar, bsdtar and vfs-unwrap restore the bytes.
        if RawName.isRaw(path) { archive_entry_copy_pathname(entry, RawName.cString(path)) }
        else { archive_entry_set_pathname_utf8(entry, path) }
        switch kind {
        case .file: archive_entry_set_filetype(entry, UInt32(Glibc.S_IFREG)); archive_entry_set_size(entry, Int64(size))
        case .directory: archive_entry_set_filetype(entry, UInt32(Glibc.S_IFDIR)); archive_entry_set_size(entry, 0)
        case .symlink:
            archive_entry_set_filetype(entry, UInt32(Glibc.S_IFLNK)); archive_entry_set_size(entry, 0)
            if let linkTarget, RawName.isRaw(linkTarget) { archive_entry_copy_symlink(entry, RawName.cString(linkTarget)) }
            else { archive_entry_set_symlink_utf8(entry, linkTarget ?? "") }
        case .hardlink, .other: preconditionFailure("bundles hold files, folders and symbolic links only")
        }
        archive_entry_set_perm(entry, permissions)
        archive_entry_set_mtime(entry, time_t(mtime), mtimeNanoseconds)
        archive_entry_set_uid(entry, 0)
        archive_entry_set_gid(entry, 0)
        try check(archive_write_header(handle, entry), "write the header of \"\(path)\"")
    }

    func writeData(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let n = try check(count: archive_write_data(handle, bytes.baseAddress! + offset, bytes.count - offset), "write data")
            offset += n
        }
    }

    /// Writes the end of the archive and flushes the compressor.
    func close() throws {
        closed = true
        try check(archive_write_close(handle), "close the archive")
    }
}

/// Reads a tar/pax archive, plain or zstd-compressed, from a `ByteSource`.
final class ArchiveReader: ArchiveHandle {
    private let source: ByteSource
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)

    init(source: ByteSource) throws {
        guard let a = archive_read_new() else { fatalError("archive_read_new: out of memory") }
        self.source = source
        super.init(handle: a, writing: false)
        try check(archive_read_support_filter_zstd(a), "enable zstd")
        try check(archive_read_support_format_tar(a), "enable tar")
        let client = Unmanaged.passUnretained(self).toOpaque()
        try check(archive_read_open(a, client, nil, { _, client, out in
            let me = Unmanaged<ArchiveReader>.fromOpaque(client!).takeUnretainedValue()
            do {
                // The source's own bytes when it lends them (a pipe from the decryptor):
                // valid until this is called again, as libarchive expects.
                if let lent = try me.source.borrow(), lent.count > 0 {
                    out?.pointee = lent.baseAddress
                    return lent.count
                }
                let n = try me.source.read(into: me.buffer)
                out?.pointee = UnsafeRawPointer(me.buffer.baseAddress)
                return n
            } catch {
                me.callbackError = error
                return -1
            }
        }, nil), "open the archive")
    }

    deinit {
        archive_read_free(handle)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        buffer.deallocate()
    }

    /// The next entry's header; nil at the end of the archive.
    func nextHeader() throws -> ArchiveEntryHeader? {
        var entry: OpaquePointer?
        let rc = archive_read_next_header(handle, &entry)
        if rc == ARCHIVE_EOF { return nil }
        try check(rc, "read an entry header")
        guard let entry else { throw BundleError.archive("no entry", writing: false) }
        // A name that is not UTF-8 (pax hdrcharset=BINARY) comes as its bytes (RawName).
        func raw(_ text: UnsafePointer<CChar>) -> String {
            let bytes = UnsafeRawBufferPointer(start: text, count: strlen(text))
            return RawName.string(bytes) ?? String(decoding: bytes, as: UTF8.self)
        }
        let path = archive_entry_pathname_utf8(entry).map { String(cString: $0) }
            ?? archive_entry_pathname(entry).map(raw) ?? ""
        let type = archive_entry_filetype(entry)
        let kind: ArchiveEntryHeader.Kind
        var target: String?
        if let hard = archive_entry_hardlink_utf8(entry) ?? archive_entry_hardlink(entry) {
            kind = .hardlink
            target = String(cString: hard)
        } else {
            switch mode_t(type) {
            case Glibc.S_IFREG: kind = .file
            case Glibc.S_IFDIR: kind = .directory
            case Glibc.S_IFLNK:
                kind = .symlink
                target = archive_entry_symlink_utf8(entry).map { String(cString: $0) } ?? archive_entry_symlink(entry).map(raw)
            default: kind = .other(mode_t(type))
            }
        }
        return ArchiveEntryHeader(path: path, kind: kind, size: Int(archive_entry_size(entry)),
                                  permissions: mode_t(archive_entry_perm(entry)) & 0o7777,
                                  mtime: Int(archive_entry_mtime(entry)), mtimeNanoseconds: Int(archive_entry_mtime_nsec(entry)),
                                  linkTarget: target, sparse: archive_entry_sparse_count(entry) > 0)
    }

    /// Reads the current entry's data; 0 at its end.
    func readData(into out: UnsafeMutableRawBufferPointer) throws -> Int {
        try check(count: archive_read_data(handle, out.baseAddress, out.count), "read data")
    }

    /// The current entry's next block of data where libarchive holds it (valid until the
    /// next call on the archive), with its offset in the entry; nil at its end.
    func readDataBlock() throws -> (bytes: UnsafeRawBufferPointer, offset: Int)? {
        var block: UnsafeRawPointer?
        var size = 0
        var offset: la_int64_t = 0
        let rc = archive_read_data_block(handle, &block, &size, &offset)
        if rc == ARCHIVE_EOF { return nil }
        try check(rc, "read data")
        return (UnsafeRawBufferPointer(start: block, count: size), Int(offset))
    }
}

/// zstd's fast level (1) on a sample of content, through libarchive's zstd filter (the
/// package links libarchive, not libzstd itself): how many bytes the sample would take.
/// `BundlePlan` runs it on samples (taken while it hashes, or read on their own), to tell
/// whether zstd is worth it.
enum ZstdProbe {
    /// The size of `bytes` as one zstd frame at level 1; nil if libarchive failed (out of memory).
    static func compressedSize(of bytes: UnsafeRawBufferPointer) -> Int? {
        guard let a = archive_write_new() else { return nil }
        final class Count { var bytes = 0 }
        let count = Count()
        // libarchive keeps `count` (unretained) and calls back with it until the archive is
        // closed: on a failure below, archive_write_free closes it, and may flush into the
        // callback, after this function's last use of `count`. So the archive is freed
        // inside count's extended lifetime, on every path.
        return withExtendedLifetime(count) { () -> Int? in
            defer { archive_write_free(a) }
            // The raw format: the bytes alone, no headers; unblocked, so nothing pads the count.
            guard archive_write_set_format_raw(a) == ARCHIVE_OK, archive_write_add_filter_zstd(a) == ARCHIVE_OK,
                  archive_write_set_filter_option(a, "zstd", "compression-level", "1") == ARCHIVE_OK,
                  archive_write_set_bytes_per_block(a, 0) == ARCHIVE_OK else { return nil }
            guard archive_write_open(a, Unmanaged.passUnretained(count).toOpaque(), nil, { _, client, _, length in
                Unmanaged<Count>.fromOpaque(client!).takeUnretainedValue().bytes += length
                return length
            }, nil) == ARCHIVE_OK, let entry = archive_entry_new() else { return nil }
            defer { archive_entry_free(entry) }
            archive_entry_set_pathname(entry, "sample")
            archive_entry_set_filetype(entry, UInt32(Glibc.S_IFREG))
            archive_entry_set_size(entry, Int64(bytes.count))
            guard archive_write_header(a, entry) == ARCHIVE_OK else { return nil }
            var offset = 0
            while offset < bytes.count {
                let n = archive_write_data(a, bytes.baseAddress! + offset, bytes.count - offset)
                guard n > 0 else { return nil }
                offset += n
            }
            return archive_write_close(a) == ARCHIVE_OK ? count.bytes : nil
        }
    }
}
