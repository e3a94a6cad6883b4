import Foundation
import HTTPTypes
import Hummingbird
import VFSRelayProtocol

/// `/v1/transfers`, `/v1/inbox`, `/v1/outbox`, `/v1/transfers/{id}/content|ack|decline`:
/// one blob sent to several of the sender's devices, and to devices of other users of the
/// same organisation, one outbox row per device; the sender's quota holds it.
struct TransferController {
    let services: RelayServices
    let store: any TransferRepository & UploadWriterRepository & StreamingRepository & InboxDigestRepository & DigestRecordRepository & RetentionLookupRepository
    /// Reads a transfer's content while its upload still runs.
    let follower: UploadFollower

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        group.post(RouterPath(RelayPaths.transfers), use: create)
        group.get(RouterPath(RelayPaths.inbox), use: inbox)
        group.get(RouterPath(RelayPaths.outbox), use: outbox)
        group.getAndHead(RouterPath(RelayPaths.transfers + "/:id/content"), use: content)
        group.post(RouterPath(RelayPaths.transfers + "/:id/ack"), use: ack)
        group.post(RouterPath(RelayPaths.transfers + "/:id/decline"), use: decline)
        group.delete(RouterPath(RelayPaths.transfers + "/:id"), use: cancel)
    }

    @Sendable func create(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let body = try await request.decodeJSON(TransferCreate.self, context: context)
        let now = Date()
        let configuration = services.configuration
        let expires = try configuration.expiry(asked: body.expires, now: now)
        // With S3 blobs an upload in progress can't be read back: made once it is whole
        // (the unfinished upload is 409 below, and vfs-push makes it after the upload).
        if body.streaming == true, services.blobs.readsUploadsInProgress, let entry = try await createStreaming(body, sender: identity, expires: expires, now: now) {
            return try jsonResponse(entry, status: .created)
        }
        // Under the organisation's minimum retention the blob is locked as long, where the
        // store can (the database keeps the transfer as long in any case).
        let lockedUntil = try await store.minRetention(org: identity.orgID).map { now.addingTimeInterval(TimeInterval($0)) }
        let entry = try await services.adoptUpload(body.upload, user: identity.userID, needsDigest: false, lockedUntil: lockedUntil) { blobID in
            try await store.createTransfer(
                id: Secrets.id(), upload: body.upload, blobID: blobID, sender: identity, devices: body.devices,
                groups: body.groups, users: body.users, expires: expires, now: now)
        }
        return try jsonResponse(entry, status: .created)
    }

    /// A transfer of an upload that may still run (`"streaming": true`); nil when the
    /// upload is finished and no transfer was made of it yet (then it is made the
    /// ordinary way). Asked again after its upload finished (a sender that resumes), the
    /// same transfer, given its blob if the last PATCH could not.
    func createStreaming(_ body: TransferCreate, sender: DeviceIdentity, expires: Date, now: Date) async throws -> OutboxEntry? {
        guard !body.upload.isEmpty, body.upload.utf8.count <= 64 else { throw RelayError.notFound("no upload \"\(body.upload)\"") }
        let store = self.store
        let upload = try await store.upload(id: body.upload, user: sender.userID)
        if let existing = try await store.streamingTransfer(upload: upload.id) {
            if let length = upload.length, upload.offset == length {
                let done: Void? = try await store.withUploadWriteLock(upload.id) {
                    let current = try await store.upload(id: upload.id, user: sender.userID)
                    guard current.offset == length, try await store.streamingTransfer(upload: upload.id) != nil else { return }
                    if current.sha256 == nil {
                        try await store.setUploadOffset(id: upload.id, offset: length,
                                                        sha256: await services.finishedDigest(current, length: length))
                    }
                    try await services.completeStreaming(upload: upload.id)
                }
                guard done != nil else { throw RelayError.conflict("upload \"\(upload.id)\" is busy") }
            }
            guard let entry = try await store.outbox(device: sender.deviceID).first(where: { $0.id == existing }) else {
                throw RelayError.conflict("upload \"\(upload.id)\" was sent by another device")
            }
            return entry
        }
        do {
            let entry = try await store.createStreamingTransfer(id: Secrets.id(), upload: upload.id, sender: sender, devices: body.devices,
                                                                groups: body.groups, users: body.users, expires: expires, now: now)
            return entry
        } catch StoreError.conflict {
            return nil
        }
    }

    static let digestHeader = HTTPField.Name(DeferredDigest.header)!

    /// A client that does not say it does without the listed SHA-256 (`DeferredDigest`;
    /// every client before issue 46) gets it for each finished transfer: the digests
    /// deferred are worked out now, from the blob, and kept.
    @Sendable func inbox(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let device = try context.requireIdentity().deviceID
        if request.headers[Self.digestHeader]?.lowercased() != DeferredDigest.optional {
            for blob in try await store.undigestedBlobs(device: device) {
                let digest: String
                do {
                    digest = try await services.blobs.digest(blob: blob)
                } catch BlobStoreError.missing {
                    continue  // released meanwhile: its copy no longer waits here
                }
                try await store.recordDigest(blob: blob.id, sha256: digest)
            }
        }
        return try jsonResponse(try await store.inbox(device: device))
    }

    @Sendable func outbox(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try jsonResponse(try await store.outbox(device: context.requireIdentity().deviceID))
    }

    @Sendable func content(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let (id, device) = (try pathID(context), try context.requireIdentity().deviceID)
        let download = BlobDownload(blobs: services.blobs, sent: services.metrics.downloadBytes)
        // HEAD (a download manager's probe for the size) leaves the copy unattended.
        switch try await store.openTransfer(id: id, device: device, now: Date(), initiate: request.method != .head) {
        case .blob(let blob):
            return try await download.response(blob, request: request)
        case .uploading(let upload):
            return try download.following(follower, transfer: id, device: device, upload: upload, request: request)
        }
    }

    @Sendable func ack(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try await finish(.delivered, context)
    }

    @Sendable func decline(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try await finish(.declined, context)
    }

    /// The sender withdraws it: waiting copies expire (delivered ones stay delivered).
    @Sendable func cancel(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let (id, sender) = (try pathID(context), try context.requireIdentity().deviceID)
        let (released, upload) = try await services.freeing { try await store.cancelTransfer(id: id, sender: sender, now: Date()) }
        await services.deleteBlobs(released)
        // A transfer withdrawn while it uploaded: its upload is gone too (a PATCH still
        // running ends 404, and so does the sender's next one).
        if let upload { await services.blobs.deleteUpload(upload) }
        return emptyResponse()
    }

    func finish(_ status: TransferStatus, _ context: RelayRequestContext) async throws -> Response {
        let (id, device) = (try pathID(context), try context.requireIdentity().deviceID)
        let released = try await services.freeing { try await store.finishTransfer(id: id, device: device, status: status, now: Date()) }
        await services.deleteBlobs(released)
        return emptyResponse()
    }
}
