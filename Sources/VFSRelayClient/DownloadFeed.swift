#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// A transfer's partial file read while the download fills it, so vfs-fetch decrypts and
/// unpacks as the bytes arrive instead of after the whole download.
///
/// `RangeDownloader` writes the file (resuming after the bytes a killed fetch left, with
/// Range) and reports how far it got with `advance(to:)`; a reader on another thread
/// reads from the start of the file, waiting when it catches up (until `readBatch` bytes,
/// or the rest, are there). With `.asRead` it hashes every byte, and the end of input
/// comes only after the last byte hashed to the transfer's SHA-256: a mismatch is thrown
/// from that read instead (and the partial file removed), so the unpacking, which reads
/// its input to the end before it places anything, places nothing. A download that fails
/// is thrown to the reader the same way.
package final class DownloadFeed: ByteSource, @unchecked Sendable {
    /// When the bytes read are checked against the SHA-256 the relay listed.
    package enum Digest {
        /// As they are read, the end of input coming only once the whole matched: for a
        /// reader that does not authenticate the whole itself (vfs-cloud get, --raw).
        case asRead
        /// Only once a reader that read to the end failed (`readerFailed`), so that what
        /// it reports is the download that went wrong. For a reader that authenticates
        /// every byte itself (vfs-fetch: age authenticates each chunk and the end, the
        /// signed manifest each file's digest): the relay's SHA-256, the relay's own
        /// word, would only hash the same bytes once more.
        case onFailure
    }

    // Sendable: `written`, `failure` and `abandoned` are only touched under `condition`;
    // the rest belongs to the one reading thread.
    private let condition = PThreadCondition()
    private var written: Int64 = 0
    /// What `written` must reach for the reader waiting in `read` (.max: none waits).
    private var wanted: Int64 = .max
    private var failure: Error?
    private var abandoned = false

    private let fd: Int32
    private let path: String
    /// Its size and SHA-256 change once, under `condition`, when a transfer read while it
    /// uploaded (unknown until then: no end) ended (`settle`).
    private var transfer: RangeDownloader.Target
    private let digest: Digest
    private let hash = SHA256()
    private var position: Int64 = 0
    /// A read waits for this many bytes (fewer if it asks for fewer, or the rest is
    /// fewer), not for each chunk the download writes (64 KiB): the decryptor fills
    /// batches of 2 MiB anyway, and waking its reader for every chunk cost more than
    /// the reading (a wake-up, a pread and a loop in `readFully` per chunk).
    static let readBatch: Int64 = 1 << 20
    /// The reader got the end of input.
    private var ended = false

    /// Opens (creating it, 0600) the partial file at `path` for `transfer`. One still
    /// `uploading` has no end until `settle` gives its size and SHA-256.
    package convenience init(path: String, transfer: InboxEntry, digest: Digest = .asRead) throws {
        let uploading = transfer.status == .uploading
        try self.init(path: path, target: RangeDownloader.Target(route: RelayPaths.transferContent(transfer.id), label: transfer.id,
                                                                 size: uploading ? .max : transfer.size,
                                                                 sha256: uploading ? "" : transfer.sha256), digest: digest)
    }

    /// A transfer read while it uploaded ended: its size and SHA-256, which the reader's
    /// end of input is checked against.
    package func settle(size: Int64, sha256: String) {
        condition.withLock {
            transfer.size = size
            transfer.sha256 = sha256
            condition.broadcast()
        }
    }

    /// Opens (creating it, 0600) the partial file at `path` for what `target` downloads
    /// (a transfer, a cloud file).
    init(path: String, target: RangeDownloader.Target, digest: Digest = .asRead) throws {
        fd = open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw VFSCore.IOError("cannot create", path: path) }
        self.path = path
        self.transfer = target
        self.digest = digest
    }

    deinit { close(fd) }

    // MARK: the download's side

    /// The file holds the transfer's first `count` bytes.
    func advance(to count: Int64) {
        condition.withLock {
            written = max(written, count)
            if written >= wanted { condition.broadcast() }
        }
    }

    /// The download started over from byte 0 (the blob changed): a reader that already
    /// read bytes of the old one fails.
    func restarted() {
        condition.withLock {
            if position > 0 || written > 0 {
                fail(locked: RelayClientError.badAnswer(url: path, reason: "the transfer changed while it was fetched; fetch it again"))
            }
        }
    }

    /// The download failed: the reader's next read throws `error` (unless one failed already).
    func fail(_ error: Error) { condition.withLock { fail(locked: error) } }

    private func fail(locked error: Error) {
        if failure == nil { failure = error }
        condition.broadcast()
    }

    /// Why the feed failed (a download error or a SHA-256 mismatch), nil if it did not.
    var error: Error? { condition.withLock { failure } }

    /// True once the reader stopped (it failed or was done): the download can stop too.
    var isAbandoned: Bool { condition.withLock { abandoned } }

    /// The reader is done with the feed, whether or not it read everything.
    func abandon() {
        condition.withLock {
            abandoned = true
            condition.broadcast()
        }
    }

    // MARK: the reader's side

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard buffer.count > 0 else { return 0 }
        let available: Int64 = try condition.withLock {
            defer { wanted = .max }
            while true {
                if let failure { throw failure }
                if position >= transfer.size { return 0 }
                let have = min(written, transfer.size) - position
                let enough = min(Int64(buffer.count), Self.readBatch, transfer.size - position)
                if have >= enough { return have }
                wanted = position + enough
                condition.wait()
            }
        }
        if available == 0 { return try finish() }
        let want = Int(min(Int64(buffer.count), available))
        let n = retryingRead(into: buffer.baseAddress!, want)
        guard n > 0 else {
            let error = n < 0 ? VFSCore.IOError("cannot read", path: path) : VFSCore.IOError("cannot read", path: path, code: EIO)
            fail(error)
            throw error
        }
        if digest == .asRead { hash.update(UnsafeRawBufferPointer(start: buffer.baseAddress!, count: n)) }
        position += Int64(n)
        return n
    }

    private func retryingRead(into pointer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        while true {
            let n = pread(fd, pointer, count, off_t(position))
            if n < 0 && errno == EINTR { continue }
            return n
        }
    }

    /// Every byte was read: the end of input if they hash to the transfer's SHA-256
    /// (`.asRead`; `.onFailure`: at once).
    private func finish() throws -> Int {
        if ended { return 0 }
        ended = true
        if digest == .asRead { try check(hash.finalize().hexString) }
        return 0
    }

    /// The reader failed (on its thread). If it had read to the end (`.onFailure`), the
    /// bytes it read are hashed now: if they are not the transfer's SHA-256, that is the
    /// feed's error (`error`) and the partial file is removed, as with `.asRead`.
    func readerFailed() {
        // The reader read to the end, so the file holds exactly the bytes it read (the
        // download never writes past the size). Unreadable now: the reader's own error stands.
        // No SHA-256 listed (the relay deferred it): the reader's own error stands.
        guard digest == .onFailure, ended, !condition.withLock({ transfer.sha256.isEmpty }),
              let actual = try? RangeDownloader.sha256(ofFile: path) else { return }
        try? check(actual)
    }

    /// The end of input's check: `actual` (of every byte read) is the transfer's SHA-256,
    /// or the partial file is removed and the feed fails with `.corruptDownload`.
    private func check(_ actual: String) throws {
        let expected = condition.withLock { transfer.sha256 }
        guard actual == expected else {
            unlink(path)
            let error = RelayClientError.corruptDownload(transfer: transfer.label, expected: expected, actual: actual)
            fail(error)
            throw error
        }
    }
}
