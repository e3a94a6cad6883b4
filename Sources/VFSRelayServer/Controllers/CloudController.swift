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
    let store: any CloudRepository & UsageRepository & SentDigestRepository & DigestRecordRepository

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        for path in [RelayPaths.cloud, RelayPaths.cloud + "/**"] {
            group.get(RouterPath(path), use: get)
        }
        let item = RouterPath(RelayPaths.cloud + "/**")
        group.post(item, use: mkdir)
        group.put(item, use: put)
        group.patch(item, use: move)
        group.delete(item, use: delete)
        group.put(RouterPath(RelayPaths.cloudHeader + "/**"), use: replaceHeader)
        group.get(RouterPath(RelayPaths.cloudUsage), use: usage)
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
        let (entry, children) = try await store.cloudList(path: path, user: user)
        if entry.kind == .folder { return try jsonResponse(children) }
        let blob = try await store.cloudFile(path: path, user: user)
        return try await BlobDownload(blobs: services.blobs, sent: services.metrics.downloadBytes).response(blob, request: request)
    }

    @Sendable func mkdir(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let user = try context.requireIdentity().userID
        let path = try Self.path(context)
        let body = try await request.decodeJSON(CloudFolderCreate.self, context: context)
        guard body.kind == .folder else { throw RelayError.badRequest("POST makes folders; PUT {\"upload\": id} stores a file") }
        let entry = try await store.cloudMakeFolder(path: path, id: Secrets.id(), user: user,
                                                               maxEntries: services.configuration.maxCloudEntries, now: Date())
        return try jsonResponse(entry, status: .created)
    }

    @Sendable func put(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let user = try context.requireIdentity().userID
        let path = try Self.path(context)
        guard !path.isEmpty else { throw RelayError.conflict("the root is a folder") }
        let body = try await request.decodeJSON(CloudPut.self, context: context)
        let device = try context.requireIdentity().deviceID
        let expecting = body.expectation
        let stored: (CloudEntry, [String])
        if let transfer = body.transfer {
            // A cloud file lists its SHA-256: one its transfer deferred (`DeferredDigest`) is worked out first.
            if let blob = try await store.undigestedBlob(transfer: transfer, sender: device) {
                try await store.recordDigest(blob: blob.id, sha256: try await services.blobs.digest(blob: blob))
            }
            stored = try await store.cloudPutTransfer(path: path, id: Secrets.id(), transfer: transfer, sender: device, user: user,
                                                      expecting: expecting, maxEntries: services.configuration.maxCloudEntries, now: Date())
        } else {
            let upload = body.upload ?? ""
            stored = try await services.adoptUpload(upload, user: user) { blobID in
                try await store.cloudPut(path: path, id: Secrets.id(), upload: upload, blobID: blobID, user: user, device: device,
                                         expecting: expecting, maxEntries: services.configuration.maxCloudEntries, now: Date())
            }
        }
        let (entry, released) = stored
        await services.deleteBlobs(released)
        return try jsonResponse(entry, status: .created)
    }

    @Sendable func move(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let user = try context.requireIdentity().userID
        let from = try Self.path(context)
        let body = try await request.decodeJSON(CloudMove.self, context: context)
        let to = try Self.path(body.to)
        guard !from.isEmpty, !to.isEmpty else { throw RelayError.conflict("the root folder cannot be moved or replaced") }
        return try jsonResponse(try await store.cloudMove(from: from, to: to, user: user, now: Date()))
    }

    @Sendable func delete(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let user = try context.requireIdentity().userID
        let path = try Self.path(context)
        guard !path.isEmpty else { throw RelayError.conflict("the root folder cannot be deleted") }
        await services.deleteBlobs(try await services.freeing { try await store.cloudDelete(path: path, user: user, now: Date()) })
        return emptyResponse()
    }

    /// Rekey: a new age header in front of the file's payload, written by the relay as a
    /// new blob from the old one (the client sends the header only). The relay cannot
    /// check the header's MAC (it has no key); it checks that both headers have the
    /// shape of one, so a rekey cannot cut into the payload.
    @Sendable func replaceHeader(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let user = try context.requireIdentity().userID
        let path = try Self.path(context)
        let body = try await request.decodeJSON(CloudHeaderReplace.self, context: context)
        let header = try Self.header(body)
        let blob = try await store.cloudFile(path: path, user: user)
        let made = try await Self.rewrite(blob, header: header, body: body, services: services, what: "file")
        do {
            let (entry, released) = try await store.cloudReplaceBlob(path: path, expected: blob.sha256, with: made, user: user, now: Date())
            await services.deleteBlobs(released)
            return try jsonResponse(entry)
        } catch {
            await services.blobs.deleteBlob(made.id)
            throw error
        }
    }

    /// A rekey's new header, or 400.
    static func header(_ body: CloudHeaderReplace) throws -> [UInt8] {
        guard let header = Data(base64Encoded: body.header).map({ [UInt8]($0) }), looksLikeAgeHeader(header) else {
            throw RelayError.badRequest("\"header\" is not a base64 age header (version line to MAC line)")
        }
        return header
    }

    /// `blob` written again as a new blob with `header` in place of its first `body.length`
    /// bytes (an age header's), when its SHA-256 is still `body.sha256` (412 names the
    /// `what` that changed). The caller records the new blob, or deletes it.
    static func rewrite(_ blob: BlobRef, header: [UInt8], body: CloudHeaderReplace, services: RelayServices,
                        what: String) async throws -> BlobRef {
        guard blob.sha256 == body.sha256 else {
            throw RelayError(.preconditionFailed, .preconditionFailed, "the \(what) changed: its SHA-256 is \(blob.sha256)")
        }
        guard body.length > 0, body.length <= min(blob.size, Int64(maxHeader)) else {
            throw RelayError.badRequest("\"length\" must be the old header's length, 1 to \(min(blob.size, Int64(maxHeader))) bytes")
        }
        var old = [UInt8]()
        try await services.blobs.read(blob: blob.id, range: 0..<body.length, chunk: 64 * 1024) { old += $0.readableBytesView }
        guard looksLikeAgeHeader(old) else {
            throw RelayError.badRequest("the \(what)'s first \(body.length) bytes are not an age header")
        }
        // A rekey writes a whole new copy of the content: it must fit above the disk reserve.
        try services.checkDiskRoom(for: blob.size - body.length + Int64(header.count))
        let newID = Secrets.id()
        let made = try await services.blobs.rewrite(blob: blob.id, replacing: body.length, with: header, as: newID)
        return BlobRef(id: newID, size: made.size, sha256: made.sha256)
    }

    /// The largest header accepted (age's own limit in VFSCore).
    static let maxHeader = 4 << 20

    /// `age-encryption.org/v1\n` … `\n--- ` + 43 base64 characters + `\n`.
    static func looksLikeAgeHeader(_ bytes: [UInt8]) -> Bool {
        let version = Array("age-encryption.org/v1\n".utf8)
        guard bytes.count >= version.count + 48, bytes.count <= maxHeader, bytes.starts(with: version) else { return false }
        let tail = bytes.suffix(49)
        guard tail.starts(with: Array("\n--- ".utf8)), tail.last == 0x0A else { return false }
        return tail.dropFirst(5).dropLast().allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2F }
    }

    /// What the user's cloud holds, and the quota.
    @Sendable func usage(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let user = try context.requireIdentity().userID
        var usage = CloudUsage(files: 0, folders: 0, bytes: 0, used: try await store.usage(user: user),
                               quota: services.configuration.userQuota)
        var pending: [[String]] = [[]]
        while let folder = pending.popLast() {
            for child in try await store.cloudList(path: folder, user: user).1 {
                if child.kind == .folder {
                    usage.folders += 1
                    pending.append(folder + [child.name])
                } else {
                    usage.files += 1
                    usage.bytes += child.size ?? 0
                }
            }
        }
        return try jsonResponse(usage)
    }
}
