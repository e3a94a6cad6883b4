import Foundation
import HTTPTypes
import Hummingbird
import VFSRelayProtocol

/// `/v1/uploads[/{id}]`: resumable uploads, tus 1.0 (core, creation, termination,
/// expiration). Bytes go straight to the upload's file; the offset is recorded as they
/// land, so an upload resumes after a dropped connection or a relay restart.
struct UploadController {
    let services: RelayServices

    func addRoutes(discovery router: Router<RelayRequestContext>, to group: RouterGroup<RelayRequestContext>) {
        router.on(RouterPath(RelayPaths.uploads), method: .options, use: options)
        group.post(RouterPath(RelayPaths.uploads), use: create)
        group.head(RouterPath(RelayPaths.uploads + "/:id"), use: head)
        group.patch(RouterPath(RelayPaths.uploads + "/:id"), use: patch)
        group.delete(RouterPath(RelayPaths.uploads + "/:id"), use: terminate)
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
        let upload = try await services.store.upload(id: pathID(context), user: context.requireIdentity().userID)
        guard upload.expires > Date() else { throw RelayError.notFound("no upload \"\(upload.id)\"") }
        return upload
    }

    @Sendable func options(_ request: Request, context: RelayRequestContext) async throws -> Response {
        emptyResponse(headers: [
            .tusResumable: TusProtocol.version, .tusVersion: TusProtocol.version,
            .tusExtension: TusProtocol.extensions, .tusMaxSize: "\(services.configuration.maxUploadSize)",
        ])
    }

    @Sendable func create(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        try checkVersion(request)
        if request.headers[.uploadDeferLength] != nil {
            throw RelayError.badRequest("Upload-Defer-Length is not supported: send Upload-Length")
        }
        guard let text = request.headers[.uploadLength], let length = Int64(text), length >= 0 else {
            throw RelayError.badRequest("Upload-Length is needed (a whole number of bytes)")
        }
        let metadata = request.headers[.uploadMetadata] ?? ""
        guard metadata.utf8.count <= 4096 else { throw RelayError.badRequest("Upload-Metadata is longer than 4096 bytes") }
        let configuration = services.configuration
        guard length <= configuration.maxUploadSize else {
            throw RelayError(.contentTooLarge, .tooLarge, "an upload may be at most \(configuration.maxUploadSize) bytes",
                             headers: [.tusMaxSize: "\(configuration.maxUploadSize)"])
        }
        let used = try await services.store.usage(user: identity.userID)
        guard used + length <= configuration.userQuota else {
            throw RelayError(.contentTooLarge, .quotaExceeded,
                             "this upload would pass the quota of \(configuration.userQuota) bytes (\(used) in use)")
        }
        let now = Date()
        let record = UploadRecord(id: Secrets.id(), userID: identity.userID, deviceID: identity.deviceID, length: length, offset: 0,
                                  metadata: metadata, created: now, expires: now.addingTimeInterval(configuration.uploadLifetime))
        try services.blobs.createUpload(record.id)
        do {
            try await services.store.createUpload(record)
        } catch {
            services.blobs.deleteUpload(record.id)
            throw error
        }
        try await services.store.audit(org: identity.orgID, actor: identity.deviceID, action: "upload.create", subject: record.id,
                                       detail: "\(length) bytes", now: now)
        if length == 0 {
            try await services.store.setUploadOffset(id: record.id, offset: 0, sha256: services.blobs.digest(upload: record.id, length: 0))
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
        headers[.uploadLength] = "\(upload.length)"
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
        guard let text = request.headers[.uploadOffset], let offset = Int64(text), offset >= 0 else {
            throw RelayError.badRequest("Upload-Offset is needed (a whole number of bytes)")
        }
        let store = services.store, blobs = services.blobs
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
            if let declared = request.headers[.contentLength].flatMap({ Int64($0) }), offset + declared > current.length {
                throw RelayError(.contentTooLarge, .tooLarge, "the body runs past Upload-Length (\(current.length))")
            }
            let id = current.id
            let end: Int64
            do {
                end = try await blobs.append(request.body, upload: id, offset: offset, limit: current.length) { position in
                    try await store.setUploadOffset(id: id, offset: position, sha256: nil)
                }
            } catch BlobStoreError.tooLong {
                throw RelayError(.contentTooLarge, .tooLarge, "the body runs past Upload-Length (\(current.length))")
            }
            if end == current.length {
                let digest = try blobs.digest(upload: id, length: end)
                try await store.setUploadOffset(id: id, offset: end, sha256: digest)
            }
            return (end, current.expires)
        }
        guard let written else { throw RelayError.conflict("another request is writing upload \"\(upload.id)\"") }
        var headers = tusHeaders
        headers[.uploadOffset] = "\(written.end)"
        headers[.uploadExpires] = httpDate(written.expires)
        return emptyResponse(.noContent, headers: headers)
    }

    @Sendable func terminate(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try checkVersion(request)
        let upload = try await upload(context)
        try await services.store.deleteUpload(id: upload.id, user: upload.userID)
        services.blobs.deleteUpload(upload.id)
        let identity = try context.requireIdentity()
        try await services.store.audit(org: identity.orgID, actor: identity.deviceID, action: "upload.delete", subject: upload.id,
                                       detail: "", now: Date())
        return emptyResponse(.noContent, headers: [.tusResumable: TusProtocol.version])
    }
}
