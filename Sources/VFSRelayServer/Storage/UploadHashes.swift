import Crypto
import Synchronization

/// The SHA-256 of each upload's first bytes, kept by the blob store that wrote them, so
/// that the digest recorded when the last byte lands needs no second read of the upload.
///
/// An entry is the hash of exactly the first `offset` bytes, kept only once that offset
/// was recorded (synced, and in the database). The bytes below an upload's recorded
/// offset never change (a PATCH writes from the offset on, one writer at a time, and the
/// offset only grows), so an entry stays true however later requests end: one that
/// failed midway, a dropped connection that kept some bytes, another relay instance
/// taking a PATCH. A request that starts past an entry (another instance wrote the
/// bytes between, or this one lost the state with a restart) hashes only the bytes it
/// lacks, read back from the store.
final class UploadHashes: Sendable {
    struct Entry {
        var offset: Int64
        var hash: SHA256
    }

    private let kept = Mutex([String: Entry]())

    /// The entry to continue from for an upload at `offset`: the empty hash at 0, else
    /// the one kept at or below `offset` (a copy: SHA256 is a value), or nil.
    func entry(_ id: String, atMost offset: Int64) -> Entry? {
        if offset == 0 { return Entry(offset: 0, hash: SHA256()) }
        return kept.withLock { entries in
            guard let entry = entries[id], entry.offset <= offset else { return nil }
            return entry
        }
    }

    /// Records the hash of the upload's first `offset` bytes, once `offset` is recorded.
    /// An entry only moves forward.
    func keep(_ id: String, offset: Int64, hash: SHA256) {
        kept.withLock { entries in
            if let entry = entries[id], entry.offset > offset { return }
            entries[id] = Entry(offset: offset, hash: hash)
        }
    }

    func drop(_ id: String) { _ = kept.withLock { $0.removeValue(forKey: id) } }

    /// How many uploads have an entry (for tests).
    var count: Int { kept.withLock { $0.count } }
}
