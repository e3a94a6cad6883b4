import Foundation
import VFSRelayProtocol

/// The records and the few statements every area of the store shares, written once over
/// the seam.
enum StoreRows {
    static func device(_ row: SQLRow) throws -> Device {
        Device(id: try row.get("id"), name: try row.get("name"), platform: try row.get("platform"),
               recipient: try row.get("recipient"), created: try row.get("created"),
               lastSeen: try row.get("last_seen"), invalidated: try row.get("invalidated"),
               signingKey: try row.get("signing_key"))
    }

    /// One line of the audit log, in the change's transaction.
    static func audit(_ db: any SQLConnection, org: Int64?, actor: String, action: String, subject: String,
                      detail: String = "", now: Date) async throws {
        try await db.run("""
            INSERT INTO audit(at, org_id, actor, action, subject, detail)
            VALUES (\(now), \(org), \(actor), \(action), \(subject), \(detail))
            """)
    }

    static func group(_ db: any SQLConnection, name: String, user: Int64) async throws -> DeviceGroup {
        guard let id = try await db.value("SELECT id FROM device_groups WHERE user_id = \(user) AND name = \(name)",
                                          as: Int64.self) else {
            throw StoreError.notFound("no group \"\(name)\"")
        }
        let members = try await db.values("SELECT device_id FROM group_members WHERE group_id = \(id) ORDER BY device_id",
                                          as: String.self)
        return DeviceGroup(name: name, members: members)
    }

    /// A transfer row with its copies.
    static func outboxEntry(_ db: any SQLConnection, transfer row: SQLRow) async throws -> OutboxEntry {
        let id: String = try row.get("id")
        let uploading = try row.get("upload_id", as: String?.self) != nil
        let recipients = try await db.all("""
            SELECT o.*, u.email FROM outbox o LEFT JOIN devices d ON d.id = o.device_id LEFT JOIN users u ON u.id = d.user_id
            WHERE o.transfer_id = \(id) ORDER BY u.email, o.device_id
            """).map {
            let status = TransferStatus(rawValue: try $0.get("status")) ?? .expired
            return TransferRecipient(device: try $0.get("device_id"), user: try $0.get("email"),
                                     status: uploading && status.isLive ? .uploading : status, updated: try $0.get("updated"))
        }
        return OutboxEntry(id: id, size: try row.get("size"), sha256: try row.get("sha256"), created: try row.get("created"),
                           expires: try row.get("expires"), recipients: recipients)
    }

    /// Locks blob rows in id order (PostgreSQL; SQLite's write transaction holds them all).
    /// The lock order of the whole store: a transaction that changes reference counts locks
    /// its blob rows first (all of them, by id, as gc does with every row), and only then the
    /// outbox, transfer and cloud rows that use them; two transactions never wait for each
    /// other in a circle (SQLSTATE 40P01).
    static func lockBlobs(_ db: any SQLConnection, _ ids: [String]) async throws {
        guard !ids.isEmpty, db.dialect == .postgres else { return }
        try await db.run("SELECT id FROM blobs WHERE id IN \(list: ids) ORDER BY id\(SQL.forUpdate)")
    }

    /// Drops one reference under the row's lock; deletes the blob row at zero and reports it.
    static func release(_ db: any SQLConnection, blob: String) async throws -> Bool {
        guard let refs = try await db.value("UPDATE blobs SET refs = refs - 1 WHERE id = \(blob) RETURNING refs", as: Int64.self),
              refs <= 0 else { return false }
        try await db.run("DELETE FROM blobs WHERE id = \(blob)")
        return true
    }
}
