import Foundation
import HTTPTypes
import Hummingbird
import VFSRelayProtocol

/// `/v1/uploads[/{id}]`: resumable uploads, tus 1.0 (core, creation,
/// creation-defer-length, termination, expiration, checksum; `X-HTTP-Method-Override`
/// on an upload's requests). Bytes go straight to the upload's
/// file; the offset is recorded as they land, so an upload resumes after a dropped
/// connection or a relay restart. An upload created with `Upload-Defer-Length: 1` (a
/// sender streaming what it has not finished making) has no length until a PATCH
/// declares it with `Upload-Length`, once; until then it is not finished, so no transfer
/// or cloud file can be made of it.
struct UploadController {
    let services: RelayServices
    let store: any UploadRepository & UploadWriterRepository & UsageRepository & AuditRepository

    func addRoutes(discovery router: Router<RelayRequestContext>, to group: RouterGroup<RelayRequestContext>) {
        router.on(RouterPath(RelayPaths.uploads), method: .options, use: options)
        group.post(RouterPath(RelayPaths.uploads), use: create)
        for method in [HTTPRequest.Method.head, .patch, .delete, .post] {
            group.on(RouterPath(RelayPaths.uploads + "/:id"), method: method, use: dispatch)
        }
    }

    /// An upload's request by its method, or by `X-HTTP-Method-Override` when it has one
    /// (tus core: the header MUST be taken as the method and the actual one ignored, for
    /// clients that cannot send PATCH or DELETE, which send POST). A POST without it is
    /// 405, as is any other method named.
    @Sendable func dispatch(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let method = request.headers[.xHTTPMethodOverride]?.uppercased() ?? request.method.rawValue
        switch method {
        case "HEAD": return try await head(request, context: context)
        case "PATCH": return try await patch(request, context: context)
        case "DELETE": return try await terminate(request, context: context)
        default:
            let allowed = "DELETE, HEAD, PATCH, POST"
            throw RelayError(.methodNotAllowed, .methodNotAllowed,
                             "\(method) is not a method of an upload (a POST names one in X-HTTP-Method-Override: PATCH, DELETE or HEAD)",
                             headers: [.allow: allowed])
        }
    }

    var tusHeaders: HTTPFields { [.tusResumable: TusProtocol.version, .cacheControl: "no-store"] }

    func checkVersion(_ request: Request) throws {
        guard request.headers[.tusResumable] == TusProtocol.version else {
            throw RelayError(.preconditionFailed, .preconditionFailed, "this relay speaks tus \(TusProtocol.version) (Tus-Resumable header)",
                             headers: [.tusVersion: TusProtocol.version])
        }
    }

    /// A live upload of the caller; an expired one is gone.
    func upload(_ context: RelayRequestContext) async throws -> UploadRecord {
        let upload = try await store.upload(id: pathID(context), user: context.requireIdentity().userID)
        guard upload.expires > Date() else { throw RelayError.notFound("no upload \"\(upload.id)\"") }
        return upload
    }

    @Sendable func options(_ request: Request, context: RelayRequestContext) async throws -> Response {
        emptyResponse(headers: [
            .tusResumable: TusProtocol.version, .tusVersion: TusProtocol.version,
            .tusExtension: TusProtocol.extensions, .tusMaxSize: "\(services.configuration.maxUploadSize)",
            .tusChecksumAlgorithm: TusChecksum.algorithms.joined(separator: ","),
        ])
    }

    @Sendable func create(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        try checkVersion(request)
        let length: Int64?
        if let deferred = request.headers[.uploadDeferLength] {
            guard deferred == "1" else { throw RelayError.badRequest("Upload-Defer-Length must be 1") }
            guard request.headers[.uploadLength] == nil else {
                throw RelayError.badRequest("send Upload-Length or Upload-Defer-Length, not both")
            }
            length = nil
        } else {
            guard let text = request.headers[.uploadLength], let value = HeaderNumbers.byteCount(text) else {
                throw RelayError.badRequest("Upload-Length is needed (a whole number of bytes, or Upload-Defer-Length: 1)")
            }
            length = value
        }
        let metadata = request.headers[.uploadMetadata] ?? ""
        guard metadata.utf8.count <= 4096 else { throw RelayError.badRequest("Upload-Metadata is longer than 4096 bytes") }
        // A quick refusal before the disk's (the store checks the quota again as it counts the upload).
        try await checkLimits(length ?? 0, user: identity.userID, before: 0)
        try services.checkDiskRoom(for: length ?? 0)
        let now = Date()
        let record = UploadRecord(id: Secrets.id(), userID: identity.userID, deviceID: identity.deviceID, length: length, offset: 0,
                                  metadata: metadata, created: now, expires: services.configuration.uploadExpiry(created: now, now: now))
        try await services.blobs.createUpload(record.id)
        do {
            // The quota and the cap on open uploads, checked as the upload is counted.
            try await store.createUpload(record, limits: UploadLimits(quota: services.configuration.userQuota,
                                                                              openUploads: services.configuration.maxOpenUploads))
        } catch {
            await services.blobs.deleteUpload(record.id)
            throw error
        }
        try await store.audit(org: identity.orgID, actor: identity.deviceID, action: "upload.create", subject: record.id,
                                       detail: length.map { "\($0) bytes" } ?? "deferred length", now: now)
        if length == 0 {
            try await store.setUploadOffset(id: record.id, offset: 0, sha256: await services.blobs.digest(upload: record.id, length: 0))
        }
        var headers = tusHeaders
        headers[.location] = RelayPaths.upload(record.id)
        headers[.uploadOffset] = "0"
        headers[.uploadExpires] = httpDate(record.expires)
        return emptyResponse(.created, headers: headers)
    }

    @Sendable func head(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try checkVersion(request)
        let upload = try await upload(context)
        var headers = tusHeaders
        headers[.uploadOffset] = "\(upload.offset)"
        if let length = upload.length {
            headers[.uploadLength] = "\(length)"
        } else {
            headers[.uploadDeferLength] = "1"
        }
        headers[.uploadExpires] = httpDate(upload.expires)
        if !upload.metadata.isEmpty { headers[.uploadMetadata] = upload.metadata }
        return emptyResponse(.ok, headers: headers)
    }

    @Sendable func patch(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try checkVersion(request)
        let upload = try await upload(context)
        guard request.headers[.contentType]?.lowercased() == TusProtocol.offsetContentType else {
            throw RelayError(.unsupportedMediaType, .unsupportedMediaType, "a PATCH body is \(TusProtocol.offsetContentType)")
        }
        guard let text = request.headers[.uploadOffset], let offset = HeaderNumbers.byteCount(text) else {
            throw RelayError.badRequest("Upload-Offset is needed (a whole number of bytes)")
        }
        // Checked before a byte is read: an algorithm the relay lacks is 400.
        let checksum = try request.headers[.uploadChecksum].map { BodyHash(try TusChecksum.expected($0)) }
        let store = self.store
        // One writer per upload, whichever relay instance the PATCH reached (the store's
        // lock: an advisory lock of PostgreSQL when several instances share it); the
        // other gets 409 and, as tus clients do, asks HEAD for the offset and goes on.
        let written = try await store.withUploadWriteLock(upload.id) { () async throws -> (end: Int64, expires: Date) in
            // Read again under the lock: a request that just ended may have moved it on.
            let current = try await store.upload(id: upload.id, user: upload.userID)
            guard offset == current.offset else {
                throw RelayError(.conflict, .conflict, "Upload-Offset \(offset) is not the upload's offset \(current.offset)",
                                 headers: [.uploadOffset: "\(current.offset)"])
            }
            // Bytes come: the idle expiry starts again (and again at every sync).
            let configuration = services.configuration
            try await store.touchUpload(id: current.id, expires: configuration.uploadExpiry(created: current.created, now: Date()))
            // The deferred length, declared once by a PATCH (usually the last) when the sender knows it.
            var length = current.length
            if let text = request.headers[.uploadLength] {
                guard length == nil else {
                    throw RelayError.badRequest("upload \"\(current.id)\" already has its Upload-Length (\(length!)); it is set once")
                }
                guard let value = HeaderNumbers.byteCount(text), value >= offset else {
                    throw RelayError.badRequest("Upload-Length must be a whole number of bytes, at least the offset \(offset)")
                }
                try await checkLimits(value, user: current.userID, before: offset)
                length = value
            }
            let declared = try request.headers[.contentLength].map { text in
                guard let count = HeaderNumbers.byteCount(text) else { throw RelayError.badRequest("Content-Length must be a whole number of bytes") }
                return count
            }
            if let length, let declared, !HeaderNumbers.fits(declared, at: offset, within: length) {
                throw RelayError(.contentTooLarge, .tooLarge, "the body runs past Upload-Length (\(length))")
            }
            if let length, length != current.length {
                do {
                    try await store.setUploadLength(id: current.id, length: length, quota: services.configuration.userQuota)
                } catch StoreError.conflict {
                    throw RelayError.badRequest("upload \"\(current.id)\" already has its Upload-Length; it is set once")
                }
            }
            // Without a length yet, the body may run up to the size cap and the user's quota.
            let allowed: Int64
            if let length {
                allowed = length
            } else {
                allowed = try await store.reserveDeferred(id: current.id, offset: offset, cap: services.configuration.maxUploadSize,
                                                          quota: services.configuration.userQuota)
            }
            // A deferred upload's reservation is given back however the PATCH ends.
            let end: Int64
            do {
                end = try await append(PatchBody(base: request.body, hash: checksum), to: current.id, offset: offset, allowed: allowed,
                                       length: length, created: current.created, checksum: checksum, hashing: !current.defersDigest)
            } catch {
                if length == nil { try? await store.releaseReservation(id: current.id) }
                throw error
            }
            if length == nil { try await store.releaseReservation(id: current.id) }
            let id = current.id
            // Removed while it was written (its transfer cancelled, or the upload
            // terminated or expired): what arrived has nowhere to go.
            do {
                _ = try await store.upload(id: id, user: current.userID)
            } catch StoreError.notFound {
                throw RelayError.notFound("no upload \"\(id)\"")
            }
            services.metrics.uploadBytes.increment(by: end - offset)
            if end == length {
                services.metrics.uploadsFinished.increment()
                // Hashed as the bytes were written (read again only where this instance did not
                // write them); none for an upload that deferred its digest.
                try await store.setUploadOffset(id: id, offset: end, sha256: try await services.finishedDigest(current, length: end))
                // A transfer made while it uploaded gets its blob now (its readers read on).
                try await services.completeStreaming(upload: id)
            }
            return (end, configuration.uploadExpiry(created: current.created, now: Date()))
        }
        guard let written else { throw RelayError.conflict("another request is writing upload \"\(upload.id)\"") }
        var headers = tusHeaders
        headers[.uploadOffset] = "\(written.end)"
        headers[.uploadExpires] = httpDate(written.expires)
        return emptyResponse(.noContent, headers: headers)
    }

    /// Writes the body at `offset`, up to `allowed` (and never into the disk reserve: past
    /// it 507, what arrived before is kept). The new offset. With `checksum` the bytes
    /// count only once the whole body arrived and matched it: a mismatch is 460, and a
    /// body cut short or refused (413, 507) leaves the upload at `offset`.
    /// `hashing`: the bytes are hashed as they are written (not for an upload that deferred its digest).
    func append<Body: AsyncSequence & Sendable>(_ body: Body, to id: String, offset: Int64, allowed: Int64, length: Int64?, created: Date,
                                                checksum: BodyHash?, hashing: Bool = true) async throws -> Int64 where Body.Element == ByteBuffer {
        let store = self.store
        let configuration = services.configuration
        let room = services.configuration.diskRoom
        guard room > 0 || allowed == offset else { throw RelayError.diskFull }
        let limit = min(allowed, offset.addingReportingOverflow(room).overflow ? Int64.max : offset + room)
        do {
            let accept: (@Sendable () async throws -> Void)? = checksum.map { hash in { @Sendable in try hash.check() } }
            return try await services.blobs.append(body, upload: id, offset: offset, limit: limit, hashing: hashing, accept: accept) { position in
                try await store.setUploadOffset(id: id, offset: position, sha256: nil)
                try await store.touchUpload(id: id, expires: configuration.uploadExpiry(created: created, now: Date()))
            }
        } catch BlobStoreError.tooLong {
            if limit < allowed { throw RelayError.diskFull }
            if let length { throw RelayError(.contentTooLarge, .tooLarge, "the body runs past Upload-Length (\(length))") }
            if allowed < services.configuration.maxUploadSize {
                throw RelayError(.contentTooLarge, .quotaExceeded,
                                 "this upload would pass the quota of \(services.configuration.userQuota) bytes (it may hold \(allowed))")
            }
            throw RelayError(.contentTooLarge, .tooLarge, "the upload would pass the size cap (\(limit) bytes)",
                             headers: [.tusMaxSize: "\(services.configuration.maxUploadSize)"])
        }
    }

    /// A whole body in one request, no tus (a file request's PUT): an upload of `user`
    /// with no length declared, written up to the size cap, the quota and the disk's
    /// reserve (413, 507 past them), finished at the body's end. Its id; on any failure
    /// (the body's own refusal too) the upload is gone.
    func receiveWhole<Body: AsyncSequence & Sendable>(_ body: Body, user: Int64, device: String, org: Int64, cap: Int64) async throws -> String
        where Body.Element == ByteBuffer {
        let configuration = services.configuration
        try services.checkDiskRoom(for: 0)
        let now = Date()
        let record = UploadRecord(id: Secrets.id(), userID: user, deviceID: device, length: nil, offset: 0, metadata: "", created: now,
                                  expires: configuration.uploadExpiry(created: now, now: now))
        try await services.blobs.createUpload(record.id)
        do {
            try await store.createUpload(record, limits: UploadLimits(quota: configuration.userQuota, openUploads: configuration.maxOpenUploads))
        } catch {
            await services.blobs.deleteUpload(record.id)
            throw error
        }
        do {
            let allowed = try await store.reserveDeferred(id: record.id, offset: 0, cap: min(cap, configuration.maxUploadSize),
                                                         quota: configuration.userQuota)
            let end: Int64
            do {
                end = try await append(body, to: record.id, offset: 0, allowed: allowed, length: nil, created: now, checksum: nil)
            } catch {
                try? await store.releaseReservation(id: record.id)
                throw error
            }
            try await store.releaseReservation(id: record.id)
            try await store.setUploadLength(id: record.id, length: end, quota: configuration.userQuota)
            try await store.setUploadOffset(id: record.id, offset: end, sha256: await services.blobs.digest(upload: record.id, length: end))
            services.metrics.uploadBytes.increment(by: end)
            services.metrics.uploadsFinished.increment()
            try await store.audit(org: org, actor: device, action: "upload.create", subject: record.id, detail: "\(end) bytes, in one request",
                                  now: Date())
            return record.id
        } catch {
            await discard(record.id, user: user)
            throw error
        }
    }

    /// Removes an upload `receiveWhole` made that nothing took.
    func discard(_ id: String, user: Int64) async {
        await services.blobs.deleteUpload(id)
        try? await services.freeing { try await store.deleteUpload(id: id, user: user) }
    }

    /// Refuses (413) an upload of `length` bytes past the size cap, or past the quota
    /// given that `before` of its bytes are already counted in the user's usage.
    func checkLimits(_ length: Int64, user: Int64, before: Int64) async throws {
        let configuration = services.configuration
        guard length <= configuration.maxUploadSize else {
            throw RelayError(.contentTooLarge, .tooLarge, "an upload may be at most \(configuration.maxUploadSize) bytes",
                             headers: [.tusMaxSize: "\(configuration.maxUploadSize)"])
        }
        let used = try await max(0, store.usage(user: user) - before)
        guard HeaderNumbers.fits(length, at: used, within: configuration.userQuota) else {
            throw RelayError(.contentTooLarge, .quotaExceeded,
                             "this upload would pass the quota of \(configuration.userQuota) bytes (\(used) in use)")
        }
    }

    @Sendable func terminate(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try checkVersion(request)
        // Past its expiry but not swept yet (a PATCH that stalled still holds it) it goes
        // all the same: its sender withdraws it.
        let upload = try await store.upload(id: pathID(context), user: context.requireIdentity().userID)
        // The file first: on a full disk its space is what lets the database write the delete.
        await services.blobs.deleteUpload(upload.id)
        try await services.freeing { try await store.deleteUpload(id: upload.id, user: upload.userID) }
        let identity = try context.requireIdentity()
        try await store.audit(org: identity.orgID, actor: identity.deviceID, action: "upload.delete", subject: upload.id,
                                       detail: "", now: Date())
        return emptyResponse(.noContent, headers: [.tusResumable: TusProtocol.version])
    }
}
