import Foundation

extension StoreRows {
    /// Until when a transfer the sender's organisation makes now is retained (issue 48,
    /// item 4: `vfs-relay org set --min-retention`); nil when the organisation sets none.
    /// Its expiry is then never before it (the sweep does not take it early).
    static func retention(_ db: any SQLConnection, org: Int64, now: Date) async throws -> Date? {
        try await db.value("SELECT seconds FROM org_retention WHERE org_id = \(org)", as: Int64.self)
            .map { now.addingTimeInterval(TimeInterval($0)) }
    }

    /// Records a new transfer's retention, if it has one.
    static func retain(_ db: any SQLConnection, transfer: String, until: Date?) async throws {
        guard let until else { return }
        try await db.run("INSERT INTO retained_transfers(transfer_id, retain_until) VALUES (\(transfer), \(until))")
    }

    /// Until when a transfer is retained; nil when it is not (or no longer).
    static func retainedUntil(_ db: any SQLConnection, transfer: String, now: Date) async throws -> Date? {
        guard let until = try await db.value("SELECT retain_until FROM retained_transfers WHERE transfer_id = \(transfer)",
                                             as: Double.self), until > now.timeIntervalSince1970 else { return nil }
        return Date(timeIntervalSince1970: until)
    }
}

/// `RetentionSettingRepository` and `TransferRemovalRepository` (Storage/Repositories.swift):
/// tables `org_retention` and `retained_transfers` (migration `v19-min-retention`).
extension SQLRelayStore {
    public func minRetention(org: Int64) async throws -> Int64? {
        try await sql.database.read { db in
            try await db.value("SELECT seconds FROM org_retention WHERE org_id = \(org)", as: Int64.self)
        }
    }

    public func setMinRetention(org: Int64, seconds: Int64?, now: Date) async throws {
        try await sql.database.write { db in
            try await db.run("DELETE FROM org_retention WHERE org_id = \(org)")
            if let seconds { try await db.run("INSERT INTO org_retention(org_id, seconds) VALUES (\(org), \(seconds))") }
            try await StoreRows.audit(db, org: org, actor: "operator", action: "org.min-retention", subject: "organisation",
                                      detail: seconds.map(String.init) ?? "none", now: now)
        }
    }

    public func removeTransfer(id: String, now: Date) async throws -> RemovedTransfer {
        let sql = self.sql
        let (removed, upload) = try await sql.database.write { db -> (RemovedTransfer, String?) in
            guard let row = try await db.one("SELECT * FROM transfers WHERE id = \(id)", as: TransferRow.self)
            else { throw StoreError.notFound("no transfer \"\(id)\"") }
            try await StoreRows.lockBlobs(db, [row.blobID])
            let retained = try await StoreRows.retainedUntil(db, transfer: id, now: now)
            let cancelled = try await StoreRows.cancelWaiting(db, row, now: now)
            try await db.run("DELETE FROM retained_transfers WHERE transfer_id = \(id)")
            let org = try await db.value("SELECT org_id FROM users WHERE id = \(row.senderUser)", as: Int64.self)
            let detail = "\(cancelled.copies) waiting cop\(cancelled.copies == 1 ? "y" : "ies") cancelled"
                + (retained.map { ", retained until \(ISO8601DateFormatter().string(from: $0))" } ?? "")
            try await StoreRows.audit(db, org: org, actor: "operator", action: "transfer.remove", subject: id, detail: detail, now: now)
            return (RemovedTransfer(released: cancelled.released, upload: cancelled.upload, cancelled: cancelled.copies,
                                    retainedUntil: retained), row.uploadID)
        }
        if let upload { await sql.notify([StoreRows.uploadChannel(upload)]) }
        return removed
    }
}
