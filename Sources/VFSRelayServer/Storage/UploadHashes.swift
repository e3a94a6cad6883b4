import Crypto
import NIOConcurrencyHelpers

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

    /// The entries, and the entry count at which `prune` next looks for uploads that are gone.
    private let kept: NIOLockedValueBox<(entries: [String: Entry], pruneAt: Int)>
    private let firstPrune: Int

    /// `pruneAt`: how many entries are kept before `prune` first checks them.
    init(pruneAt: Int = 1024) {
        firstPrune = max(1, pruneAt)
        kept = NIOLockedValueBox(([:], firstPrune))
    }

    /// The entry to continue from for an upload at `offset`: the empty hash at 0, else
    /// the one kept at or below `offset` (a copy: SHA256 is a value), or nil.
    func entry(_ id: String, atMost offset: Int64) -> Entry? {
        if offset == 0 { return Entry(offset: 0, hash: SHA256()) }
        return kept.withLockedValue { kept in
            guard let entry = kept.entries[id], entry.offset <= offset else { return nil }
            return entry
        }
    }

    /// Records the hash of the upload's first `offset` bytes, once `offset` is recorded.
    /// An entry only moves forward.
    func keep(_ id: String, offset: Int64, hash: SHA256) {
        kept.withLockedValue { kept in
            if let entry = kept.entries[id], entry.offset > offset { return }
            kept.entries[id] = Entry(offset: offset, hash: hash)
        }
    }

    /// There are `pruneAt` entries: `prune` would look at them (for a store whose check
    /// of which uploads exist is a query, made only then).
    var wantsPrune: Bool { kept.withLockedValue { $0.entries.count >= $0.pruneAt } }

    func drop(_ id: String) { _ = kept.withLockedValue { $0.entries.removeValue(forKey: id) } }

    /// Forgets the entries of uploads that are gone (`exists` says no), once there are
    /// `pruneAt` entries. An upload's entry is dropped by `deleteUpload` on the instance
    /// that deletes it; in a pair of relays on one database the other instance, which
    /// took some of its PATCHes, never hears of that, so without this its entries would
    /// pile up for as long as it runs. The next check comes at twice the entries left (at
    /// least the first threshold): a check per entry, amortised over the entries added.
    /// Forgetting a live upload's entry by mistake costs only speed: its digest is then
    /// read back from the store.
    func prune(exists: (String) -> Bool) {
        guard wantsPrune else { return }
        let ids = kept.withLockedValue { Array($0.entries.keys) }
        let gone = ids.filter { !exists($0) }
        kept.withLockedValue { kept in
            for id in gone { kept.entries.removeValue(forKey: id) }
            kept.pruneAt = max(firstPrune, 2 * kept.entries.count)
        }
    }

    /// How many uploads have an entry (for tests).
    var count: Int { kept.withLockedValue { $0.entries.count } }
}
