import CArchive
import Foundation
import Glibc
import VFSBundle
import VFSCore

/// One entry of a forged bundle, stored as given whatever the manifest says.
public struct RawEntry: Sendable {
    public enum Kind: Sendable { case file, directory, symlink, hardlink, characterDevice, sparse }
    public var path: String
    public var kind: Kind
    public var content: String
    public var mode: mode_t
    public var target: String?
    public var mtime: Int

    public init(path: String, kind: Kind = .file, content: String = "", mode: mode_t = 0o644, target: String? = nil,
                mtime: Int = 1_700_000_000) {
        self.path = path
        self.kind = kind
        self.content = content
        self.mode = mode
        self.target = target
        self.mtime = mtime
    }
}

struct ForgeError: Error, CustomStringConvertible {
    let description: String
}

/// Writes a bundle's plaintext (a zstd-compressed pax archive) with libarchive
/// directly, entry by entry, so tests can make ones that lie: `manifest` first when
/// given, then `entries` as they are.
public func writeRawBundle(to path: String, manifest: BundleManifest?, entries: [RawEntry]) throws {
    let a = archive_write_new()!
    defer { archive_write_free(a) }
    func check(_ result: Int32, _ what: String) throws {
        guard result == ARCHIVE_OK else {
            throw ForgeError(description: "\(what): \(archive_error_string(a).map { String(cString: $0) } ?? "failed")")
        }
    }
    try check(archive_write_set_format_pax(a), "pax")
    try check(archive_write_add_filter_zstd(a), "zstd")
    try check(archive_write_open_filename(a, path), "open \(path)")
    var all = entries
    if let manifest {
        let bytes = try manifest.encoded()
        all.insert(RawEntry(path: BundleManifest.entryName, content: String(decoding: bytes, as: UTF8.self)), at: 0)
    }
    for item in all {
        let entry = archive_entry_new()!
        defer { archive_entry_free(entry) }
        archive_entry_set_pathname(entry, item.path)
        archive_entry_set_perm(entry, item.mode)
        archive_entry_set_mtime(entry, time_t(item.mtime), 0)
        switch item.kind {
        case .file: archive_entry_set_filetype(entry, UInt32(Glibc.S_IFREG)); archive_entry_set_size(entry, Int64(item.content.utf8.count))
        case .directory: archive_entry_set_filetype(entry, UInt32(Glibc.S_IFDIR))
        case .symlink: archive_entry_set_filetype(entry, UInt32(Glibc.S_IFLNK)); archive_entry_set_symlink(entry, item.target)
        case .hardlink: archive_entry_set_filetype(entry, UInt32(Glibc.S_IFREG)); archive_entry_set_hardlink(entry, item.target)
        case .characterDevice:
            archive_entry_set_filetype(entry, UInt32(Glibc.S_IFCHR)); archive_entry_set_rdevmajor(entry, 1); archive_entry_set_rdevminor(entry, 3)
        case .sparse:
            // Its content, then a 64 MiB hole: the archive holds only the content.
            archive_entry_set_filetype(entry, UInt32(Glibc.S_IFREG))
            archive_entry_set_size(entry, Int64(item.content.utf8.count) + (64 << 20))
            archive_entry_sparse_add_entry(entry, 0, Int64(item.content.utf8.count))
        }
        try check(archive_write_header(a, entry), "header of \(item.path)")
        if (item.kind == .file || item.kind == .sparse) && !item.content.isEmpty {
            let bytes = Array(item.content.utf8)
            guard archive_write_data(a, bytes, bytes.count) == bytes.count else { throw ForgeError(description: "data of \(item.path)") }
        }
    }
    try check(archive_write_close(a), "close")
}

/// The same bundle plaintext, in memory.
public func rawBundleBytes(manifest: BundleManifest?, entries: [RawEntry]) throws -> [UInt8] {
    let folder = try TestFolder("forge")
    let path = folder.path("bundle.tar.zst")
    try writeRawBundle(to: path, manifest: manifest, entries: entries)
    return Array(try folder.read("bundle.tar.zst"))
}

/// A manifest entry whose size and digest match `content`.
public func manifestEntry(_ path: String, _ type: BundleManifest.Entry.Kind = .file, content: String = "", mode: UInt32 = 0o644,
                          target: String? = nil) -> BundleManifest.Entry {
    .init(path: path, type: type, size: type == .file ? content.utf8.count : 0, permissions: mode, mtime: 1_700_000_000,
          sha256: type == .file ? SHA256.hash(Array(content.utf8)).hexString : nil, target: target)
}
