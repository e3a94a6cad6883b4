import Foundation
import Hummingbird
import VFSRelayProtocol

/// `/v1/cloud/{path…}`: the user's folders and files. GET lists a folder or downloads a
/// file (with Range), POST `{"kind": "folder"}` makes a folder, PUT `{"upload": id}`
/// stores a finished upload as a file, PATCH `{"to": path}` renames or moves, DELETE
/// removes (folders recursively). Names are metadata the relay sees; contents are
/// ciphertext.
struct CloudController {
    let services: RelayServices

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        for path in [RelayPaths.cloud, RelayPaths.cloud + "/**"] {
            group.get(RouterPath(path), use: get)
        }
        let item = RouterPath(RelayPaths.cloud + "/**")
        group.post(item, use: mkdir)
        group.put(item, use: put)
        group.patch(item, use: move)
        group.delete(item, use: delete)
    }

    /// The path's names, percent-decoded and checked.
    static func path(_ context: RelayRequestContext) throws -> [String] {
        try context.parameters.getCatchAll().filter { !$0.isEmpty }.map { part in
            guard let name = String(part).removingPercentEncoding else { throw RelayError.badRequest("invalid path") }
            try Validate.cloudName(name)
            return name
        }
    }

    static func path(_ text: String) throws -> [String] {
        let names = text.split(separator: "/").map(String.init)
        for name in names { try Validate.cloudName(name) }
        return names
    }

    @Sendable func get(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let user = try context.requireIdentity().userID
        let path = try Self.path(context)
        let (entry, children) = try await services.store.cloudList(path: path, user: user)
        if entry.kind == .folder { return try jsonResponse(children) }
        let blob = try await services.store.cloudFile(path: path, user: user)
        return try BlobDownload(blobs: services.blobs).response(blob, request: request)
    }

    @Sendable func mkdir(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let user = try context.requireIdentity().userID
        let path = try Self.path(context)
        let body = try await request.decodeJSON(CloudFolderCreate.self, context: context)
        guard body.kind == .folder else { throw RelayError.badRequest("POST makes folders; PUT {\"upload\": id} stores a file") }
        let entry = try await services.store.cloudMakeFolder(path: path, id: Secrets.id(), user: user, now: Date())
        return try jsonResponse(entry, status: .created)
    }

    @Sendable func put(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let user = try context.requireIdentity().userID
        let path = try Self.path(context)
        guard !path.isEmpty else { throw RelayError.conflict("the root is a folder") }
        let body = try await request.decodeJSON(CloudPut.self, context: context)
        let (entry, released) = try await services.adoptUpload(body.upload, user: user) { blobID in
            try await services.store.cloudPut(path: path, id: Secrets.id(), upload: body.upload, blobID: blobID, user: user, now: Date())
        }
        services.deleteBlobs(released)
        return try jsonResponse(entry, status: .created)
    }

    @Sendable func move(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let user = try context.requireIdentity().userID
        let from = try Self.path(context)
        let body = try await request.decodeJSON(CloudMove.self, context: context)
        let to = try Self.path(body.to)
        guard !from.isEmpty, !to.isEmpty else { throw RelayError.conflict("the root folder cannot be moved or replaced") }
        return try jsonResponse(try await services.store.cloudMove(from: from, to: to, user: user, now: Date()))
    }

    @Sendable func delete(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let user = try context.requireIdentity().userID
        let path = try Self.path(context)
        guard !path.isEmpty else { throw RelayError.conflict("the root folder cannot be deleted") }
        services.deleteBlobs(try await services.store.cloudDelete(path: path, user: user, now: Date()))
        return emptyResponse()
    }
}
