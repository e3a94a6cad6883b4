import Foundation
import Hummingbird
import VFSRelayProtocol

/// `/v1/org/groups[/{name}[/members/{email}]]`: the organisation's groups of people
/// (issue 28). Administrators make them and change their members; a member sees the
/// groups they are in; anyone else is told of none. `/v1/org/users`: the organisation's
/// users, whom any of its devices can send to (vfs-push --to completes from it).
struct OrgGroupController {
    let store: any OrgGroupRepository & OrgLookupRepository

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        let base = RelayPaths.orgGroups
        group.get(RouterPath(RelayPaths.orgUsers), use: users)
        group.get(RouterPath(base), use: list)
        group.post(RouterPath(base), use: create)
        group.get(RouterPath(base + "/:name"), use: show)
        group.put(RouterPath(base + "/:name/members/:email"), use: addMember)
        group.delete(RouterPath(base + "/:name/members/:email"), use: removeMember)
    }

    /// `?prefix=` (up to 254 characters) keeps the addresses that begin with it, `?limit=`
    /// (1 to 1000, the default) the first so many, sorted.
    @Sendable func users(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let query = request.uri.queryParameters
        let prefix = query["prefix"].map(String.init) ?? ""
        guard prefix.unicodeScalars.count <= 254 else { throw RelayError.badRequest("prefix is longer than 254 characters") }
        var limit = RelayPaths.orgUsersLimit
        if let text = query["limit"] {
            guard let value = Int(text), (1...RelayPaths.orgUsersLimit).contains(value) else {
                throw RelayError.badRequest("limit takes 1 to \(RelayPaths.orgUsersLimit)")
            }
            limit = value
        }
        let users = try await store.orgUsers(org: identity.orgID).filter { $0.hasPrefix(prefix) }.prefix(limit)
        return try jsonResponse(users.map(OrgUser.init(email:)))
    }

    @Sendable func list(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        return try jsonResponse(try await store.orgGroups(org: identity.orgID, member: identity.isAdmin ? nil : identity.userID))
    }

    @Sendable func create(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        guard identity.isAdmin else { throw RelayError.forbidden }
        let body = try await request.decodeJSON(OrgGroupCreate.self, context: context)
        try Validate.groupName(body.name)
        let group = try await store.createOrgGroup(org: identity.orgID, name: body.name, actor: identity.deviceID, now: Date())
        return try jsonResponse(group, status: .created, headers: [.location: RelayPaths.orgGroup(group.name)])
    }

    /// An administrator sees any group; a member the groups they are in (404 for others).
    @Sendable func show(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let name = try pathID(context, "name")
        let group = try await store.orgGroup(org: identity.orgID, name: name)
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
        return try jsonResponse(try await store.changeOrgGroupMember(
            org: identity.orgID, group: pathID(context, "name"), email: email, add: add, actor: identity.deviceID, now: Date()))
    }
}
