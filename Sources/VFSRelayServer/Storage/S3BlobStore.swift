import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import VFSObjectStore
#if canImport(Glibc)
import Glibc
#endif

/// Where `--blobs s3://BUCKET[/PREFIX]?endpoint=URL&region=R` keeps blobs: objects
/// `PREFIX/blobs/ID` in an S3-compatible store, path-style.
public struct S3BlobLocation: Sendable, Equatable {
    public var bucket: String
    /// "" or a prefix ending in "/".
    public var prefix: String
    public var endpoint: URL
    public var region: String

    /// Parses the `s3://` form; nil with a reason for anything else.
    public static func parse(_ text: String) -> Result<S3BlobLocation, ParseError> {
        guard text.hasPrefix("s3://"), let components = URLComponents(string: text) else {
            return .failure(ParseError("write s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION"))
        }
        guard let bucket = components.host, bucket.count >= 3 else {
            return .failure(ParseError("a bucket name has at least 3 characters: s3://BUCKET"))
        }
        var items: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard ["endpoint", "region"].contains(item.name), let value = item.value, !value.isEmpty else {
                return .failure(ParseError("unknown or empty setting \"\(item.name)\" (endpoint=URL and region=REGION are known)"))
            }
            items[item.name] = value
        }
        guard let endpointText = items["endpoint"], let endpoint = URL(string: endpointText),
              ["http", "https"].contains(endpoint.scheme ?? ""), endpoint.host?.isEmpty == false else {
            return .failure(ParseError("endpoint=URL is needed: http(s)://HOST[:PORT] of the S3 service"))
        }
        let path = components.path.split(separator: "/").joined(separator: "/")
        return .success(S3BlobLocation(bucket: bucket, prefix: path.isEmpty ? "" : path + "/", endpoint: endpoint,
                                       region: items["region"] ?? "us-east-1"))
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    public var description: String { "s3://\(bucket)/\(prefix)" }
}

extension BlobStoreError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .tooLong: "the upload is longer than allowed"
        case .noSpace: "no space left on the blob store's disk"
        case .missing(let id): "no blob or upload \"\(id)\""
        case .io(let message), .unavailable(let message): message
        }
    }
}

/// Why the bucket of `--blobs s3://…` cannot be used, found before the relay serves.
public struct ObjectStoreUnusable: Error, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// No answer (refused, timed out) or the store failing (5xx).
        case unreachable
        /// The key is unknown, its signature wrong, or it may not list the bucket.
        case denied
        case noSuchBucket
    }
    public let reason: Reason
    public let description: String

    /// What a first request to the bucket answered, sorted into the reasons.
    static func sorting(_ error: any Error, _ location: S3BlobLocation) -> ObjectStoreUnusable {
        let store = "\(location.description) at \(location.endpoint.absoluteString)"
        guard let answer = error as? S3Error, let status = answer.httpStatus else {
            return ObjectStoreUnusable(reason: .unreachable, description: "cannot reach the S3 store \(store): \(error)")
        }
        if status == 404 || answer.code == "NoSuchBucket" {
            return ObjectStoreUnusable(reason: .noSuchBucket, description: "no bucket \"\(location.bucket)\" in the S3 store at \(location.endpoint.absoluteString)")
        }
        if status == 401 || status == 403 {
            return ObjectStoreUnusable(reason: .denied, description: "the S3 store refused the key for \(store): \(answer.code.isEmpty ? "\(status)" : answer.code)")
        }
        return ObjectStoreUnusable(reason: .unreachable, description: "the S3 store \(store) failed: \(answer)")
    }
}

/// `--blobs s3://…` and its credentials (from the environment or `--s3-credentials`, never argv).
public struct ObjectStoreSettings: Sendable {
    public var location: S3BlobLocation
    public var credentials: S3Credentials
    /// How long a connection to the store may take to be made, and a request (not a
    /// download) to be answered, before it fails and the relay answers 503.
    public var connectTimeout = S3Client.defaultConnectTimeout
    public var readTimeout = S3Client.defaultReadTimeout

    public init(location: S3BlobLocation, credentials: S3Credentials) {
        self.location = location
        self.credentials = credentials
    }

    /// A client of the bucket with these settings.
    var client: S3Client {
        S3Client(endpoint: location.endpoint, bucket: location.bucket, region: location.region, credentials: credentials,
                 connectTimeout: connectTimeout, readTimeout: readTimeout)
    }
}

extension S3Credentials {
    /// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), if both are set.
    public static func environment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> S3Credentials? {
        guard let key = environment["AWS_ACCESS_KEY_ID"], !key.isEmpty,
              let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else { return nil }
        return S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// A credentials file as the AWS tools write it (`aws_access_key_id = …` and
    /// `aws_secret_access_key = …`, in its `[default]` section or before any section).
    public static func file(_ text: String) -> S3Credentials? {
        var section = "default"
        var values: [String: String] = [:]
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                continue
            }
            guard section == "default", let equals = line.firstIndex(of: "=") else { continue }
            values[line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        guard let key = values["aws_access_key_id"], !key.isEmpty, let secret = values["aws_secret_access_key"], !secret.isEmpty else { return nil }
        return S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: values["aws_session_token"])
    }
}

/// Blobs as objects in an S3-compatible store: a finished blob is the object
/// `PREFIX/blobs/ID`, downloads are ranged GETs streamed as they arrive, deletes and gc
/// delete objects. Nothing is kept on the relay's disk, so any relay on the same
/// database and bucket continues an upload another began, and a restart loses nothing
/// recorded.
///
/// An upload in progress is an S3 multipart upload of `PREFIX/uploads/ID`: a PATCH's
/// bytes fill a part in memory, and each full part goes up and is recorded with the
/// offset at its end in one transaction (`recordUploadPart`). When the body ends (or the
/// connection drops), what is left of the part, the tail, goes up as the object
/// `PREFIX/uploads/ID.tail` before the offset moves past it; the next PATCH, on whichever
/// relay, reads it back first. The tail object only ever grows from the end of the
/// recorded parts, so the first `offset - partsEnd` bytes of it are always the upload's.
/// Once every byte is there, the tail is the last part and CompleteMultipartUpload makes
/// the object whole; a finished upload becomes a blob by a copy inside the store.
public struct S3BlobStore: BlobStore {
    public let location: S3BlobLocation
    let client: S3Client
    /// Where the state of uploads in progress is recorded (the relay's database).
    let records: any MultipartRepository & UploadListingRepository
    /// The part size of the multipart uploads that store blobs (S3's least is 5 MiB).
    var partSize = 16 << 20
    /// The part size of uploads in progress: what a PATCH holds in memory at most, and
    /// what a kill may lose (the client resends it).
    var uploadPartSize = 8 << 20
    /// The running SHA-256 of the uploads this process appended to, kept at the offset
    /// recorded when a PATCH ends (the parts can't be read back before the upload is whole,
    /// so a PATCH that finds none at its offset leaves the digest to one read at the end).
    let hashes: UploadHashes
    /// Whether the bucket has Object Lock, once asked (`versioned()`).
    let objectLock = NIOLockedValueBox<Bool?>(nil)

    /// `hashesPruneAt`: how many kept upload hashes make it look for uploads that are
    /// gone (`UploadHashes.prune`, against the database's uploads).
    public init(_ settings: ObjectStoreSettings, records: any MultipartRepository & UploadListingRepository, hashesPruneAt: Int = 1024) {
        location = settings.location
        client = settings.client
        self.records = records
        hashes = UploadHashes(pruneAt: hashesPruneAt)
    }

    func key(_ blob: String) -> String { "\(location.prefix)blobs/\(blob)" }
    var blobPrefix: String { "\(location.prefix)blobs/" }
    var uploadPrefix: String { "\(location.prefix)uploads/" }
    func uploadKey(_ upload: String) -> String { uploadPrefix + upload }
    func tailKey(_ upload: String) -> String { uploadPrefix + upload + ".tail" }

    /// Runs an S3 request; what goes wrong becomes a BlobStoreError.
    func s3<T>(_ what: String, blob: String? = nil, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as S3Error where error.code == "NoSuchKey" && blob != nil {
            throw BlobStoreError.missing(blob!)
        } catch let error as BlobStoreError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as S3Error where (error.httpStatus ?? 500) < 500 && error.code != "SlowDown" {
            throw BlobStoreError.io("\(what) in \(location.description): \(error)")
        } catch {
            // No answer, or the store failing or throttling (S3Client already tried again).
            throw BlobStoreError.unavailable("\(what) in \(location.description): \(error)")
        }
    }

    /// Checks, with one listing, that the bucket is there and the key may use it.
    public static func checkAccess(_ settings: ObjectStoreSettings) async throws {
        let location = settings.location
        do {
            try await settings.client.checkAccess()
        } catch {
            throw ObjectStoreUnusable.sorting(error, location)
        }
    }

    /// A HEAD of the blob's object (with the read timeout): the store answers, and has it.
    public func probe(blob: String) async throws {
        guard try await s3("cannot read blob \(blob)", blob: blob, { try await client.size(key(blob)) }) != nil else {
            throw BlobStoreError.missing(blob)
        }
    }

    /// Nothing to make: the upload's row is its state until a part or a tail goes up.
    public func createUpload(_ id: String) async throws {}

    /// The bytes of the upload after its recorded parts, up to its offset (from the tail object).
    func tail(_ upload: String, _ state: MultipartState) async throws -> ByteBuffer {
        guard state.offset >= state.partsEnd else {
            throw BlobStoreError.io("upload \(upload): parts recorded past its offset \(state.offset)")
        }
        var tail = ByteBufferAllocator().buffer(capacity: Int(state.offset - state.partsEnd))
        guard state.offset > state.partsEnd else { return tail }
        try await s3("cannot read the tail of upload \(upload)", blob: upload) {
            try await client.get(tailKey(upload), range: 0..<(state.offset - state.partsEnd), readTimeout: true) { chunk in
                var chunk = chunk
                tail.writeBuffer(&chunk)
            }
        }
        return tail
    }
    public func append<Body: AsyncSequence & Sendable>(_ body: Body, upload: String, offset: Int64, limit: Int64, hashing: Bool,
                                                       accept: (@Sendable () async throws -> Void)?,
                                                       progress: @escaping @Sendable (Int64) async throws -> Void) async throws -> Int64
        where Body.Element == ByteBuffer {
        var state = try await records.multipartState(upload: upload)
        guard state.offset == offset else {
            throw BlobStoreError.io("upload \(upload) is at \(state.offset), not \(offset)")
        }
        if state.assembled {
            // Whole already: not one byte more.
            for try await buffer in body where buffer.readableBytes > 0 { throw BlobStoreError.tooLong }
            return offset
        }
        // What is not in a recorded part yet: the tail, then the body as it arrives.
        var pending = try await tail(upload, state)
        var position = offset
        let partSize = uploadPartSize
        // The hash of the bytes before `offset` if this instance kept it, continued with each
        // byte taken; none when the upload's digest is deferred.
        var hash = hashing ? hashes.entry(upload, atMost: offset).flatMap { $0.offset == offset ? $0.hash : nil } : nil
        let hashes = self.hashes
        if hashes.wantsPrune, let known = try? await records.uploadIDs() {
            hashes.prune { known.contains($0) }
        }
        // Provisional bytes (`accept`): parts go up but are recorded only once accepted;
        // refused, they are replaced by the next PATCH's parts, which take the same numbers.
        var provisional: [UploadPart] = []
        do {
            for try await buffer in body {
                let room = Int(limit - position)
                let taken = buffer.getSlice(at: buffer.readerIndex, length: min(room, buffer.readableBytes))!
                taken.withUnsafeReadableBytes { hash?.update(bufferPointer: $0) }
                pending.writeImmutableBuffer(taken)
                position += Int64(taken.readableBytes)
                while pending.readableBytes >= partSize {
                    try await cut(upload, &state, from: &pending, record: accept == nil)
                    if accept == nil {
                        try await progress(state.partsEnd)
                    } else {
                        provisional.append(state.parts.last!)
                    }
                }
                if buffer.readableBytes > room { throw BlobStoreError.tooLong }
            }
        } catch where accept != nil {
            throw error
        } catch {
            // A dropped connection, or a stop that cancelled the request, keeps what
            // arrived: the tail goes up and the offset moves, outside this (perhaps
            // cancelled) task so that cancellation cannot skip it. Not when the store
            // itself failed: another request to it would hold the client past the idle
            // timeout; the 503 goes now and the client resends from the recorded offset.
            let storeFailed = if case BlobStoreError.unavailable = error { true } else { false }
            if !storeFailed, position > state.offset, pending.readableBytes > 0 {
                let (store, kept, final, whole) = (self, pending, position, hash)
                _ = await Task {
                    try await store.keepTail(upload, kept, offset: final, progress: progress)
                    if let whole { hashes.keep(upload, offset: final, hash: whole) }
                }.result
            }
            throw error
        }
        if let accept {
            try await accept()
            for part in provisional { try await records.recordUploadPart(upload: upload, part: part) }
            if position == state.offset, !provisional.isEmpty {
                try await progress(position)
                if let hash { hashes.keep(upload, offset: position, hash: hash) }
            }
        }
        if position > state.offset {
            try await keepTail(upload, pending, offset: position, progress: progress)
            if let hash { hashes.keep(upload, offset: position, hash: hash) }
        }
        return position
    }

    /// Uploads the first `uploadPartSize` bytes of `pending` as the next part (starting the
    /// multipart upload with the first) and records it with the offset at its end.
    /// Not recorded when `record` is false (provisional bytes, recorded once accepted).
    func cut(_ upload: String, _ state: inout MultipartState, from pending: inout ByteBuffer, record: Bool = true) async throws {
        let key = uploadKey(upload)
        let multipart: String
        if let started = state.multipartID {
            multipart = started
        } else {
            multipart = try await s3("cannot start upload \(upload)") { try await client.createMultipartUpload(key) }
            try await records.startMultipart(upload: upload, multipartID: multipart)
            state.multipartID = multipart
        }
        let number = (state.parts.last?.number ?? 0) + 1
        let body = pending.getSlice(at: pending.readerIndex, length: min(uploadPartSize, pending.readableBytes))!
        let etag = try await s3("cannot store part \(number) of upload \(upload)") {
            try await client.uploadPart(key, uploadID: multipart, number: number, body)
        }
        let part = UploadPart(number: number, etag: etag, start: state.partsEnd, size: Int64(body.readableBytes))
        if record { try await records.recordUploadPart(upload: upload, part: part) }
        state.parts.append(part)
        state.offset = max(state.offset, part.end)
        pending.moveReaderIndex(forwardBy: body.readableBytes)
        pending.discardReadBytes()
    }

    /// Puts the tail up, then records the offset at its end.
    func keepTail(_ upload: String, _ tail: ByteBuffer, offset: Int64, progress: @Sendable (Int64) async throws -> Void) async throws {
        try await s3("cannot store the tail of upload \(upload)") { _ = try await client.put(tailKey(upload), tail) }
        try await progress(offset)
    }

    /// Makes the object of a whole upload (every byte of `length` recorded): the tail
    /// becomes the last part and the multipart upload completes, or, without a part, the
    /// tail is put as the object. Done once; a completion whose answer was lost (a kill)
    /// is found done by the object's size.
    func assemble(_ upload: String, length: Int64) async throws {
        var state = try await records.multipartState(upload: upload)
        guard !state.assembled else { return }
        guard state.offset == length else {
            throw BlobStoreError.io("upload \(upload) has \(state.offset) of \(length) bytes")
        }
        var pending = try await tail(upload, state)
        let key = uploadKey(upload)
        if state.parts.isEmpty {
            try await s3("cannot store upload \(upload)") { _ = try await client.put(key, pending) }
            if let multipart = state.multipartID { try? await client.abortMultipartUpload(key, uploadID: multipart) }
        } else {
            // (A tail longer than a part was kept after a part failed to go up.)
            while pending.readableBytes > 0 { try await cut(upload, &state, from: &pending) }
            let parts = state.parts.map { (number: $0.number, etag: $0.etag) }
            do {
                try await s3("cannot complete upload \(upload)") {
                    try await client.completeMultipartUpload(key, uploadID: state.multipartID ?? "", parts: parts)
                }
            } catch {
                guard try await client.size(key) == length else { throw error }
            }
        }
        try await records.setAssembled(upload: upload)
        await remove(tailKey(upload))
    }

    public func digest(upload: String, length: Int64) async throws -> String {
        try await assemble(upload, length: length)
        if let kept = hashes.entry(upload, atMost: length), kept.offset == length { return Secrets.hex(kept.hash.finalize()) }
        var hash = SHA256()
        var count: Int64 = 0
        try await s3("cannot read upload \(upload)", blob: upload) {
            try await client.get(uploadKey(upload), readTimeout: true) { chunk in
                chunk.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
                count += Int64(chunk.readableBytes)
            }
        }
        guard count == length else { throw BlobStoreError.io("upload \(upload) holds \(count) bytes, not \(length)") }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Aborts the upload's multipart upload (found by listing, so it needs no row: an
    /// expired upload's is gone) and deletes its objects. A failure leaves what the next
    /// sweep finds.
    public func deleteUpload(_ id: String) async {
        hashes.drop(id)
        let key = uploadKey(id)
        for multipart in (try? await client.multipartUploads(prefix: key)) ?? [] where multipart.key == key {
            try? await client.abortMultipartUpload(key, uploadID: multipart.uploadID)
        }
        await remove(key)
        await remove(tailKey(id))
    }

    /// Uploads with an object, a tail or a multipart upload begun before `date`.
    public func uploads(olderThan date: Date) async throws -> Set<String> {
        try await s3("cannot list the uploads") {
            func id(_ key: String) -> String {
                let name = key.dropFirst(uploadPrefix.count)
                return String(name.hasSuffix(".tail") ? name.dropLast(".tail".count) : name)
            }
            let objects = try await client.list(prefix: uploadPrefix).filter { $0.lastModified < date }.map { id($0.key) }
            let multiparts = try await client.multipartUploads(prefix: uploadPrefix).filter { $0.initiated < date }.map { id($0.key) }
            return Set(objects + multiparts)
        }
    }

    /// The upload's whole object is copied (inside the store) as the blob's; it stays until `deleteUpload`.
    public func adopt(upload: String, as blob: String) async throws {
        try await adopt(upload: upload, as: blob, lockedUntil: nil)
    }

    /// `adopt`, the copy locked in governance mode until `lockedUntil` where the bucket has
    /// Object Lock (issue 48, docs/relay.md "Minimum retention"); elsewhere not locked.
    public func adopt(upload: String, as blob: String, lockedUntil: Date?) async throws {
        let state = try await records.multipartState(upload: upload)
        try await assemble(upload, length: state.offset)
        guard let size = try await s3("cannot read upload \(upload)", { try await client.size(uploadKey(upload)) }) else {
            throw BlobStoreError.missing(upload)
        }
        var lock: [(String, String)] = []
        if let lockedUntil, try await versioned() { lock = S3Client.governanceLock(until: lockedUntil) }
        try await s3("cannot store blob \(blob)") { try await client.copy(uploadKey(upload), to: key(blob), size: size, headers: lock) }
        // AWS locks the copy by its headers; Ceph RGW (16) ignores them on a copy and takes
        // the lock as a retention of its own.
        if let lockedUntil, !lock.isEmpty {
            try await s3("cannot lock blob \(blob)") { try await client.lockGovernance(key(blob), until: lockedUntil) }
        }
    }

    /// Whether the bucket has Object Lock (and so keeps versions), asked once.
    func versioned() async throws -> Bool {
        if let known = objectLock.withLockedValue({ $0 }) { return known }
        let enabled = try await s3("cannot read the bucket's Object Lock configuration") { try await client.objectLockEnabled() }
        objectLock.withLockedValue { $0 = enabled }
        return enabled
    }

    /// Deletes `key`: one DELETE, and in a versioned bucket (as every bucket with Object
    /// Lock is: the DELETE answers with a delete marker, or the bucket has Object Lock)
    /// every version of it too, those still locked only when `bypassingGovernance` (else
    /// they stay, and so does the data). The marker the DELETE made is named by its answer
    /// (a listing made at once may not show it yet on Ceph RGW) and removed last; a DELETE
    /// of a key whose latest version is a marker already makes none (RGW), hence the
    /// bucket's word. A version still locked is the current object again, which the sweep
    /// finds an orphan and deletes once its date has passed.
    func remove(_ key: String, bypassingGovernance: Bool = false) async {
        let marker = try? await client.delete(key)  // flattened: the marker it made, else nil
        if marker == nil {
            guard (try? await versioned()) == true else { return }
        }
        var versions = (try? await client.versions(of: key)) ?? []
        if let made = marker, !made.isEmpty {
            versions.removeAll { $0 == made }
            versions.append(made)
        }
        for version in versions {
            try? await client.delete(key, version: version, bypassingGovernance: bypassingGovernance)
        }
    }

    /// Writes the object of `blob` from `next` (each call a part, the last one shorter
    /// or empty): one PUT when it fits one part, else a multipart upload, aborted if
    /// anything fails on the way.
    func store(_ blob: String, next: () async throws -> ByteBuffer) async throws {
        let key = key(blob)
        let first = try await next()
        guard first.readableBytes == partSize else {
            try await s3("cannot store blob \(blob)") { _ = try await client.put(key, first) }
            return
        }
        let uploadID = try await s3("cannot start storing blob \(blob)") { try await client.createMultipartUpload(key) }
        do {
            var parts: [(number: Int, etag: String)] = []
            var part = first
            while part.readableBytes > 0 {
                let number = parts.count + 1
                let body = part
                parts.append((number, try await s3("cannot store part \(number) of blob \(blob)") {
                    try await client.uploadPart(key, uploadID: uploadID, number: number, body)
                }))
                if part.readableBytes < partSize { break }
                part = try await next()
            }
            try await s3("cannot finish blob \(blob)") { try await client.completeMultipartUpload(key, uploadID: uploadID, parts: parts) }
        } catch {
            try? await client.abortMultipartUpload(key, uploadID: uploadID)
            throw error
        }
    }

    public func unadopt(blob: String, upload: String) async { await deleteBlob(blob) }

    /// The size of the object of `blob`, or nil if there is none.
    public func objectSize(_ blob: String) async throws -> Int64? {
        try await s3("cannot read blob \(blob)") { try await client.size(key(blob)) }
    }

    /// A failed delete leaves an orphan object, which the next sweep finds and deletes.
    public func deleteBlob(_ id: String) async { await remove(key(id)) }

    public func deleteLockedBlob(_ id: String) async { await remove(key(id), bypassingGovernance: true) }

    public func blobs(olderThan date: Date) async throws -> Set<String> {
        try await s3("cannot list the blobs") {
            Set(try await client.list(prefix: blobPrefix).filter { $0.lastModified < date }.map { String($0.key.dropFirst(blobPrefix.count)) })
        }
    }

    /// The blob objects there are now, listed once: the sweep's check while the database is locked.
    public func existenceCheck() async throws -> @Sendable (String) -> Bool {
        let listed = try await s3("cannot list the blobs") {
            Set(try await client.list(prefix: blobPrefix).map { String($0.key.dropFirst(blobPrefix.count)) })
        }
        return { listed.contains($0) }
    }

    public func rewrite(blob source: String, replacing: Int64, with header: [UInt8], as blob: String) async throws -> (size: Int64, sha256: String) {
        guard let size = try await s3("cannot read blob \(source)", blob: source, { try await client.size(key(source)) }) else {
            throw BlobStoreError.missing(source)
        }
        var hash = SHA256()
        var total: Int64 = 0
        var position = replacing
        var pending = ByteBuffer(bytes: header)
        let partSize = self.partSize
        try await store(blob) {
            // Parts of the source after its old header, read range by range.
            while pending.readableBytes < partSize, position < size {
                let end = min(size, position + Int64(partSize - pending.readableBytes))
                try await read(blob: source, range: position..<end, chunk: partSize) { chunk in
                    var chunk = chunk
                    pending.writeBuffer(&chunk)
                }
                position = end
            }
            let part = pending.readSlice(length: min(partSize, pending.readableBytes)) ?? ByteBuffer()
            pending.discardReadBytes()
            part.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
            total += Int64(part.readableBytes)
            return part
        }
        return (total, hash.finalize().map { String(format: "%02x", $0) }.joined())
    }

    /// The parts of an open multipart upload can't be read back from S3, so no transfer
    /// streams from this store: each is made once its upload is whole.
    public var readsUploadsInProgress: Bool { false }

    public func read(upload: String, range: Range<Int64>, chunk: Int,
                     into write: (ByteBuffer) async throws -> Void) async throws {
        throw BlobStoreError.missing(upload)
    }

    public func read(blob: String, range: Range<Int64>, chunk: Int, into write: (ByteBuffer) async throws -> Void) async throws {
        try await s3("cannot read blob \(blob)", blob: blob) { try await client.get(key(blob), range: range, into: write) }
    }
}
