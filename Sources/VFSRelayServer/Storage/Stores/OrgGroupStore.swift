import Foundation
import VFSRelayProtocol

extension StoreRows {
    /// An organisation's group of people with its members' addresses, sorted.
    static func orgGroup(_ db: any SQLConnection, org: Int64, name: String) async throws -> (id: Int64, group: OrgGroup) {
        guard let id = try await db.value("SELECT id FROM org_groups WHERE org_id = \(org) AND name = \(name)", as: Int64.self) else {
            throw StoreError.notFound("no group of people \"\(Validate.shown(name))\"")
        }
        let members = try await db.values("""
            SELECT u.email FROM org_group_members m JOIN users u ON u.id = m.user_id WHERE m.group_id = \(id) ORDER BY u.email
            """, as: String.self)
        return (id, OrgGroup(name: name, members: members))
    }

    /// A user of the organisation, by address; another organisation's is not found.
    static func orgUser(_ db: any SQLConnection, org: Int64, email: String) async throws -> Int64 {
        guard let id = try await db.value("SELECT id FROM users WHERE email = \(email) AND org_id = \(org)", as: Int64.self) else {
            throw StoreError.notFound("no such user in your organisation: \"\(Validate.shown(email))\"")
        }
        return id
    }
}

/// Organisations' groups of people (issue 28): kept by administrators (the API) and the
/// operator (`vfs-relay group`), read by their members, sent to by `vfs-push --to-group`.
extension SQLRelayStore {
    public func organisationID(name: String) async throws -> Int64 {
        try await sql.database.read { db in
            guard let id = try await db.value("SELECT id FROM organisations WHERE name = \(name)", as: Int64.self) else {
                throw StoreError.notFound("no organisation \"\(Validate.shown(name))\"")
            }
            return id
        }
    }

    public func orgUsers(org: Int64) async throws -> [String] {
        try await sql.database.read { db in
            try await db.values("SELECT email FROM users WHERE org_id = \(org) AND disabled IS NULL ORDER BY email", as: String.self)
        }
    }

    public func orgGroups(org: Int64, member: Int64?) async throws -> [OrgGroup] {
        try await sql.database.read { db in
            let names: [String]
            if let member {
                names = try await db.values("""
                    SELECT g.name FROM org_groups g WHERE g.org_id = \(org)
                    AND EXISTS (SELECT 1 FROM org_group_members m WHERE m.group_id = g.id AND m.user_id = \(member)) ORDER BY g.name
                    """, as: String.self)
            } else {
                names = try await db.values("SELECT name FROM org_groups WHERE org_id = \(org) ORDER BY name", as: String.self)
            }
            var groups = [OrgGroup]()
            for name in names { groups.append(try await StoreRows.orgGroup(db, org: org, name: name).group) }
            return groups
        }
    }

    public func orgGroup(org: Int64, name: String) async throws -> OrgGroup {
        try await sql.database.read { db in try await StoreRows.orgGroup(db, org: org, name: name).group }
    }

    public func createOrgGroup(org: Int64, name: String, actor: String, now: Date) async throws -> OrgGroup {
        try await sql.database.write { db in
            if try await db.one("SELECT 1 FROM org_groups WHERE org_id = \(org) AND name = \(name)") != nil {
                throw StoreError.conflict("a group of people \"\(Validate.shown(name))\" exists already")
            }
            try await db.run("INSERT INTO org_groups(org_id, name, created) VALUES (\(org), \(name), \(now))")
            try await StoreRows.audit(db, org: org, actor: actor, action: "org-group.add", subject: name, now: now)
            return OrgGroup(name: name, members: [])
        }
    }

    /// Adds (`add`) or removes a user of the organisation; adding twice keeps one membership.
    public func changeOrgGroupMember(org: Int64, group name: String, email: String, add: Bool, actor: String,
                                     now: Date) async throws -> OrgGroup {
        try await sql.database.write { db in
            let (id, _) = try await StoreRows.orgGroup(db, org: org, name: name)
            let user = try await StoreRows.orgUser(db, org: org, email: email)
            if add {
                if try await db.one("SELECT 1 FROM org_group_members WHERE group_id = \(id) AND user_id = \(user)") == nil {
                    try await db.run("INSERT INTO org_group_members(group_id, user_id, added) VALUES (\(id), \(user), \(now))")
                }
            } else {
                guard try await db.one("DELETE FROM org_group_members WHERE group_id = \(id) AND user_id = \(user) RETURNING user_id") != nil else {
                    throw StoreError.notFound("\"\(Validate.shown(email))\" is not in the group \"\(Validate.shown(name))\"")
                }
            }
            try await StoreRows.audit(db, org: org, actor: actor, action: add ? "org-group.member-add" : "org-group.member-remove",
                                      subject: name, detail: email, now: now)
            return try await StoreRows.orgGroup(db, org: org, name: name).group
        }
    }
}
