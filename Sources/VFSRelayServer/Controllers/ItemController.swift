import Foundation
import Hummingbird
import VFSPolicyModel
import VFSRelayProtocol

/// `/v1/items[/{id}]` (and the seed's `/items[/{id}]`): the organisation's approved
/// apps, vfs-policy's item model. Everyone in the organisation reads; admins write.
/// Each item's ETag is its version; `If-Match` with an older one is 412.
struct ItemController {
    let services: RelayServices
    let store: any ItemRepository & ItemRevisionRepository & PolicyGraceRepository & OrgEventRepository
    let base: String

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        group.get(RouterPath(base), use: list)
        group.post(RouterPath(base), use: create)
        group.get(RouterPath(base + "/:id"), use: show)
        group.put(RouterPath(base + "/:id"), use: update)
        group.delete(RouterPath(base + "/:id"), use: delete)
    }

    static func etag(_ item: VersionedItem) -> String { "\"\(item.item.id)-\(item.version)\"" }

    /// The version an `If-Match` names; `*` or none is no condition.
    static func ifMatch(_ request: Request, id: String) throws -> Int64? {
        guard let header = request.headers[.ifMatch]?.trimmingCharacters(in: .whitespaces), header != "*" else { return nil }
        let prefix = "\"\(id)-"
        guard header.hasPrefix(prefix), header.hasSuffix("\""),
              let version = Int64(header.dropFirst(prefix.count).dropLast()) else {
            throw RelayError(.preconditionFailed, .preconditionFailed, "If-Match \(header) does not match item \"\(id)\"")
        }
        return version
    }

    func requireAdmin(_ context: RelayRequestContext) throws -> DeviceIdentity {
        let identity = try context.requireIdentity()
        guard identity.isAdmin else { throw RelayError.forbidden }
        return identity
    }

    func draft(_ request: Request, _ context: RelayRequestContext) async throws -> ItemDraft {
        let draft = try await request.decodeJSON(ItemDraft.self, context: context)
        if let problem = draft.problem { throw RelayError.badRequest(problem) }
        try Validate.name(draft.name.isEmpty ? "-" : draft.name, what: "item name")
        return draft
    }

    func changed(_ id: String, _ change: String, _ identity: DeviceIdentity) async throws {
        let data = String(decoding: try JSONSerialization.data(withJSONObject: ["item": id, "change": change], options: [.sortedKeys]),
                          as: UTF8.self)
        _ = try await store.appendEventToOrganisation(kind: .policy, data: data, org: identity.orgID, now: Date())
    }

    /// The list, with the organisation's items revision as its ETag and its offline
    /// grace in `VFS-Policy-Grace`, so a device's cache records both.
    @Sendable func list(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let org = try context.requireIdentity().orgID
        // The revision is read first: a list read after it is at least that new, so it
        // is never cached under a revision newer than its content. A grace change bumps
        // the revision too, so the kept grace is as current as the kept list.
        let revision = try await store.itemsRevision(org: org)
        let kept: (body: ByteBuffer, grace: Int64)
        if let cached = services.itemLists.list(org: org, revision: revision) {
            kept = cached
        } else {
            let body = ByteBuffer(bytes: try RelayJSON.encoder().encode(try await store.items(org: org).map(\.item)))
            let grace = try await store.policyGrace(org: org) ?? PolicySettings.defaultGraceSeconds
            kept = (body, grace)
            services.itemLists.store(body, grace: grace, org: org, revision: revision)
        }
        return Response(status: .ok,
                        headers: [.contentType: "application/json", .eTag: "\"r\(revision)\"", .policyGrace: String(kept.grace)],
                        body: .init(byteBuffer: kept.body))
    }

    @Sendable func show(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let item = try await store.item(id: pathID(context), org: context.requireIdentity().orgID)
        return try jsonResponse(item.item, headers: [.eTag: Self.etag(item)])
    }

    @Sendable func create(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try requireAdmin(context)
        let draft = try await draft(request, context)
        var id = Secrets.itemID()
        while id == draft.app { id = Secrets.itemID() }
        let item = try await store.createItem(draft, id: id, actor: identity, now: Date())
        try await changed(id, "add", identity)
        return try jsonResponse(item.item, status: .created, headers: [.eTag: Self.etag(item), .location: "\(base)/\(id)"])
    }

    @Sendable func update(_ request: Request, context: RelayRequestContext) async throws -> Response {
        // Another organisation's item is 404 for everyone, admin or not.
        let id = try pathID(context)
        _ = try await store.item(id: id, org: context.requireIdentity().orgID)
        let identity = try requireAdmin(context)
        // A request that is wrong in itself (no body, a bad one) is 400 whatever its
        // precondition says (RFC 9110 13.2.1: conditions are weighed after the request's own checks).
        let draft = try await draft(request, context)
        let version = try Self.ifMatch(request, id: id)
        let item = try await store.updateItem(id: id, draft, ifVersion: version, actor: identity, now: Date())
        try await changed(id, "update", identity)
        return try jsonResponse(item.item, headers: [.eTag: Self.etag(item)])
    }

    @Sendable func delete(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let id = try pathID(context)
        _ = try await store.item(id: id, org: context.requireIdentity().orgID)
        let identity = try requireAdmin(context)
        try await store.deleteItem(id: id, ifVersion: Self.ifMatch(request, id: id), actor: identity, now: Date())
        try await changed(id, "delete", identity)
        return emptyResponse()
    }
}

/// `/v1/policy/settings`: the organisation's policy settings. Everyone in the
/// organisation reads them; admins change them, and every device of the organisation
/// gets a `policy` event (the settings come with the list).
struct PolicySettingsController {
    let store: any PolicyGraceRepository & PolicyGraceWriteRepository & OrgEventRepository

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        group.get(RouterPath(RelayPaths.policySettings), use: show)
        group.put(RouterPath(RelayPaths.policySettings), use: update)
    }

    @Sendable func show(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let org = try context.requireIdentity().orgID
        let grace = try await store.policyGrace(org: org) ?? PolicySettings.defaultGraceSeconds
        return try jsonResponse(PolicySettings(graceSeconds: grace))
    }

    @Sendable func update(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        guard identity.isAdmin else { throw RelayError.forbidden }
        let settings = try await request.decodeJSON(PolicySettings.self, context: context)
        let range = PolicySettings.graceRange
        guard range.contains(settings.graceSeconds) else {
            throw RelayError.badRequest("graceSeconds \(settings.graceSeconds) is out of range (\(range.lowerBound) to \(range.upperBound))")
        }
        try await store.setPolicyGrace(org: identity.orgID, seconds: settings.graceSeconds, actor: identity, now: Date())
        let data = #"{"change":"settings"}"#
        _ = try await store.appendEventToOrganisation(kind: .policy, data: data, org: identity.orgID, now: Date())
        return try jsonResponse(settings)
    }
}
