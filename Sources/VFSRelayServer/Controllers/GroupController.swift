import Foundation
import Hummingbird
import VFSRelayProtocol

/// `/v1/groups[/{name}[/members/{device}]]`: named sets of the caller's own devices.
struct GroupController {
    let store: any GroupRepository & DeviceListRepository & DeviceEventRepository

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        let base = RelayPaths.groups
        group.get(RouterPath(base), use: list)
        group.post(RouterPath(base), use: create)
        group.get(RouterPath(base + "/:name"), use: show)
        group.delete(RouterPath(base + "/:name"), use: delete)
        group.put(RouterPath(base + "/:name/members/:device"), use: addMember)
        group.delete(RouterPath(base + "/:name/members/:device"), use: removeMember)
    }

    /// Tells the user's devices a group changed.
    func changed(_ name: String, _ identity: DeviceIdentity) async throws {
        let devices = try await store.devices(user: identity.userID).map(\.id)
        let data = String(decoding: try JSONSerialization.data(withJSONObject: ["group": name], options: [.sortedKeys]), as: UTF8.self)
        try await store.appendEvent(kind: .group, data: data, devices: devices, now: Date())
    }

    @Sendable func list(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try jsonResponse(try await store.groups(user: context.requireIdentity().userID))
    }

    @Sendable func create(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let body = try await request.decodeJSON(GroupCreate.self, context: context)
        try Validate.groupName(body.name)
        let group = try await store.createGroup(name: body.name, members: body.members, user: identity.userID, now: Date())
        try await changed(group.name, identity)
        return try jsonResponse(group, status: .created, headers: [.location: RelayPaths.group(group.name)])
    }

    @Sendable func show(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try jsonResponse(try await store.group(name: pathID(context, "name"), user: context.requireIdentity().userID))
    }

    @Sendable func delete(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let name = try pathID(context, "name")
        try await store.deleteGroup(name: name, user: identity.userID, now: Date())
        try await changed(name, identity)
        return emptyResponse()
    }

    @Sendable func addMember(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let name = try pathID(context, "name")
        let group = try await store.addGroupMember(group: name, device: pathID(context, "device"),
                                                            user: identity.userID, now: Date())
        try await changed(name, identity)
        return try jsonResponse(group)
    }

    @Sendable func removeMember(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let name = try pathID(context, "name")
        let group = try await store.removeGroupMember(group: name, device: pathID(context, "device"),
                                                               user: identity.userID, now: Date())
        try await changed(name, identity)
        return try jsonResponse(group)
    }
}
