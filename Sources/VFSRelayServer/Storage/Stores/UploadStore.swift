import Foundation
import VFSRelayProtocol

/// What creating an upload is held to, checked in the transaction that adds it.
public struct UploadLimits: Sendable, Equatable {
    /// The bytes one user may hold: uploads, waiting transfers and cloud files.
    public var quota: Int64
    /// The uploads one user may hold at once, finished or not (a zero-byte upload is free
    /// of the quota, not of this).
    var openUploads: Int
}

/// Why an upload was not created.
enum UploadRefusal: Error, Equatable {
    /// Its length would take the user past the quota; `used` bytes are held already.
    case quota(used: Int64, quota: Int64)
    /// The user holds this many uploads already.
    case tooManyOpen(Int)
}

extension StoreRows {
    /// Bytes the user holds: uploads (their length, or their offset while it is deferred),
    /// transfers with a copy still waiting, cloud files, the blobs only the user's earlier
    /// cloud versions hold (each once, issue 50) and share links that hold their blob.
    static func usage(_ db: any SQLConnection, user: Int64) async throws -> Int64 {
        try await db.value("""
            SELECT
              (SELECT COALESCE(SUM(COALESCE(length, CASE WHEN reserved > "offset" THEN reserved ELSE "offset" END)), 0)
                 FROM uploads WHERE user_id = \(user))
            + (SELECT COALESCE(SUM(t.size), 0) FROM transfers t WHERE t.sender_user = \(user) AND EXISTS
                 (SELECT 1 FROM outbox o WHERE o.transfer_id = t.id AND o.status IN \(waiting)))
            + (SELECT COALESCE(SUM(size), 0) FROM cloud WHERE user_id = \(user) AND kind = 'file')
            + \(versionOnlyBytes(user: user))
            + (SELECT COALESCE(SUM(size), 0) FROM shares WHERE user_id = \(user) AND released IS NULL)
            """, as: Int64.self) ?? 0
    }

    /// The bytes of the blobs only the user's earlier cloud versions hold, each once (a blob
    /// one of the user's cloud files holds counts as the file's), as a scalar subquery.
    static func versionOnlyBytes(user: Int64) -> SQL {
        """
        (SELECT COALESCE(SUM(size), 0) FROM (SELECT DISTINCT v.blob_id, v.size FROM cloud_versions v
           WHERE v.user_id = \(user) AND v.blob_id IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM cloud c WHERE c.user_id = \(user) AND c.blob_id = v.blob_id)) kept)
        """
    }

    /// What changes a user's uploads runs one at a time per user (the user row's lock on
    /// PostgreSQL, the write transaction on SQLite): the usage read after it holds until
    /// the change commits.
    static func lockUploads(_ db: any SQLConnection, user: Int64) async throws {
        _ = try await db.one("SELECT 1 FROM users WHERE id = \(user)\(SQL.forUpdate)")
    }

    /// Uploads removed before they ended (terminated, expired): the waiting copies of the
    /// streaming transfers made of them stop waiting (they hold no blob reference yet).
    static func abandonStreaming(_ db: any SQLConnection, uploads: [String], status: TransferStatus) async throws {
        guard !uploads.isEmpty else { return }
        try await db.run("""
            UPDATE outbox SET status = \(status.rawValue), updated = \(Date())
            WHERE status IN \(waiting) AND transfer_id IN (SELECT id FROM transfers WHERE upload_id IN \(list: uploads))
            """)
    }
}

/// Uploads in progress (tus): their records, and what a user holds on the relay.
extension SQLRelayStore {
    public func usage(user: Int64) async throws -> Int64 {
        try await sql.database.read { db in try await StoreRows.usage(db, user: user) }
    }

    public func createUpload(_ upload: UploadRecord, limits: UploadLimits) async throws {
        try await sql.database.write { db in
            try await StoreRows.lockUploads(db, user: upload.userID)
            let open = try await db.value("SELECT COUNT(*) FROM uploads WHERE user_id = \(upload.userID)", as: Int.self) ?? 0
            guard open < limits.openUploads else { throw UploadRefusal.tooManyOpen(limits.openUploads) }
            let used = try await StoreRows.usage(db, user: upload.userID)
            guard HeaderNumbers.fits(upload.length ?? 0, at: used, within: limits.quota) else {
                throw UploadRefusal.quota(used: used, quota: limits.quota)
            }
            try await db.run("""
                INSERT INTO uploads(id, user_id, device_id, length, "offset", metadata, created, expires)
                VALUES (\(upload.id), \(upload.userID), \(upload.deviceID), \(upload.length), 0, \(upload.metadata),
                        \(upload.created), \(upload.expires))
                """)
        }
    }

    public func upload(id: String, user: Int64) async throws -> UploadRecord {
        try await sql.database.read { db in
            guard let row = try await db.one("SELECT * FROM uploads WHERE id = \(id) AND user_id = \(user)", as: UploadRow.self) else {
                throw StoreError.notFound("no upload \"\(id)\"")
            }
            return row.record
        }
    }

    public func setUploadOffset(id: String, offset: Int64, sha256: String?) async throws {
        try await sql.database.write { db in
            try await db.run("UPDATE uploads SET \"offset\" = \(offset), sha256 = \(sha256) WHERE id = \(id)")
        }
        // The readers of its streaming transfer, on every instance, read on.
        await sql.notify([StoreRows.uploadChannel(id)])
    }

    public func setUploadLength(id: String, length: Int64, quota: Int64) async throws {
        try await sql.database.write { db in
            guard let user = try await db.value("SELECT user_id FROM uploads WHERE id = \(id)", as: Int64.self) else {
                throw StoreError.notFound("no upload \"\(id)\"")
            }
            try await StoreRows.lockUploads(db, user: user)
            // Row-locked, so two instances cannot both set it.
            guard let row = try await db.one("SELECT * FROM uploads WHERE id = \(id)\(SQL.forUpdate)", as: UploadRow.self) else {
                throw StoreError.notFound("no upload \"\(id)\"")
            }
            if let set = row.length {
                throw StoreError.conflict("upload \"\(id)\" already has its length (\(set) bytes)")
            }
            let offset = row.offset
            guard length >= offset else { throw StoreError.invalid("upload \"\(id)\" already has \(offset) bytes, more than \(length)") }
            // Its offset is in the usage until its length takes its place.
            let used = max(0, try await StoreRows.usage(db, user: user) - offset)
            guard HeaderNumbers.fits(length, at: used, within: quota) else { throw UploadRefusal.quota(used: used, quota: quota) }
            try await db.run("UPDATE uploads SET length = \(length) WHERE id = \(id) AND length IS NULL")
        }
    }

    public func reserveDeferred(id: String, offset: Int64, cap: Int64, quota: Int64) async throws -> Int64 {
        try await sql.database.write { db in
            guard let user = try await db.value("SELECT user_id FROM uploads WHERE id = \(id)", as: Int64.self) else {
                throw StoreError.notFound("no upload \"\(id)\"")
            }
            try await StoreRows.lockUploads(db, user: user)
            guard let row = try await db.one("SELECT * FROM uploads WHERE id = \(id)\(SQL.forUpdate)", as: UploadRow.self) else {
                throw StoreError.notFound("no upload \"\(id)\"")
            }
            // What this upload holds in the usage now: its offset, or an older reservation
            // (of a PATCH that ended without giving it back).
            let own = max(row.offset, row.reserved ?? 0)
            let others = max(0, try await StoreRows.usage(db, user: user) - own)
            let allowed = max(offset, min(cap, quota - others))
            try await db.run("UPDATE uploads SET reserved = \(allowed) WHERE id = \(id)")
            return allowed
        }
    }

    public func releaseReservation(id: String) async throws {
        try await sql.database.write { db in try await db.run("UPDATE uploads SET reserved = NULL WHERE id = \(id)") }
    }

    public func deleteUpload(id: String, user: Int64) async throws {
        try await sql.database.write { db in
            guard try await db.one("DELETE FROM uploads WHERE id = \(id) AND user_id = \(user) RETURNING id") != nil else {
                throw StoreError.notFound("no upload \"\(id)\"")
            }
            try await StoreRows.abandonStreaming(db, uploads: [id], status: .cancelled)
        }
        // A streaming transfer's readers learn that it was abandoned.
        await sql.notify([StoreRows.uploadChannel(id)])
    }

    public func touchUpload(id: String, expires: Date) async throws {
        try await sql.database.write { db in try await db.run("UPDATE uploads SET expires = \(expires) WHERE id = \(id)") }
    }

    public func removeExpiredUploads(now: Date, sparing: Set<String>) async throws -> [String] {
        let removed = try await sql.database.write { db in
            let expired = try await db.values("SELECT id FROM uploads WHERE expires <= \(now)", as: String.self).filter { !sparing.contains($0) }
            guard !expired.isEmpty else { return [String]() }
            let removed = try await db.values("DELETE FROM uploads WHERE id IN \(list: expired) AND expires <= \(now) RETURNING id", as: String.self)
            try await StoreRows.abandonStreaming(db, uploads: removed, status: .expired)
            return removed
        }
        await sql.notify(removed.map(StoreRows.uploadChannel))
        return removed
    }

    public func uploadIDs() async throws -> Set<String> {
        try await sql.database.read { db in Set(try await db.values("SELECT id FROM uploads", as: String.self)) }
    }
}

/// Uploads kept as S3 multipart uploads: their parts beside their offset.
extension SQLRelayStore {
    public func multipartState(upload: String) async throws -> MultipartState {
        try await sql.database.read { db in
            guard let row = try await db.one("SELECT \"offset\", length, multipart, assembled FROM uploads WHERE id = \(upload)",
                                             as: MultipartRow.self) else {
                throw StoreError.notFound("no upload \"\(upload)\"")
            }
            let offset = row.offset
            // Only parts wholly below the offset count (a part recorded always moved it, so
            // this is every part; the rule keeps a stray row from being read as content).
            let parts = try await db.all("""
                SELECT number, etag, start_offset, size FROM upload_parts
                WHERE upload_id = \(upload) AND start_offset + size <= \(offset) ORDER BY number
                """, as: UploadPartRow.self).map(\.part)
            return MultipartState(offset: offset, length: row.length, multipartID: row.multipart, parts: parts,
                                  assembled: (row.assembled ?? 0) != 0)
        }
    }

    public func startMultipart(upload: String, multipartID: String) async throws {
        try await sql.database.write { db in
            try await db.run("UPDATE uploads SET multipart = \(multipartID) WHERE id = \(upload)")
        }
    }

    public func recordUploadPart(upload: String, part: UploadPart) async throws {
        try await sql.database.write { db in
            guard try await db.one("SELECT id FROM uploads WHERE id = \(upload)\(SQL.forUpdate)") != nil else {
                throw StoreError.notFound("no upload \"\(upload)\"")
            }
            try await db.run("""
                INSERT INTO upload_parts(upload_id, number, etag, start_offset, size)
                VALUES (\(upload), \(part.number), \(part.etag), \(part.start), \(part.size))
                ON CONFLICT(upload_id, number) DO UPDATE SET etag = excluded.etag, start_offset = excluded.start_offset, size = excluded.size
                """)
            try await db.run("UPDATE uploads SET \"offset\" = \(part.end), sha256 = NULL WHERE id = \(upload) AND \"offset\" < \(part.end)")
        }
    }

    public func setAssembled(upload: String) async throws {
        try await sql.database.write { db in try await db.run("UPDATE uploads SET assembled = 1 WHERE id = \(upload)") }
    }
}
