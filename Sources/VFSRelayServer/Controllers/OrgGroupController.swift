import Foundation
import Hummingbird
import VFSRelayProtocol

/// `/v1/org/groups[/{name}[/members/{email}]]`: the organisation's groups of people
/// (issue 28). Administrators make them and change their members; a member sees the
/// groups they are in; anyone else is told of none.
struct OrgGroupController {
    let services: RelayServices

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        let base = RelayPaths.orgGroups
        group.get(RouterPath(base), use: list)
        group.post(RouterPath(base), use: create)
        group.get(RouterPath(base + "/:name"), use: show)
        group.put(RouterPath(base + "/:name/members/:email"), use: addMember)
        group.delete(RouterPath(base + "/:name/members/:email"), use: removeMember)
    }

    @Sendable func list(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        return try jsonResponse(try await services.store.orgGroups(org: identity.orgID, member: identity.isAdmin ? nil : identity.userID))
    }

    @Sendable func create(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        guard identity.isAdmin else { throw RelayError.forbidden }
        let body = try await request.decodeJSON(OrgGroupCreate.self, context: context)
        try Validate.groupName(body.name)
        let group = try await services.store.createOrgGroup(org: identity.orgID, name: body.name, actor: identity.deviceID, now: Date())
        return try jsonResponse(group, status: .created, headers: [.location: RelayPaths.orgGroup(group.name)])
    }

    /// An administrator sees any group; a member the groups they are in (404 for others).
    @Sendable func show(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let name = try pathID(context, "name")
        let group = try await services.store.orgGroup(org: identity.orgID, name: name)
        guard identity.isAdmin || group.members.contains(identity.email) else {
            throw RelayError.notFound("no group of people \"\(Validate.shown(name))\"")
        }
        return try jsonResponse(group)
    }

    @Sendable func addMember(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try await change(add: true, context)
    }

    @Sendable func removeMember(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try await change(add: false, context)
    }

    func change(add: Bool, _ context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        guard identity.isAdmin else { throw RelayError.forbidden }
        guard let email = context.parameters.get("email"), !email.isEmpty, email.utf8.count <= 254 else {
            throw RelayError.notFound("not found")
        }
        return try jsonResponse(try await services.store.changeOrgGroupMember(
            org: identity.orgID, group: pathID(context, "name"), email: email, add: add, actor: identity.deviceID, now: Date()))
    }
}
