import Foundation

extension StoreRows {
    static func upload(_ row: SQLRow) throws -> UploadRecord {
        UploadRecord(id: try row.get("id"), userID: try row.get("user_id"), deviceID: try row.get("device_id"),
                     length: try row.get("length"), offset: try row.get("offset"), metadata: try row.get("metadata"),
                     created: try row.get("created"), expires: try row.get("expires"), sha256: try row.get("sha256"))
    }
}

/// Uploads in progress (tus): their records, and what a user holds on the relay.
extension SQLRelayStore {
    public func usage(user: Int64) async throws -> Int64 {
        try await sql.database.read { db in
            try await db.value("""
                SELECT
                  (SELECT COALESCE(SUM(COALESCE(length, "offset")), 0) FROM uploads WHERE user_id = \(user))
                + (SELECT COALESCE(SUM(t.size), 0) FROM transfers t WHERE t.sender_user = \(user) AND EXISTS
                     (SELECT 1 FROM outbox o WHERE o.transfer_id = t.id AND o.status IN ('unattended', 'initiated')))
                + (SELECT COALESCE(SUM(size), 0) FROM cloud WHERE user_id = \(user) AND kind = 'file')
                """, as: Int64.self) ?? 0
        }
    }

    public func createUpload(_ upload: UploadRecord) async throws {
        try await sql.database.write { db in
            try await db.run("""
                INSERT INTO uploads(id, user_id, device_id, length, "offset", metadata, created, expires)
                VALUES (\(upload.id), \(upload.userID), \(upload.deviceID), \(upload.length), 0, \(upload.metadata),
                        \(upload.created), \(upload.expires))
                """)
        }
    }

    public func upload(id: String, user: Int64) async throws -> UploadRecord {
        try await sql.database.read { db in
            guard let row = try await db.one("SELECT * FROM uploads WHERE id = \(id) AND user_id = \(user)") else {
                throw StoreError.notFound("no upload \"\(id)\"")
            }
            return try StoreRows.upload(row)
        }
    }

    public func setUploadOffset(id: String, offset: Int64, sha256: String?) async throws {
        try await sql.database.write { db in
            try await db.run("UPDATE uploads SET \"offset\" = \(offset), sha256 = \(sha256) WHERE id = \(id)")
        }
    }

    public func setUploadLength(id: String, length: Int64) async throws {
        try await sql.database.write { db in
            // Row-locked, so two instances cannot both set it.
            guard let row = try await db.one("SELECT length, \"offset\" FROM uploads WHERE id = \(id)\(SQL.forUpdate)") else {
                throw StoreError.notFound("no upload \"\(id)\"")
            }
            if let set = try row.get("length", as: Int64?.self) {
                throw StoreError.conflict("upload \"\(id)\" already has its length (\(set) bytes)")
            }
            let offset: Int64 = try row.get("offset")
            guard length >= offset else { throw StoreError.invalid("upload \"\(id)\" already has \(offset) bytes, more than \(length)") }
            try await db.run("UPDATE uploads SET length = \(length) WHERE id = \(id) AND length IS NULL")
        }
    }

    public func deleteUpload(id: String, user: Int64) async throws {
        try await sql.database.write { db in
            guard try await db.one("DELETE FROM uploads WHERE id = \(id) AND user_id = \(user) RETURNING id") != nil else {
                throw StoreError.notFound("no upload \"\(id)\"")
            }
        }
    }

    public func removeExpiredUploads(now: Date) async throws -> [String] {
        try await sql.database.write { db in
            try await db.values("DELETE FROM uploads WHERE expires <= \(now) RETURNING id", as: String.self)
        }
    }

    public func uploadIDs() async throws -> Set<String> {
        try await sql.database.read { db in Set(try await db.values("SELECT id FROM uploads", as: String.self)) }
    }
}
