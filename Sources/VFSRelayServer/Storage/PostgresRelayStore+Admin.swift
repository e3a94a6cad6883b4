import Foundation
import PostgresNIO
import VFSRelayProtocol

/// The cloud's transfer and rekey puts of the PostgreSQL store.
extension PostgresRelayStore {
    public func cloudPutTransfer(path: [String], id: String, transfer: String, sender: String, user: Int64,
                                 now: Date) async throws -> (CloudEntry, [String]) {
        try await write { db in
            guard let name = path.last else { throw StoreError.conflict("the root is a folder") }
            try await Self.lockUser(db, user)
            let gone = StoreError.notFound("no transfer \"\(transfer)\" whose ciphertext is still held")
            guard let held = try await db.value("""
                SELECT t.blob_id FROM transfers t JOIN blobs b ON b.id = t.blob_id
                WHERE t.id = \(transfer) AND t.sender_device = \(sender) AND t.sender_user = \(user)
                """, as: String.self) else { throw gone }
            let parent = try await Self.parentFolder(db, path, user: user)
            // Both blobs, the transfer's and that of a file it replaces, locked at once by id
            // (the store's lock order) before any cloud row.
            let there = try await db.value("""
                SELECT blob_id FROM cloud WHERE user_id = \(user) AND parent = \(parent) AND name = \(name)
                """, as: String.self)
            try await Self.lockBlobs(db, [held] + (there.map { [$0] } ?? []))
            // The transfer's blob, locked: it is live while one of its copies waits.
            guard let blob = try await db.one("SELECT * FROM blobs WHERE id = \(held)") else { throw gone }
            let ref = BlobRef(id: try blob.get("id"), size: try blob.get("size"), sha256: try blob.get("sha256"))
            // The new reference first: a file there that already holds this blob then
            // releases its own reference without the count reaching 0.
            try await db.run("UPDATE blobs SET refs = refs + 1 WHERE id = \(ref.id)")
            let replaced = try await Self.displaceFile(db, parent: parent, name: name, path: path, user: user)
            let entryID = replaced?.id ?? id, created = replaced?.created ?? now, released = replaced?.released ?? []
            try await db.run("""
                INSERT INTO cloud(id, user_id, parent, name, kind, blob_id, size, sha256, created, updated)
                VALUES (\(entryID), \(user), \(parent), \(name), 'file', \(ref.id), \(ref.size), \(ref.sha256),
                        \(Self.seconds(created)), \(Self.seconds(now)))
                """)
            try await Self.audit(db, org: nil, actor: "user:\(user)", action: "cloud.put", subject: entryID,
                                 detail: "transfer \(transfer)", now: now)
            return (CloudEntry(id: entryID, name: name, path: Self.pathText(path), kind: .file, size: ref.size,
                               sha256: ref.sha256, created: created, updated: now), released)
        }
    }

    public func cloudReplaceBlob(path: [String], expected: String, with blob: BlobRef, user: Int64,
                                 now: Date) async throws -> (CloudEntry, [String]) {
        try await write { db in
            try await Self.lockUser(db, user)
            guard let row = try await Self.resolve(db, path, user: user), try row.get("kind", as: String.self) == "file" else {
                throw StoreError.notFound("no such file \"\(Self.pathText(path))\"")
            }
            let current: String = try row.get("sha256")
            guard current == expected else {
                throw StoreError.preconditionFailed("the file changed: its SHA-256 is \(current)")
            }
            let rowID: String = try row.get("id")
            let old = try row.get("blob_id", as: String?.self)
            if let old { try await Self.lockBlobs(db, [old]) }
            try await db.run("""
                INSERT INTO blobs(id, size, sha256, refs, created) VALUES (\(blob.id), \(blob.size), \(blob.sha256), 1, \(Self.seconds(now)))
                """)
            let updated = try await db.one("""
                UPDATE cloud SET blob_id = \(blob.id), size = \(blob.size), sha256 = \(blob.sha256), updated = \(Self.seconds(now))
                WHERE id = \(rowID) RETURNING *
                """)!
            var released = [String]()
            if let old, try await Self.release(db, blob: old) { released.append(old) }
            try await Self.audit(db, org: nil, actor: "user:\(user)", action: "cloud.rekey", subject: rowID, now: now)
            return (try Self.cloudEntry(updated, path: Self.pathText(path)), released)
        }
    }
}
