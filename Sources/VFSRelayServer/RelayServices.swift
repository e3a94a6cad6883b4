import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Prometheus

/// What the controllers share: the blob files, the open event streams, the configuration.
/// No repository: each controller holds those it calls; the uploads' becoming blobs
/// below holds its own, out of the controllers' reach.
struct RelayServices: Sendable {
    private let uploads: any UploadWriterRepository & StreamingRepository & StreamingCompletionRepository
    let blobs: any BlobStore
    let hub: EventHub
    let configuration: RelayConfiguration
    let itemLists = ItemListCache()
    let metrics: RelayMetrics
    /// Requests in flight and event streams by user and organisation (`UsageLimits`).
    let usage = UsageCounts()

    init(uploads: any UploadWriterRepository & StreamingRepository & StreamingCompletionRepository, blobs: any BlobStore, hub: EventHub, configuration: RelayConfiguration) {
        (self.uploads, self.blobs, self.hub, self.configuration) = (uploads, blobs, hub, configuration)
        metrics = RelayMetrics(registry: configuration.metrics ?? PrometheusCollectorRegistry())
    }

    /// 507 unless `count` more bytes fit above the reserve.
    func checkDiskRoom(for count: Int64) throws {
        let room = configuration.diskRoom
        guard room > 0, count <= room else { throw RelayError.diskFull }
    }

    /// Runs a store change that frees space; on a disk too full for the database to write
    /// it, the ballast goes and the change runs again.
    func freeing<T>(_ body: () async throws -> T) async throws -> T {
        guard let ballast = configuration.ballast else { return try await body() }
        return try await ballast.freeing(body)
    }

    /// Deletes blob files whose last reference went away.
    func deleteBlobs(_ ids: [String]) async {
        for id in ids { await blobs.deleteBlob(id) }
    }

    /// Makes a finished upload of `user` a blob: moves its file into the blob folder
    /// under a new id, then lets `record` create the rows (the store consumes the
    /// upload). If `record` fails, the file goes back and the upload stays usable. `check`
    /// may refuse the finished upload's length first (the upload then stays as it was).
    /// `needsDigest`: the blob's rows list its SHA-256 (a cloud file, a share, a file
    /// request's transfer), worked out now if the upload deferred it; a transfer's is
    /// worked out when a client asks (`DeferredDigest`). `lockedUntil`: the blob is kept
    /// from deletion until then where the store can (`BlobStore.adopt(upload:as:lockedUntil:)`).
    func adoptUpload<T: Sendable>(_ id: String, user: Int64, needsDigest: Bool = true, lockedUntil: Date? = nil,
                                  check: (Int64) throws -> Void = { _ in },
                                  record: (String) async throws -> T) async throws -> T {
        guard !id.isEmpty, id.utf8.count <= 64 else { throw RelayError.notFound("no upload \"\(id)\"") }
        _ = try await uploads.upload(id: id, user: user)
        // The upload's writer lock (across instances on PostgreSQL): no PATCH writes it while it moves.
        let adopted = try await uploads.withUploadWriteLock(id) { () async throws -> T in
            let upload = try await uploads.upload(id: id, user: user)
            // A deferred length never declared is not finished, whatever arrived: nothing is
            // offered to a target before the sender said where the content ends.
            guard let length = upload.length, upload.offset == length else {
                throw RelayError.conflict("upload \"\(id)\" is not finished (\(upload.offset) of \(upload.length.map { "\($0) bytes" } ?? "a length not yet declared"))")
            }
            try check(length)
            var digest = upload.sha256
            if digest == nil {
                // Every byte landed but the digest was never recorded (a stop or a crash in
                // between, or a PATCH that ran past the length): work it out now.
                let worked = try await finishedDigest(upload, length: length)
                try await uploads.setUploadOffset(id: id, offset: length, sha256: worked)
                digest = worked
            }
            if needsDigest, digest == "" {
                try await uploads.setUploadOffset(id: id, offset: length, sha256: await blobs.digest(upload: id, length: length))
            }
            return try await adoptLocked(id, lockedUntil: lockedUntil, record: record)
        }
        guard let adopted else { throw RelayError.conflict("upload \"\(id)\" is busy") }
        return adopted
    }

    /// The SHA-256 recorded for a finished upload: "" for one whose digest is deferred
    /// (`UploadRecord.defersDigest`), else its digest.
    func finishedDigest(_ upload: UploadRecord, length: Int64) async throws -> String {
        upload.defersDigest ? "" : try await blobs.digest(upload: upload.id, length: length)
    }

    /// `adoptUpload`'s move, for a caller that holds the upload's writer lock and knows it finished.
    func adoptLocked<T: Sendable>(_ id: String, lockedUntil: Date? = nil, record: (String) async throws -> T) async throws -> T {
        let blobID = Secrets.id()
        try await blobs.adopt(upload: id, as: blobID, lockedUntil: lockedUntil)
        let recorded: T
        do {
            recorded = try await record(blobID)
        } catch {
            await blobs.unadopt(blob: blobID, upload: id)
            throw error
        }
        // The store consumed the upload: its file's other name goes now. Killed before
        // this line, the file is an orphan upload the sweep removes.
        await blobs.deleteUpload(id)
        return recorded
    }

    /// A finished upload (its writer lock held) becomes the blob of the streaming transfer
    /// made of it, if one was: its readers, woken, read the rest from the blob. Returns
    /// whether there was one.
    @discardableResult
    func completeStreaming(upload id: String) async throws -> Bool {
        guard try await uploads.streamingTransfer(upload: id) != nil else { return false }
        let (outcome, blobID) = try await adoptLocked(id) { blobID -> (StreamingCompletion, String) in
            let outcome = try await uploads.completeStreamingTransfer(upload: id, blobID: blobID, now: Date())
            // No transfer after all (another request completed it): the upload stays.
            if outcome == .noTransfer { throw StoreError.conflict("upload \"\(id)\" is no streaming transfer") }
            return (outcome, blobID)
        }
        // Every copy was declined or cancelled while it uploaded: no blob is kept.
        if outcome == .unwanted { await blobs.deleteBlob(blobID) }
        return true
    }
}

/// Counts wrong enrolment codes per address; after the limit in a row, the address
/// waits out the lockout (429). A right code resets the count. The counts live in the
/// store, so every relay instance on one database shares them.
struct EnrolmentThrottle: Sendable {
    private let store: any EnrolmentThrottleRepository
    let limit: Int
    let lockout: TimeInterval

    init(store: any EnrolmentThrottleRepository, limit: Int, lockout: TimeInterval) {
        (self.store, self.limit, self.lockout) = (store, limit, lockout)
    }

    /// Seconds left to wait, or nil when the address may try.
    func blocked(_ address: String, now: Date) async throws -> Int? {
        try await store.enrolmentWait(address: address, now: now)
    }

    func failed(_ address: String, now: Date) async throws {
        try await store.enrolmentFailed(address: address, limit: limit, lockout: lockout, now: now)
    }

    func succeeded(_ address: String) async throws {
        try await store.enrolmentSucceeded(address: address)
    }
}

/// Each organisation's encoded item list and the items revision it was read at.
/// GET /v1/items is the hot read of every device's policy sync: while the revision
/// (one small read) is unchanged, the list is neither read nor encoded again. Writes
/// through any relay instance bump the revision in the database, so a cached list is
/// never served after a change, whichever instance made it.
final class ItemListCache: Sendable {
    private let lists = NIOLockedValueBox([Int64: (revision: Int64, body: ByteBuffer, grace: Int64)]())

    /// The encoded list and the offline grace kept at `revision`, if that is the one kept.
    func list(org: Int64, revision: Int64) -> (body: ByteBuffer, grace: Int64)? {
        lists.withLockedValue { $0[org].flatMap { $0.revision == revision ? ($0.body, $0.grace) : nil } }
    }

    func store(_ body: ByteBuffer, grace: Int64, org: Int64, revision: Int64) {
        lists.withLockedValue { lists in
            if let held = lists[org], held.revision > revision { return }
            lists[org] = (revision, body, grace)
        }
    }
}
