import Foundation
import HTTPTypes
import Hummingbird
import VFSRelayProtocol

/// `/v1/transfers`, `/v1/inbox`, `/v1/outbox`, `/v1/transfers/{id}/content|ack|decline`:
/// one blob sent to several of the sender's devices, and to devices of other users of the
/// same organisation, one outbox row per device; the sender's quota holds it.
struct TransferController {
    let services: RelayServices

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        group.post(RouterPath(RelayPaths.transfers), use: create)
        group.get(RouterPath(RelayPaths.inbox), use: inbox)
        group.get(RouterPath(RelayPaths.outbox), use: outbox)
        group.get(RouterPath(RelayPaths.transfers + "/:id/content"), use: content)
        group.post(RouterPath(RelayPaths.transfers + "/:id/ack"), use: ack)
        group.post(RouterPath(RelayPaths.transfers + "/:id/decline"), use: decline)
        group.delete(RouterPath(RelayPaths.transfers + "/:id"), use: cancel)
    }

    @Sendable func create(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let body = try await request.decodeJSON(TransferCreate.self, context: context)
        let now = Date()
        let configuration = services.configuration
        let expires = body.expires ?? now.addingTimeInterval(configuration.transferLifetime)
        guard expires > now, expires <= now.addingTimeInterval(configuration.maxTransferLifetime) else {
            throw RelayError.badRequest("expires must be in the future and at most \(Int(configuration.maxTransferLifetime / 86400)) days away")
        }
        let entry = try await services.adoptUpload(body.upload, user: identity.userID) { blobID in
            try await services.store.createTransfer(
                id: Secrets.id(), upload: body.upload, blobID: blobID, sender: identity, devices: body.devices,
                groups: body.groups, users: body.users, expires: expires, now: now)
        }
        services.hub.notify(entry.recipients.map(\.device))
        return try jsonResponse(entry, status: .created)
    }

    @Sendable func inbox(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try jsonResponse(try await services.store.inbox(device: context.requireIdentity().deviceID))
    }

    @Sendable func outbox(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try jsonResponse(try await services.store.outbox(device: context.requireIdentity().deviceID))
    }

    @Sendable func content(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let blob = try await services.store.openTransfer(id: pathID(context), device: context.requireIdentity().deviceID, now: Date())
        return try BlobDownload(blobs: services.blobs, sent: services.metrics.downloadBytes).response(blob, request: request)
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
        let released = try await services.freeing { try await services.store.cancelTransfer(id: id, sender: sender, now: Date()) }
        await services.deleteBlobs(released)
        return emptyResponse()
    }

    func finish(_ status: TransferStatus, _ context: RelayRequestContext) async throws -> Response {
        let (id, device) = (try pathID(context), try context.requireIdentity().deviceID)
        let released = try await services.freeing { try await services.store.finishTransfer(id: id, device: device, status: status, now: Date()) }
        await services.deleteBlobs(released)
        return emptyResponse()
    }
}
