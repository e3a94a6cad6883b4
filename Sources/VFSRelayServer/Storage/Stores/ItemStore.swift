import Foundation
import VFSPolicyModel
import VFSRelayProtocol

extension StoreRows {
    static let itemEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    static func item(_ row: SQLRow) throws -> VersionedItem {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let stored = try row.decode(ItemRow.self)
        return VersionedItem(item: try decoder.decode(PolicyItem.self, from: Data(stored.body.utf8)), version: stored.version)
    }

    /// The item, locked until the transaction ends.
    static func item(_ db: any SQLConnection, id: String, org: Int64, locked: Bool) async throws -> VersionedItem {
        guard let row = try await db.one("SELECT * FROM items WHERE org_id = \(org) AND id = \(id)\(locked ? SQL.forUpdate : "")")
        else { throw StoreError.notFound("no item \"\(id)\"") }
        return try item(row)
    }

    static func checkApp(_ db: any SQLConnection, app: String, org: Int64, except id: String?) async throws {
        if let other = try await db.value("""
            SELECT id FROM items WHERE org_id = \(org) AND (app = \(app) OR id = \(app))
              AND (CAST(\(id) AS TEXT) IS NULL OR id <> \(id))
            """, as: String.self), other != id {
            throw StoreError.conflict("app \"\(app)\" already has an item (\(other))")
        }
    }

    /// Also serialises item changes within an organisation (the organisation row's lock on
    /// PostgreSQL): the first statement of every item change.
    static func bumpItemsRevision(_ db: any SQLConnection, org: Int64) async throws {
        try await db.run("UPDATE organisations SET items_revision = items_revision + 1 WHERE id = \(org)")
    }

    static func itemBody(_ item: PolicyItem) throws -> String {
        String(decoding: try itemEncoder.encode(item), as: UTF8.self)
    }
}

/// The organisation's approved-apps items (versioned, with the organisation's revision)
/// and its policy grace.
extension SQLRelayStore {
    public func items(org: Int64) async throws -> [VersionedItem] {
        try await sql.database.read { db in try await db.all("SELECT * FROM items WHERE org_id = \(org) ORDER BY app, id").map(StoreRows.item) }
    }

    public func itemsRevision(org: Int64) async throws -> Int64 {
        try await sql.database.read { db in
            try await db.value("SELECT items_revision FROM organisations WHERE id = \(org)", as: Int64.self) ?? 0
        }
    }

    public func item(id: String, org: Int64) async throws -> VersionedItem {
        try await sql.database.read { db in try await StoreRows.item(db, id: id, org: org, locked: false) }
    }

    public func createItem(_ draft: ItemDraft, id: String, actor: DeviceIdentity, now: Date) async throws -> VersionedItem {
        try await sql.database.write { db in
            try await StoreRows.bumpItemsRevision(db, org: actor.orgID)
            try await StoreRows.checkApp(db, app: draft.app, org: actor.orgID, except: nil)
            let item = draft.item(id: id, created: now, updated: now)
            let body = try StoreRows.itemBody(item)
            try await db.run("INSERT INTO items(org_id, id, app, body, version) VALUES (\(actor.orgID), \(id), \(draft.app), \(body), 1)")
            try await StoreRows.audit(db, org: actor.orgID, actor: actor.email, action: "item.add", subject: id, detail: body, now: now)
            return VersionedItem(item: item, version: 1)
        }
    }

    public func updateItem(id: String, _ draft: ItemDraft, ifVersion: Int64?, actor: DeviceIdentity, now: Date) async throws -> VersionedItem {
        try await sql.database.write { db in
            try await StoreRows.bumpItemsRevision(db, org: actor.orgID)
            let current = try await StoreRows.item(db, id: id, org: actor.orgID, locked: true)
            if let ifVersion, ifVersion != current.version {
                throw StoreError.preconditionFailed("item \"\(id)\" changed since (now version \(current.version))")
            }
            try await StoreRows.checkApp(db, app: draft.app, org: actor.orgID, except: id)
            let item = draft.item(id: id, created: current.item.created, updated: now)
            let body = try StoreRows.itemBody(item)
            try await db.run("""
                UPDATE items SET app = \(draft.app), body = \(body), version = version + 1 WHERE org_id = \(actor.orgID) AND id = \(id)
                """)
            try await StoreRows.audit(db, org: actor.orgID, actor: actor.email, action: "item.update", subject: id, detail: body,
                                      now: now)
            return VersionedItem(item: item, version: current.version + 1)
        }
    }

    public func deleteItem(id: String, ifVersion: Int64?, actor: DeviceIdentity, now: Date) async throws {
        try await sql.database.write { db in
            try await StoreRows.bumpItemsRevision(db, org: actor.orgID)
            let current = try await StoreRows.item(db, id: id, org: actor.orgID, locked: true)
            if let ifVersion, ifVersion != current.version {
                throw StoreError.preconditionFailed("item \"\(id)\" changed since (now version \(current.version))")
            }
            try await db.run("DELETE FROM items WHERE org_id = \(actor.orgID) AND id = \(id)")
            try await StoreRows.audit(db, org: actor.orgID, actor: actor.email, action: "item.delete", subject: id,
                                      detail: current.item.app, now: now)
        }
    }

    public func policyGrace(org: Int64) async throws -> Int64? {
        try await sql.database.read { db in try await db.value("SELECT policy_grace FROM organisations WHERE id = \(org)", as: Int64.self) }
    }

    public func setPolicyGrace(org: Int64, seconds: Int64?, actor: DeviceIdentity, now: Date) async throws {
        try await sql.database.write { db in
            try await db.run("UPDATE organisations SET policy_grace = \(seconds) WHERE id = \(org)")
            try await StoreRows.audit(db, org: org, actor: actor.email, action: "policy.grace", subject: "organisation",
                                      detail: seconds.map(String.init) ?? "default", now: now)
            try await StoreRows.bumpItemsRevision(db, org: org)
        }
    }
}
