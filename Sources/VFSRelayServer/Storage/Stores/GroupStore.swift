import Foundation
import VFSRelayProtocol

extension StoreRows {
    /// A live device of the user, or not found.
    static func ownedDevice(_ db: any SQLConnection, id: String, user: Int64) async throws -> SQLRow {
        guard let row = try await db.one("SELECT * FROM devices WHERE id = \(id) AND user_id = \(user) AND invalidated IS NULL")
        else { throw StoreError.notFound("no device \"\(id)\"") }
        return row
    }
}

/// Device groups: a user's named sets of their own live devices, a transfer's targets.
extension SQLRelayStore {
    public func groups(user: Int64) async throws -> [DeviceGroup] {
        try await sql.database.read { db in
            var groups = [DeviceGroup]()
            for name in try await db.values("SELECT name FROM device_groups WHERE user_id = \(user) ORDER BY name", as: String.self) {
                groups.append(try await StoreRows.group(db, name: name, user: user))
            }
            return groups
        }
    }

    public func group(name: String, user: Int64) async throws -> DeviceGroup {
        try await sql.database.read { db in try await StoreRows.group(db, name: name, user: user) }
    }

    public func createGroup(name: String, members: [String], user: Int64, now: Date) async throws -> DeviceGroup {
        try await sql.database.write { db in
            if try await db.one("SELECT 1 FROM device_groups WHERE user_id = \(user) AND name = \(name)") != nil {
                throw StoreError.conflict("group \"\(name)\" already exists")
            }
            for (n, member) in members.enumerated() {
                _ = try await StoreRows.ownedDevice(db, id: member, user: user)
                if members[..<n].contains(member) { throw StoreError.invalid("device \"\(member)\" is listed twice") }
            }
            guard let id = try await db.value("""
                INSERT INTO device_groups(user_id, name, created) VALUES (\(user), \(name), \(now)) RETURNING id
                """, as: Int64.self) else { throw StoreError.conflict("group \"\(name)\" already exists") }
            for member in members {
                try await db.run("INSERT INTO group_members(group_id, device_id) VALUES (\(id), \(member))")
            }
            try await StoreRows.audit(db, org: nil, actor: "user:\(user)", action: "group.create", subject: name, now: now)
            return try await StoreRows.group(db, name: name, user: user)
        }
    }

    public func addGroupMember(group: String, device: String, user: Int64, now: Date) async throws -> DeviceGroup {
        try await sql.database.write { db in
            _ = try await StoreRows.group(db, name: group, user: user)
            _ = try await StoreRows.ownedDevice(db, id: device, user: user)
            try await db.run("""
                INSERT INTO group_members(group_id, device_id)
                SELECT id, \(device) FROM device_groups WHERE user_id = \(user) AND name = \(group) ON CONFLICT DO NOTHING
                """)
            try await StoreRows.audit(db, org: nil, actor: "user:\(user)", action: "group.add", subject: group, detail: device,
                                      now: now)
            return try await StoreRows.group(db, name: group, user: user)
        }
    }

    public func removeGroupMember(group: String, device: String, user: Int64, now: Date) async throws -> DeviceGroup {
        try await sql.database.write { db in
            guard try await db.one("""
                DELETE FROM group_members WHERE device_id = \(device)
                AND group_id = (SELECT id FROM device_groups WHERE user_id = \(user) AND name = \(group)) RETURNING device_id
                """) != nil else {
                _ = try await StoreRows.group(db, name: group, user: user)
                throw StoreError.notFound("no device \"\(device)\" in group \"\(group)\"")
            }
            try await StoreRows.audit(db, org: nil, actor: "user:\(user)", action: "group.remove", subject: group, detail: device,
                                      now: now)
            return try await StoreRows.group(db, name: group, user: user)
        }
    }

    public func deleteGroup(name: String, user: Int64, now: Date) async throws {
        try await sql.database.write { db in
            guard try await db.one("DELETE FROM device_groups WHERE user_id = \(user) AND name = \(name) RETURNING id") != nil else {
                throw StoreError.notFound("no group \"\(name)\"")
            }
            try await StoreRows.audit(db, org: nil, actor: "user:\(user)", action: "group.delete", subject: name, now: now)
        }
    }
}
