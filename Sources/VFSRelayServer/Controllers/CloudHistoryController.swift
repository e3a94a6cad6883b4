import Foundation
import Hummingbird
import VFSRelayProtocol

/// The cloud's history (issue 50): `GET /v1/cloud-log/{path…}` the versions of a file
/// (and of what was at the path before), `GET /v1/cloud-version/{id}` one version's
/// content (with Range), `GET /v1/cloud-trash` the removed files, `POST
/// /v1/cloud-restore/{path…} {"at", "recursive"?}` a file, or a folder's tree, put back
/// as it was at a time; and a rekey's reach into it (item 4): `GET /v1/cloud-versions`
/// every earlier version whose content is kept, `PUT /v1/cloud-version-header/{id}` a new
/// age header for one (and every earlier version on the same blob).
struct CloudHistoryController {
    let services: RelayServices
    let store: any CloudHistoryRepository & CloudVersionRekeyRepository

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        group.get(RouterPath(RelayPaths.cloudLog + "/**"), use: log)
        group.get(RouterPath(RelayPaths.cloudVersion + "/:id"), use: version)
        group.get(RouterPath(RelayPaths.cloudTrash), use: trash)
        group.get(RouterPath(RelayPaths.cloudVersions), use: kept)
        group.put(RouterPath(RelayPaths.cloudVersionHeader + "/:id"), use: replaceHeader)
        for path in [RelayPaths.cloudRestore, RelayPaths.cloudRestore + "/**"] {
            group.post(RouterPath(path), use: restore)
        }
    }

    @Sendable func log(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let user = try context.requireIdentity().userID
        let path = try CloudController.path(context)
        guard !path.isEmpty else { throw RelayError.badRequest("the root is a folder: name a file") }
        return try jsonResponse(try await store.cloudLog(path: path, user: user))
    }

    @Sendable func version(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let user = try context.requireIdentity().userID
        let id = try context.parameters.require("id")
        guard !id.isEmpty, id.utf8.count <= 64 else { throw RelayError.notFound("no version \"\(id)\" whose content is kept") }
        let blob = try await store.cloudVersionBlob(id: id, user: user)
        return try await BlobDownload(blobs: services.blobs, sent: services.metrics.downloadBytes).response(blob, request: request)
    }

    @Sendable func trash(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try jsonResponse(try await store.cloudTrash(user: try context.requireIdentity().userID))
    }

    @Sendable func kept(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try jsonResponse(try await store.cloudKeptVersions(user: try context.requireIdentity().userID))
    }

    /// A rekey of an earlier version, as `CloudController.replaceHeader` of a file: the
    /// relay writes the new header in front of the payload as a new blob, which every
    /// earlier version of the user on the old blob then holds; answers those versions.
    @Sendable func replaceHeader(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let user = try context.requireIdentity().userID
        let id = try context.parameters.require("id")
        guard !id.isEmpty, id.utf8.count <= 64 else { throw RelayError.notFound("no earlier version \"\(id)\" whose content is kept") }
        let body = try await request.decodeJSON(CloudHeaderReplace.self, context: context)
        let header = try CloudController.header(body)
        let blob = try await store.cloudVersionBlob(id: id, user: user)
        let made = try await CloudController.rewrite(blob, header: header, body: body, services: services, what: "version")
        do {
            let (versions, released) = try await store.cloudReplaceVersionBlob(id: id, expected: blob.sha256, with: made, user: user,
                                                                               now: Date())
            await services.deleteBlobs(released)
            return try jsonResponse(versions)
        } catch {
            await services.blobs.deleteBlob(made.id)
            throw error
        }
    }

    @Sendable func restore(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let path = try CloudController.path(context)
        let body = try await request.decodeJSON(CloudRestore.self, context: context)
        let now = Date()
        guard body.at <= now else { throw RelayError.badRequest("\"at\" is in the future") }
        // The end of the microsecond `at` names, and one more: a log's `since` (written
        // rounded down to its microsecond, perhaps one less once read and written again)
        // then includes that version.
        let (restored, released) = try await store.cloudRestore(
            path: path, at: body.at.addingTimeInterval(0.000_002), recursive: body.recursive ?? false, user: identity.userID, device: identity.deviceID,
            maxEntries: services.configuration.maxCloudEntries, now: now)
        await services.deleteBlobs(released)
        return try jsonResponse(restored)
    }
}
