import Foundation

extension StoreRows {
    /// Each blob row with its reference count and the references that are live: waiting
    /// copies of its transfers, cloud files, the cloud versions kept (issue 50) and share
    /// links not yet released.
    static let referenceCounts: SQL = """
        SELECT b.id, b.refs,
          (SELECT COUNT(*) FROM outbox o JOIN transfers t ON t.id = o.transfer_id
             WHERE t.blob_id = b.id AND o.status IN \(waiting))
          + (SELECT COUNT(*) FROM cloud c WHERE c.blob_id = b.id)
          + (SELECT COUNT(*) FROM cloud_versions v WHERE v.blob_id = b.id)
          + (SELECT COUNT(*) FROM shares s WHERE s.blob_id = b.id AND s.released IS NULL) AS live
        FROM blobs b ORDER BY b.id
        """
}

/// Maintenance: the garbage collector's recount of blob references against the rows and
/// files, and the audit it is checked by.
extension SQLRelayStore {
    public func collectGarbage(files: Set<String>, fileExists: @escaping @Sendable (String) -> Bool,
                               eventsBefore: Date, now: Date) async throws -> (report: GarbageReport, delete: [String]) {
        try await sql.database.write { db in
            var report = GarbageReport()
            var delete = [String]()
            // Every blob row stays locked until the recount commits: no reference moves meanwhile.
            let ids = try await db.values("SELECT id FROM blobs ORDER BY id\(SQL.forUpdate)", as: String.self)
            // Rows whose file is gone: their copies can never be delivered.
            for blob in ids where !files.contains(blob) && !fileExists(blob) {
                try await db.run("""
                    UPDATE outbox SET status = 'expired', updated = \(now) WHERE status IN \(StoreRows.waiting)
                    AND transfer_id IN (SELECT id FROM transfers WHERE blob_id = \(blob))
                    """)
                try await db.run("DELETE FROM cloud WHERE blob_id = \(blob)")
                try await db.run("DELETE FROM cloud_versions WHERE blob_id = \(blob)")
                try await db.run("UPDATE shares SET released = \(now) WHERE blob_id = \(blob) AND released IS NULL")
                try await db.run("DELETE FROM blobs WHERE id = \(blob)")
                report.orphanRows += 1
            }
            for row in try await db.all(StoreRows.referenceCounts, as: ReferenceCount.self) {
                let id = row.id, refs = row.refs, live = row.live
                if live == 0 {
                    try await db.run("DELETE FROM blobs WHERE id = \(id)")
                    delete.append(id)
                    report.releasedBlobs += 1
                } else if refs != live {
                    try await db.run("UPDATE blobs SET refs = \(live) WHERE id = \(id)")
                    report.fixedReferenceCounts += 1
                }
            }
            let rows = Set(try await db.values("SELECT id FROM blobs", as: String.self))
            for file in files where !rows.contains(file) && !delete.contains(file) {
                delete.append(file)
                report.orphanFiles += 1
            }
            // Counted, then deleted, in one transaction: no event is stored with a past time.
            report.prunedEvents = try await db.value("SELECT COUNT(*) FROM events WHERE created < \(eventsBefore)", as: Int.self) ?? 0
            try await db.run("DELETE FROM events WHERE created < \(eventsBefore)")
            return (report, delete)
        }
    }

    public func referenceAudit() async throws -> [(id: String, refs: Int64, live: Int64)] {
        try await sql.database.read { db in
            try await db.all(StoreRows.referenceCounts, as: ReferenceCount.self).map { (id: $0.id, refs: $0.refs, live: $0.live) }
        }
    }

    public func blobRows() async throws -> [BlobRef] {
        try await sql.database.read { db in
            try await db.all("SELECT id, size, sha256 FROM blobs ORDER BY id", as: BlobRow.self).map(\.ref)
        }
    }
}
