import Foundation
import VFSRelayProtocol

/// A row of `cloud_versions`: from `since` until `until` (nil: still) the file `fileID`
/// was at `path` with the content `version`, in its blob (one reference while the row is
/// kept; none for a row of v23 that no change has reached since).
struct CloudVersionRow: Decodable {
    var id: String, version: String, fileID: String, path: String, device: String
    var blobID: String?, size: Int64?, sha256: String?, since: Date, until: Date?

    var blob: BlobRef? {
        guard let blobID, let size, let sha256 else { return nil }
        return BlobRef(id: blobID, size: size, sha256: sha256)
    }

    var record: CloudVersion {
        CloudVersion(id: id, version: version, path: path, size: size, sha256: sha256, device: device, since: since, until: until)
    }
}

extension CloudTree {
    /// `/a/b` → `["a", "b"]`.
    static func names(_ path: String) -> [String] { path.split(separator: "/").map(String.init) }

    /// The rows whose path is `root` or under it (`/` is everything), as text paths compare.
    static func under(_ root: String) -> SQL {
        let prefix = root == "/" ? "/" : root + "/"
        // The length as a literal: PostgreSQL has no substr(text, integer, bigint).
        let length = SQL(stringLiteral: String(prefix.unicodeScalars.count))
        return "(path = \(root) OR substr(path, 1, \(length)) = \(prefix))"
    }

    /// The files at `path` now, by path: `row` itself when it is a file, every file under
    /// it when it is a folder (the root when `path` is empty), none when nothing is there.
    static func files(_ db: any SQLConnection, at row: CloudRow?, path: [String], user: Int64) async throws -> [String: CloudRow] {
        if let row, row.kind == "file" { return [text(path): row] }
        guard row != nil || path.isEmpty else { return [:] }
        var out = [String: CloudRow]()
        var pending = [(row?.id ?? "", path)]
        while let (id, at) = pending.popLast() {
            for child in try await db.all("SELECT * FROM cloud WHERE user_id = \(user) AND parent = \(id)", as: CloudRow.self) {
                if child.kind == "folder" { pending.append((child.id, at + [child.name])) } else { out[text(at + [child.name])] = child }
            }
        }
        return out
    }

    /// Makes the folders above `path` that are missing; returns the id of its parent.
    static func makeParents(_ db: any SQLConnection, _ path: [String], user: Int64, maxEntries: Int, now: Date) async throws -> String {
        var parent = ""
        for (n, name) in path.dropLast().enumerated() {
            if let row = try await db.one("SELECT * FROM cloud WHERE user_id = \(user) AND parent = \(parent) AND name = \(name)",
                                          as: CloudRow.self) {
                guard row.kind == "folder" else {
                    throw StoreError.conflict("\"\(text(Array(path.prefix(n + 1))))\" is a file now, and was a folder then")
                }
                parent = row.id
            } else {
                try await checkRoom(db, user: user, maxEntries: maxEntries)
                let id = Secrets.id()
                try await db.run("""
                    INSERT INTO cloud(id, user_id, parent, name, kind, created, updated)
                    VALUES (\(id), \(user), \(parent), \(name), 'folder', \(now), \(now))
                    """)
                parent = id
            }
        }
        return parent
    }

    /// Removes the folders of `folders` left empty, and the folders above them that are
    /// left empty in turn, up to `top` (kept).
    static func pruneEmpty(_ db: any SQLConnection, _ folders: Set<String>, top: String, user: Int64) async throws {
        var pending = folders
        while let folder = pending.popFirst() {
            guard !folder.isEmpty, folder != top,
                  try await db.one("SELECT 1 FROM cloud WHERE user_id = \(user) AND parent = \(folder) LIMIT 1") == nil,
                  let parent = try await db.value("DELETE FROM cloud WHERE id = \(folder) AND kind = 'folder' RETURNING parent",
                                                  as: String.self) else { continue }
            pending.insert(parent)
        }
    }
}

/// The cloud's history (issue 50): each file's versions, what was removed, and a file or
/// a tree put back as it was at a time.
extension SQLRelayStore {
    public func cloudLog(path: [String], user: Int64) async throws -> [CloudVersion] {
        try await sql.database.read { db in
            let text = CloudTree.text(path)
            // The file there now (its versions from before a move too), and what was at the path.
            let here: CloudRow? = (try? await CloudTree.resolve(db, path, user: user)) ?? nil
            let file = here?.kind == "file" ? here?.id ?? "" : ""
            let rows = try await db.all("""
                SELECT * FROM cloud_versions WHERE user_id = \(user) AND (path = \(text) OR file_id = \(file))
                ORDER BY since DESC, id
                """, as: CloudVersionRow.self)
            guard !rows.isEmpty || here?.kind == "file" else { throw StoreError.notFound("no file \"\(text)\", now or before") }
            return rows.map(\.record)
        }
    }

    public func cloudVersionBlob(id: String, user: Int64) async throws -> BlobRef {
        try await sql.database.read { db in
            guard let row = try await db.one("SELECT * FROM cloud_versions WHERE user_id = \(user) AND id = \(id)",
                                             as: CloudVersionRow.self), let blob = row.blob else {
                throw StoreError.notFound("no version \"\(id)\" whose content is kept")
            }
            return blob
        }
    }

    public func cloudTrash(user: Int64) async throws -> [CloudVersion] {
        try await sql.database.read { db in
            // Each removed file's last row: closed, no file of its id now, no row of it after.
            try await db.all("""
                SELECT * FROM cloud_versions v WHERE v.user_id = \(user) AND v.until IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM cloud c WHERE c.id = v.file_id)
                AND NOT EXISTS (SELECT 1 FROM cloud_versions w WHERE w.file_id = v.file_id AND (w.until IS NULL OR w.until > v.until))
                ORDER BY v.until DESC, v.path
                """, as: CloudVersionRow.self).map(\.record)
        }
    }

    public func cloudRestore(path: [String], at time: Date, recursive: Bool, user: Int64, device: String, maxEntries: Int,
                             now: Date) async throws -> (CloudRestored, [String]) {
        try await sql.database.write { db in
            try await CloudTree.lockUser(db, user)
            let root = CloudTree.text(path)
            let then = try await db.all("""
                SELECT * FROM cloud_versions WHERE user_id = \(user) AND blob_id IS NOT NULL AND since <= \(time)
                AND (until IS NULL OR until > \(time)) AND \(CloudTree.under(root)) ORDER BY path, since DESC
                """, as: CloudVersionRow.self)
            guard !then.isEmpty else { throw StoreError.notFound("nothing was at \"\(root)\" at that time") }
            let single = then.count == 1 && then[0].path == root
            guard single || recursive else {
                throw StoreError.conflict("\"\(root)\" was a folder at that time: restore its tree with recursive")
            }
            let here: CloudRow? = (try? await CloudTree.resolve(db, path, user: user)) ?? nil
            guard single || here?.kind != "file" else {
                throw StoreError.conflict("\"\(root)\" is a file now, and was a folder then")
            }
            let present = single ? [:] : try await CloudTree.files(db, at: here, path: path, user: user)
            var wanted = [String: CloudVersionRow]()
            for row in then where wanted[row.path] == nil { wanted[row.path] = row }
            // Every blob touched, locked first by id (the store's lock order).
            try await StoreRows.lockBlobs(db, Array(Set(then.compactMap(\.blobID) + present.values.compactMap(\.blobID))).sorted())
            var released = [String]()
            var result = CloudRestored(restored: [], removed: [])
            // What is there now and was not then goes first (its versions are kept), with
            // the folders it leaves empty (folders have no versions: a folder the tree
            // did not need then is not kept for nothing), so a file can come back where
            // one of them is.
            var emptied = Set<String>()
            for (at, row) in present.sorted(by: { $0.key < $1.key }) where wanted[at] == nil {
                try await CloudTree.holdHead(db, row, path: CloudTree.names(at), user: user)
                try await db.run("DELETE FROM cloud WHERE id = \(row.id)")
                try await db.run("UPDATE cloud_versions SET until = \(now) WHERE file_id = \(row.id) AND until IS NULL")
                if let blob = row.blobID, try await StoreRows.release(db, blob: blob) { released.append(blob) }
                result.removed.append(at)
                emptied.insert(row.parent)
            }
            try await CloudTree.pruneEmpty(db, emptied, top: here?.id ?? "", user: user)
            for old in wanted.values.sorted(by: { $0.path < $1.path }) {
                guard let blob = old.blob else { continue }
                let names = CloudTree.names(old.path)
                let name = names.last ?? ""
                let parent = try await CloudTree.makeParents(db, names, user: user, maxEntries: maxEntries, now: now)
                if let current = try await db.one("SELECT * FROM cloud WHERE user_id = \(user) AND parent = \(parent) AND name = \(name)",
                                                  as: CloudRow.self),
                   current.kind == "file", try await CloudTree.head(db, file: current.id) == old.version {
                    continue
                }
                // One reference for the file (its version row counts its own).
                try await db.run("UPDATE blobs SET refs = refs + 1 WHERE id = \(blob.id)")
                let replaced = try await CloudTree.displaceFile(db, parent: parent, name: name, path: names, user: user)
                released += replaced?.released ?? []
                if replaced == nil { try await CloudTree.checkRoom(db, user: user, maxEntries: maxEntries) }
                // The file's own id when it is free: its log reads on.
                var id = replaced?.id ?? old.fileID
                if replaced == nil, try await db.one("SELECT 1 FROM cloud WHERE id = \(id)") != nil { id = Secrets.id() }
                let created = replaced?.created ?? now
                try await db.run("""
                    INSERT INTO cloud(id, user_id, parent, name, kind, blob_id, size, sha256, created, updated)
                    VALUES (\(id), \(user), \(parent), \(name), 'file', \(blob.id), \(blob.size), \(blob.sha256), \(created), \(now))
                    """)
                try await CloudTree.recordVersion(db, old.version, file: id, path: names, user: user, device: device, blob: blob, now: now)
                result.restored.append(CloudEntry(id: id, name: name, path: old.path, kind: .file, size: blob.size, sha256: blob.sha256,
                                                  created: created, updated: now, version: old.version))
            }
            try await StoreRows.audit(db, org: nil, actor: "user:\(user)", action: "cloud.restore", subject: root,
                                      detail: "at \(time.timeIntervalSince1970)", now: now)
            return (result, released)
        }
    }

    public func cloudKeptVersions(user: Int64) async throws -> [CloudVersion] {
        try await sql.database.read { db in
            try await db.all("""
                SELECT * FROM cloud_versions WHERE user_id = \(user) AND until IS NOT NULL AND blob_id IS NOT NULL
                ORDER BY until DESC, id
                """, as: CloudVersionRow.self).map(\.record)
        }
    }

    public func cloudReplaceVersionBlob(id: String, expected: String, with blob: BlobRef, user: Int64,
                                        now: Date) async throws -> ([CloudVersion], [String]) {
        try await sql.database.write { db in
            try await CloudTree.lockUser(db, user)
            guard let row = try await db.one("""
                SELECT * FROM cloud_versions WHERE user_id = \(user) AND id = \(id) AND until IS NOT NULL
                """, as: CloudVersionRow.self), let old = row.blob else {
                throw StoreError.notFound("no earlier version \"\(id)\" whose content is kept")
            }
            guard old.sha256 == expected else { throw StoreError.preconditionFailed("the version changed: its SHA-256 is \(old.sha256)") }
            try await StoreRows.lockBlobs(db, [old.id])
            // Every earlier version of the user holding that blob (a move's rows, say) moves
            // to the new one, so each blob is rewritten once; a head keeps its file's.
            let holders = try await db.values("""
                SELECT id FROM cloud_versions WHERE user_id = \(user) AND blob_id = \(old.id) AND until IS NOT NULL ORDER BY id
                """, as: String.self)
            try await db.run("""
                INSERT INTO blobs(id, size, sha256, refs, created)
                VALUES (\(blob.id), \(blob.size), \(blob.sha256), \(Int64(holders.count)), \(now))
                """)
            try await db.run("""
                UPDATE cloud_versions SET blob_id = \(blob.id), size = \(blob.size), sha256 = \(blob.sha256)
                WHERE user_id = \(user) AND blob_id = \(old.id) AND until IS NOT NULL
                """)
            var released = [String]()
            for _ in holders where try await StoreRows.release(db, blob: old.id) { released.append(old.id) }
            try await StoreRows.audit(db, org: nil, actor: "user:\(user)", action: "cloud.rekey-version", subject: id, now: now)
            let moved = try await db.all("SELECT * FROM cloud_versions WHERE id IN \(list: holders) ORDER BY until DESC, id",
                                         as: CloudVersionRow.self)
            return (moved.map(\.record), released)
        }
    }
}
