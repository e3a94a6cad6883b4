import Foundation
import VFSRelayProtocol

/// Why a cloud entry was not made.
enum CloudRefusal: Error, Equatable {
    /// The user holds this many files and folders already, the most they may.
    case tooManyEntries(Int)
    /// A put's expectation (`CloudPut.Expectation`, checked in its transaction under the
    /// user's lock) did not hold: the file at `path` is at version
    /// `head` now (nil: no file there).
    case notHead(path: String, head: String?)
}

/// The cloud tree's rules, in the change's transaction.
enum CloudTree {
    static func text(_ path: [String]) -> String { "/" + path.joined(separator: "/") }

    /// The row at `path` (nil for the root).
    static func resolve(_ db: any SQLConnection, _ path: [String], user: Int64) async throws -> CloudRow? {
        var parent = ""
        var row: CloudRow?
        for (n, name) in path.enumerated() {
            guard let next = try await db.one("SELECT * FROM cloud WHERE user_id = \(user) AND parent = \(parent) AND name = \(name)",
                                              as: CloudRow.self) else {
                throw StoreError.notFound("no such file or folder \"\(text(path))\"")
            }
            if n < path.count - 1, next.kind != "folder" {
                throw StoreError.notFound("no such file or folder \"\(text(path))\"")
            }
            row = next
            parent = next.id
        }
        return row
    }

    /// The file at `path`, or not found.
    static func file(_ db: any SQLConnection, _ path: [String], user: Int64) async throws -> CloudRow {
        guard let row = try await resolve(db, path, user: user), row.kind == "file" else {
            throw StoreError.notFound("no such file \"\(text(path))\"")
        }
        return row
    }

    /// The id of the folder that would hold `path` (`""` for the root).
    static func parentFolder(_ db: any SQLConnection, _ path: [String], user: Int64) async throws -> String {
        guard let folder = try await resolve(db, Array(path.dropLast()), user: user) else { return "" }
        guard folder.kind == "folder" else {
            throw StoreError.notFound("no such folder \"\(text(Array(path.dropLast())))\"")
        }
        return folder.id
    }

    /// A file's current version: its open row in `cloud_versions`, else (a file stored
    /// before versions were kept) its own id.
    static func head(_ db: any SQLConnection, file: String) async throws -> String {
        try await db.value("SELECT version FROM cloud_versions WHERE file_id = \(file) AND until IS NULL", as: String.self) ?? file
    }

    /// `entries` (a folder's children) with their files' versions.
    static func withVersions(_ db: any SQLConnection, _ entries: [CloudEntry], user: Int64, parent: String) async throws -> [CloudEntry] {
        guard entries.contains(where: { $0.kind == .file }) else { return entries }
        let rows = try await db.all("""
            SELECT v.file_id, v.version FROM cloud_versions v JOIN cloud c ON c.id = v.file_id
            WHERE c.user_id = \(user) AND c.parent = \(parent) AND v.until IS NULL
            """, as: HeadRow.self)
        let heads = Dictionary(rows.map { ($0.fileID, $0.version) }, uniquingKeysWith: { first, _ in first })
        return entries.map { entry in
            var entry = entry
            if entry.kind == .file { entry.version = heads[entry.id] ?? entry.id }
            return entry
        }
    }

    struct HeadRow: Decodable { var fileID: String, version: String }

    /// Refuses the put unless `expecting` holds for what is at `name` in `parent` now.
    static func checkHead(_ db: any SQLConnection, parent: String, name: String, path: [String], user: Int64,
                          expecting: CloudPut.Expectation) async throws {
        if expecting == .any { return }
        var head: String?
        if let row = try await db.one("SELECT * FROM cloud WHERE user_id = \(user) AND parent = \(parent) AND name = \(name)",
                                      as: CloudRow.self), row.kind == "file" {
            head = try await self.head(db, file: row.id)
        }
        switch expecting {
        case .any: return
        case .absent: if head != nil { throw CloudRefusal.notHead(path: text(path), head: head) }
        case .version(let base): if head != base { throw CloudRefusal.notHead(path: text(path), head: head) }
        }
    }

    /// Makes `version`, held in `blob`, the file's head at `path` (the row it had ends
    /// now, keeping its blob reference). The new row holds one more reference to `blob`,
    /// counted here: the caller holds the blob's lock (or made it in this transaction).
    static func recordVersion(_ db: any SQLConnection, _ version: String, file: String, path: [String], user: Int64,
                              device: String, blob: BlobRef, now: Date) async throws {
        try await db.run("UPDATE cloud_versions SET until = \(now) WHERE file_id = \(file) AND until IS NULL")
        try await db.run("UPDATE blobs SET refs = refs + 1 WHERE id = \(blob.id)")
        try await db.run("""
            INSERT INTO cloud_versions(id, version, user_id, file_id, path, device, blob_id, size, sha256, since)
            VALUES (\(Secrets.id()), \(version), \(user), \(file), \(text(path)), \(device), \(blob.id), \(blob.size),
                    \(blob.sha256), \(now))
            """)
    }

    /// Makes sure the file `row` at `path` has a head row holding its blob, before the file
    /// is replaced, moved, removed or rekeyed: a file stored before versions were kept (no
    /// row, or v23's row without a blob) gets one, with one more reference to its blob
    /// (whose lock the caller holds), so its content is kept as a version too.
    static func holdHead(_ db: any SQLConnection, _ row: CloudRow, path: [String], user: Int64) async throws {
        guard row.kind == "file", let blob = try? row.blob else { return }
        let open = try await db.one("SELECT * FROM cloud_versions WHERE file_id = \(row.id) AND until IS NULL", as: CloudVersionRow.self)
        if open?.blobID != nil { return }
        try await db.run("UPDATE blobs SET refs = refs + 1 WHERE id = \(blob.id)")
        if let open {
            try await db.run("""
                UPDATE cloud_versions SET blob_id = \(blob.id), size = \(blob.size), sha256 = \(blob.sha256) WHERE id = \(open.id)
                """)
        } else {
            try await db.run("""
                INSERT INTO cloud_versions(id, version, user_id, file_id, path, device, blob_id, size, sha256, since)
                VALUES (\(Secrets.id()), \(row.id), \(user), \(row.id), \(text(path)), '', \(blob.id), \(blob.size),
                        \(blob.sha256), \(row.updated))
                """)
        }
    }

    static func exists(_ db: any SQLConnection, parent: String, name: String, user: Int64) async throws -> Bool {
        try await db.one("SELECT 1 FROM cloud WHERE user_id = \(user) AND parent = \(parent) AND name = \(name)") != nil
    }

    /// Cloud changes of one user run one at a time (the user row's lock on PostgreSQL; the
    /// write transaction on SQLite): a move cannot race a delete of its target's parent on
    /// another instance.
    static func lockUser(_ db: any SQLConnection, _ user: Int64) async throws {
        _ = try await db.one("SELECT 1 FROM users WHERE id = \(user)\(SQL.forUpdate)")
    }

    /// Refuses one more entry when the user holds `maxEntries` (the caller holds the user's
    /// lock, so concurrent changes count one after another).
    static func checkRoom(_ db: any SQLConnection, user: Int64, maxEntries: Int) async throws {
        let held = try await db.value("SELECT COUNT(*) FROM cloud WHERE user_id = \(user)", as: Int.self) ?? 0
        guard held < maxEntries else { throw CloudRefusal.tooManyEntries(maxEntries) }
    }

    /// Removes the file `name` in `parent` to put another in its place (a folder there is a
    /// conflict) and releases its own blob reference (its versions keep theirs); nil when
    /// nothing is there. The caller keeps the returned id and creation time; `released`
    /// are the blobs to delete.
    static func displaceFile(_ db: any SQLConnection, parent: String, name: String, path: [String],
                             user: Int64) async throws -> (id: String, created: Date, released: [String])? {
        guard let existing = try await db.one("SELECT * FROM cloud WHERE user_id = \(user) AND parent = \(parent) AND name = \(name)",
                                              as: CloudRow.self) else {
            return nil
        }
        guard existing.kind == "file" else {
            throw StoreError.conflict("\"\(text(path))\" is a folder")
        }
        let id = existing.id, old = existing.blobID
        if let old { try await StoreRows.lockBlobs(db, [old]) }
        try await holdHead(db, existing, path: path, user: user)
        try await db.run("DELETE FROM cloud WHERE id = \(id)")
        var released = [String]()
        if let old, try await StoreRows.release(db, blob: old) { released.append(old) }
        return (id, existing.created, released)
    }

    /// Puts the file `path` holding `blob` (whose reference the caller has counted), in
    /// place of a file there, as a new version by `device` when `expecting` holds;
    /// returns the entry and the blobs to delete.
    static func put(_ db: any SQLConnection, path: [String], parent: String, id: String, blob: BlobRef, user: Int64,
                    device: String, expecting: CloudPut.Expectation, maxEntries: Int, detail: String = "",
                    now: Date) async throws -> (CloudEntry, [String]) {
        let name = path.last ?? ""
        try await checkHead(db, parent: parent, name: name, path: path, user: user, expecting: expecting)
        let replaced = try await displaceFile(db, parent: parent, name: name, path: path, user: user)
        if replaced == nil { try await checkRoom(db, user: user, maxEntries: maxEntries) }
        let entryID = replaced?.id ?? id, created = replaced?.created ?? now
        try await db.run("""
            INSERT INTO cloud(id, user_id, parent, name, kind, blob_id, size, sha256, created, updated)
            VALUES (\(entryID), \(user), \(parent), \(name), 'file', \(blob.id), \(blob.size), \(blob.sha256), \(created), \(now))
            """)
        let version = Secrets.id()
        try await recordVersion(db, version, file: entryID, path: path, user: user, device: device, blob: blob, now: now)
        try await StoreRows.audit(db, org: nil, actor: "user:\(user)", action: "cloud.put", subject: entryID, detail: detail, now: now)
        return (CloudEntry(id: entryID, name: name, path: text(path), kind: .file, size: blob.size, sha256: blob.sha256,
                           created: created, updated: now, version: version), replaced?.released ?? [])
    }
}

/// The cloud: a tree of folders and files per user, each file a reference to a blob.
extension SQLRelayStore {
    public func cloudList(path: [String], user: Int64) async throws -> (CloudEntry, [CloudEntry]) {
        try await sql.database.read { db in
            let row = try await CloudTree.resolve(db, path, user: user)
            var here = row?.entry(path: CloudTree.text(path))
                ?? CloudEntry(id: "", name: "", path: "/", kind: .folder, created: Date(timeIntervalSince1970: 0),
                              updated: Date(timeIntervalSince1970: 0))
            guard here.kind == .folder else {
                here.version = try await CloudTree.head(db, file: here.id)
                return (here, [])
            }
            let folder = row?.id ?? ""
            let children = try await db.all("SELECT * FROM cloud WHERE user_id = \(user) AND parent = \(folder) ORDER BY name",
                                            as: CloudRow.self)
            return (here, try await CloudTree.withVersions(db, children.map { $0.entry(path: CloudTree.text(path + [$0.name])) },
                                                           user: user, parent: folder))
        }
    }

    public func cloudMakeFolder(path: [String], id: String, user: Int64, maxEntries: Int, now: Date) async throws -> CloudEntry {
        try await sql.database.write { db in
            guard let name = path.last else { throw StoreError.conflict("the root folder exists") }
            try await CloudTree.lockUser(db, user)
            let parent = try await CloudTree.parentFolder(db, path, user: user)
            if try await CloudTree.exists(db, parent: parent, name: name, user: user) {
                throw StoreError.conflict("\"\(CloudTree.text(path))\" already exists")
            }
            try await CloudTree.checkRoom(db, user: user, maxEntries: maxEntries)
            try await db.run("""
                INSERT INTO cloud(id, user_id, parent, name, kind, created, updated)
                VALUES (\(id), \(user), \(parent), \(name), 'folder', \(now), \(now))
                """)
            try await StoreRows.audit(db, org: nil, actor: "user:\(user)", action: "cloud.mkdir", subject: id, now: now)
            return CloudEntry(id: id, name: name, path: CloudTree.text(path), kind: .folder, created: now, updated: now)
        }
    }

    public func cloudPut(path: [String], id: String, upload: String, blobID: String, user: Int64, device: String,
                         expecting: CloudPut.Expectation, maxEntries: Int, now: Date) async throws -> (CloudEntry, [String]) {
        try await sql.database.write { db in
            guard !path.isEmpty else { throw StoreError.conflict("the root is a folder") }
            try await CloudTree.lockUser(db, user)
            let parent = try await CloudTree.parentFolder(db, path, user: user)
            let blob = try await StoreRows.consumeUpload(db, id: upload, user: user, blobID: blobID, refs: 1, now: now)
            return try await CloudTree.put(db, path: path, parent: parent, id: id, blob: blob, user: user, device: device,
                                           expecting: expecting, maxEntries: maxEntries, now: now)
        }
    }

    public func cloudMove(from: [String], to: [String], user: Int64, now: Date) async throws -> CloudEntry {
        try await sql.database.write { db in
            try await CloudTree.lockUser(db, user)
            guard let row = try await CloudTree.resolve(db, from, user: user), let name = to.last else {
                throw StoreError.conflict("the root folder cannot be moved or replaced")
            }
            let rowID = row.id
            let parent = try await CloudTree.parentFolder(db, to, user: user)
            // A folder cannot move into itself or below itself.
            var ancestor = parent
            while !ancestor.isEmpty {
                if ancestor == rowID { throw StoreError.conflict("cannot move a folder into itself") }
                ancestor = try await db.value("SELECT parent FROM cloud WHERE id = \(ancestor)", as: String.self) ?? ""
            }
            if try await CloudTree.exists(db, parent: parent, name: name, user: user) {
                throw StoreError.conflict("\"\(CloudTree.text(to))\" already exists")
            }
            // The files moved, their blobs locked (the store's lock order) before any row
            // changes: each file's head gets a row under its new path (one more reference).
            let files = try await CloudTree.files(db, at: row, path: from, user: user)
            try await StoreRows.lockBlobs(db, Array(Set(files.values.compactMap(\.blobID))).sorted())
            for (at, file) in files { try await CloudTree.holdHead(db, file, path: CloudTree.names(at), user: user) }
            let heads = files.isEmpty ? [] : try await db.all("""
                SELECT * FROM cloud_versions WHERE until IS NULL AND file_id IN \(list: files.values.map(\.id))
                """, as: CloudVersionRow.self)
            guard let moved = try await db.one("""
                UPDATE cloud SET parent = \(parent), name = \(name), updated = \(now) WHERE id = \(rowID) RETURNING *
                """, as: CloudRow.self) else { throw StoreError.notFound("no such file or folder \"\(CloudTree.text(from))\"") }
            let paths = Dictionary(files.map { ($0.value.id, $0.key) }, uniquingKeysWith: { first, _ in first })
            for head in heads {
                guard let old = paths[head.fileID], let blob = head.blob else { continue }
                let new = to + CloudTree.names(old).dropFirst(from.count)
                try await CloudTree.recordVersion(db, head.version, file: head.fileID, path: new, user: user, device: head.device,
                                                  blob: blob, now: now)
            }
            try await StoreRows.audit(db, org: nil, actor: "user:\(user)", action: "cloud.move", subject: rowID,
                                      detail: CloudTree.text(to), now: now)
            var entry = moved.entry(path: CloudTree.text(to))
            if entry.kind == .file { entry.version = try await CloudTree.head(db, file: rowID) }
            return entry
        }
    }

    public func cloudDelete(path: [String], user: Int64, now: Date) async throws -> [String] {
        try await sql.database.write { db in
            try await CloudTree.lockUser(db, user)
            guard let row = try await CloudTree.resolve(db, path, user: user) else {
                throw StoreError.conflict("the root folder cannot be deleted")
            }
            // The whole subtree first, to lock its blobs before any of its rows (the lock order).
            var rows = [row]
            var next = 0
            while next < rows.count {
                rows += try await db.all("SELECT * FROM cloud WHERE user_id = \(user) AND parent = \(rows[next].id)", as: CloudRow.self)
                next += 1
            }
            let blobs = rows.compactMap(\.blobID).sorted()
            try await StoreRows.lockBlobs(db, Array(Set(blobs)).sorted())
            // Each file keeps its versions (and their blobs): the removed file's last one is in the trash.
            for (at, file) in try await CloudTree.files(db, at: row, path: path, user: user) {
                try await CloudTree.holdHead(db, file, path: CloudTree.names(at), user: user)
            }
            try await db.run("DELETE FROM cloud WHERE id IN \(list: rows.map(\.id))")
            let files = rows.filter { $0.kind == "file" }.map(\.id)
            if !files.isEmpty {
                try await db.run("UPDATE cloud_versions SET until = \(now) WHERE until IS NULL AND file_id IN \(list: files)")
            }
            var released = [String]()
            for blob in blobs {
                if try await StoreRows.release(db, blob: blob) { released.append(blob) }
            }
            try await StoreRows.audit(db, org: nil, actor: "user:\(user)", action: "cloud.delete", subject: row.id,
                                      detail: CloudTree.text(path), now: now)
            return released
        }
    }

    public func cloudFile(path: [String], user: Int64) async throws -> BlobRef {
        try await sql.database.read { db in
            try await CloudTree.file(db, path, user: user).blob
        }
    }

    public func cloudPutTransfer(path: [String], id: String, transfer: String, sender: String, user: Int64,
                                 expecting: CloudPut.Expectation, maxEntries: Int, now: Date) async throws -> (CloudEntry, [String]) {
        try await sql.database.write { db in
            guard let name = path.last else { throw StoreError.conflict("the root is a folder") }
            try await CloudTree.lockUser(db, user)
            let gone = StoreError.notFound("no transfer \"\(transfer)\" whose ciphertext is still held")
            guard let held = try await db.value("""
                SELECT t.blob_id FROM transfers t JOIN blobs b ON b.id = t.blob_id
                WHERE t.id = \(transfer) AND t.sender_device = \(sender) AND t.sender_user = \(user)
                """, as: String.self) else { throw gone }
            let parent = try await CloudTree.parentFolder(db, path, user: user)
            // Both blobs, the transfer's and that of a file it replaces, locked at once by id
            // (the store's lock order) before any cloud row.
            let there = try await db.value("""
                SELECT blob_id FROM cloud WHERE user_id = \(user) AND parent = \(parent) AND name = \(name)
                """, as: String.self)
            try await StoreRows.lockBlobs(db, [held] + (there.map { [$0] } ?? []))
            // The transfer's blob, locked: it is live while one of its copies waits.
            guard let blob = try await db.one("SELECT * FROM blobs WHERE id = \(held)") else { throw gone }
            let ref = try blob.decode(BlobRow.self).ref
            // The new reference first: a file there that already holds this blob then
            // releases its own reference without the count reaching 0.
            try await db.run("UPDATE blobs SET refs = refs + 1 WHERE id = \(ref.id)")
            return try await CloudTree.put(db, path: path, parent: parent, id: id, blob: ref, user: user, device: sender,
                                           expecting: expecting, maxEntries: maxEntries, detail: "transfer \(transfer)", now: now)
        }
    }

    public func cloudReplaceBlob(path: [String], expected: String, with blob: BlobRef, user: Int64,
                                 now: Date) async throws -> (CloudEntry, [String]) {
        try await sql.database.write { db in
            try await CloudTree.lockUser(db, user)
            let row = try await CloudTree.file(db, path, user: user)
            let current = try row.blob.sha256
            guard current == expected else { throw StoreError.preconditionFailed("the file changed: its SHA-256 is \(current)") }
            let rowID = row.id, old = row.blobID
            if let old { try await StoreRows.lockBlobs(db, [old]) }
            // The head's version row follows the new header (the version stays), and so do
            // the file's earlier rows on the same blob (a move's row at the old path): each
            // releases its reference to the old blob and holds one to the new, which is
            // then the only copy of that content the file's history keeps.
            try await CloudTree.holdHead(db, row, path: path, user: user)
            let head = try await db.one("SELECT * FROM cloud_versions WHERE file_id = \(rowID) AND until IS NULL", as: CloudVersionRow.self)
            let earlier = old == nil ? [] : try await db.all("""
                SELECT * FROM cloud_versions WHERE file_id = \(rowID) AND blob_id = \(old) AND until IS NOT NULL
                """, as: CloudVersionRow.self)
            let following = (head.map { [$0] } ?? []) + earlier
            try await db.run("""
                INSERT INTO blobs(id, size, sha256, refs, created)
                VALUES (\(blob.id), \(blob.size), \(blob.sha256), \(Int64(1 + following.count)), \(now))
                """)
            if !following.isEmpty {
                try await db.run("""
                    UPDATE cloud_versions SET blob_id = \(blob.id), size = \(blob.size), sha256 = \(blob.sha256)
                    WHERE id IN \(list: following.map(\.id))
                    """)
            }
            guard let updated = try await db.one("""
                UPDATE cloud SET blob_id = \(blob.id), size = \(blob.size), sha256 = \(blob.sha256), updated = \(now)
                WHERE id = \(rowID) RETURNING *
                """, as: CloudRow.self) else { throw StoreError.notFound("no such file \"\(CloudTree.text(path))\"") }
            var released = [String]()
            if let old, try await StoreRows.release(db, blob: old) { released.append(old) }
            for held in following.compactMap(\.blobID) where try await StoreRows.release(db, blob: held) { released.append(held) }
            try await StoreRows.audit(db, org: nil, actor: "user:\(user)", action: "cloud.rekey", subject: rowID, now: now)
            var entry = updated.entry(path: CloudTree.text(path))
            entry.version = try await CloudTree.head(db, file: rowID)
            return (entry, released)
        }
    }
}
