import Crypto
import NIOCore
import Synchronization

/// The SHA-256 of each upload so far, carried from one PATCH to the next on this
/// instance, so the digest recorded when the last byte lands does not read the whole
/// upload again. A PATCH that finds none at its offset (a resume after a failed request,
/// another instance, a relay restart) leaves the digest to be read from the file.
final class UploadDigests: Sendable {
    private let running = Mutex([String: (end: Int64, hash: SHA256)]())

    /// The hash of the upload's first `offset` bytes, taken out (nil if not kept).
    func take(_ id: String, at offset: Int64) -> SHA256? {
        if offset == 0 { return SHA256() }
        return running.withLock { digests in
            guard let kept = digests.removeValue(forKey: id), kept.end == offset else { return nil }
            return kept.hash
        }
    }

    func keep(_ id: String, end: Int64, hash: SHA256) { running.withLock { $0[id] = (end, hash) } }

    func drop(_ id: String) { _ = running.withLock { $0.removeValue(forKey: id) } }
}

/// Hashes a request body as it passes to the blob store (one request's task at a time).
final class BodyHasher: @unchecked Sendable {
    var hash: SHA256

    init(_ hash: SHA256) { self.hash = hash }

    func update(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
    }
}
