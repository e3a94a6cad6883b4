import Foundation
import GRDB
import Synchronization
import VFSPolicyModel
import VFSRelayProtocol

/// The embedded store: one SQLite database in WAL mode (readers never wait for the
/// writer), opened by `serve` and by the admin commands alike.
public final class SQLiteRelayStore: SQLRelayStore {
    let pool: DatabasePool
    private let maintenanceRunning = Mutex(false)
    /// Uploads with a writer now (one process serves an embedded relay).
    private let uploadWriters = Mutex(Set<String>())
    /// Wake-ups for new events: one process serves an embedded relay.
    private let notifications = InProcessEventNotifications()
    public var eventNotifications: any EventNotifications { notifications }

    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        // The seam's write transaction spans several accesses to the writer (`SQLiteSQLDatabase`).
        configuration.allowsUnsafeTransactions = true
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        database = SQLiteSQLDatabase(pool: pool, gate: AsyncGate())
        try SQLiteMigrations.migrator.migrate(pool)
    }

    let database: SQLiteSQLDatabase
    public var sql: SQLHandle { SQLHandle(database: database, notify: { [notifications] in notifications.post($0) }) }

    /// One write transaction of GRDB code, in turn with the seam's.
    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await database.write(updates)
    }

    // MARK: - helpers

    static func seconds(_ date: Date) -> Double { date.timeIntervalSince1970 }
    static func date(_ row: Row, _ column: String) -> Date { Date(timeIntervalSince1970: row[column]) }
    static func optionalDate(_ row: Row, _ column: String) -> Date? {
        (row[column] as Double?).map { Date(timeIntervalSince1970: $0) }
    }

    static func device(_ row: Row) -> Device {
        Device(id: row["id"], name: row["name"], platform: row["platform"], recipient: row["recipient"],
               created: date(row, "created"), lastSeen: optionalDate(row, "last_seen"),
               invalidated: optionalDate(row, "invalidated"))
    }

    static func audit(_ db: Database, org: Int64?, actor: String, action: String, subject: String,
                      detail: String = "", now: Date) throws {
        try db.execute(sql: "INSERT INTO audit(at, org_id, actor, action, subject, detail) VALUES (?, ?, ?, ?, ?, ?)",
                       arguments: [seconds(now), org, actor, action, subject, detail])
    }

    /// Drops one reference; deletes the blob row at zero and reports it.
    static func release(_ db: Database, blob: String) throws -> Bool {
        try db.execute(sql: "UPDATE blobs SET refs = refs - 1 WHERE id = ?", arguments: [blob])
        let refs = try Int64.fetchOne(db, sql: "SELECT refs FROM blobs WHERE id = ?", arguments: [blob])
        guard let refs, refs <= 0 else { return false }
        try db.execute(sql: "DELETE FROM blobs WHERE id = ?", arguments: [blob])
        return true
    }

    /// Events of the areas not yet on the seam (`StoreRows.insertEvents` is the seam's).
    static func insertEvent(_ db: Database, kind: RelayEventKind, data: String, device: String, now: Date) throws {
        try db.execute(sql: "INSERT INTO events(device_id, kind, data, created) VALUES (?, ?, ?, ?)",
                       arguments: [device, kind.rawValue, data, seconds(now)])
    }

    static func ownedDevice(_ db: Database, id: String, user: Int64) throws -> Row {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM devices WHERE id = ? AND user_id = ? AND invalidated IS NULL",
                                         arguments: [id, user]) else {
            throw StoreError.notFound("no device \"\(id)\"")
        }
        return row
    }

    // MARK: - operator

    public func backup(to path: String) async throws {
        let target = try DatabaseQueue(path: path)
        try pool.backup(to: target)
        try target.close()
    }

    // MARK: - groups

    static func group(_ db: Database, name: String, user: Int64) throws -> DeviceGroup {
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM device_groups WHERE user_id = ? AND name = ?",
                                          arguments: [user, name]) else {
            throw StoreError.notFound("no group \"\(name)\"")
        }
        let members = try String.fetchAll(db, sql: "SELECT device_id FROM group_members WHERE group_id = ? ORDER BY device_id",
                                          arguments: [id])
        return DeviceGroup(name: name, members: members)
    }

    // MARK: - uploads

    static func upload(_ row: Row) -> UploadRecord {
        UploadRecord(id: row["id"], userID: row["user_id"], deviceID: row["device_id"], length: row["length"],
                     offset: row["offset"], metadata: row["metadata"], created: date(row, "created"),
                     expires: date(row, "expires"), sha256: row["sha256"])
    }

    /// A finished upload of this user, deleted as it becomes a blob with `refs` references.
    static func consumeUpload(_ db: Database, id: String, user: Int64, blobID: String, refs: Int, now: Date) throws -> BlobRef {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM uploads WHERE id = ? AND user_id = ?", arguments: [id, user]) else {
            throw StoreError.notFound("no upload \"\(id)\"")
        }
        let upload = Self.upload(row)
        guard let length = upload.length, upload.offset == length, let sha256 = upload.sha256 else {
            throw StoreError.conflict("upload \"\(id)\" is not finished (\(upload.offset) of \(upload.length.map { "\($0) bytes" } ?? "a length not yet declared"))")
        }
        try db.execute(sql: "DELETE FROM uploads WHERE id = ?", arguments: [id])
        try db.execute(sql: "INSERT INTO blobs(id, size, sha256, refs, created) VALUES (?, ?, ?, ?, ?)",
                       arguments: [blobID, length, sha256, refs, seconds(now)])
        return BlobRef(id: blobID, size: length, sha256: sha256)
    }

    // MARK: - transfers

    static func outboxEntry(_ db: Database, transfer row: Row) throws -> OutboxEntry {
        let recipients = try Row.fetchAll(db, sql: "SELECT * FROM outbox WHERE transfer_id = ? ORDER BY device_id",
                                          arguments: [row["id"] as String]).map {
            TransferRecipient(device: $0["device_id"], status: TransferStatus(rawValue: $0["status"]) ?? .expired,
                              updated: date($0, "updated"))
        }
        return OutboxEntry(id: row["id"], size: row["size"], sha256: row["sha256"], created: date(row, "created"),
                           expires: date(row, "expires"), recipients: recipients)
    }

    public func createTransfer(id: String, upload: String, blobID: String, sender: DeviceIdentity, devices: [String],
                               groups: [String], expires: Date, now: Date) async throws -> OutboxEntry {
        let entry = try await write { db in
            var targets = [String]()
            for device in devices {
                _ = try Self.ownedDevice(db, id: device, user: sender.userID)
                if !targets.contains(device) { targets.append(device) }
            }
            for name in groups {
                for member in try Self.group(db, name: name, user: sender.userID).members where !targets.contains(member) {
                    targets.append(member)
                }
            }
            guard !targets.isEmpty else { throw StoreError.invalid("a transfer needs at least one target device") }
            let blob = try Self.consumeUpload(db, id: upload, user: sender.userID, blobID: blobID, refs: targets.count, now: now)
            try db.execute(sql: """
                INSERT INTO transfers(id, sender_device, sender_user, blob_id, size, sha256, created, expires)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [id, sender.deviceID, sender.userID, blob.id, blob.size, blob.sha256,
                                 Self.seconds(now), Self.seconds(expires)])
            for target in targets {
                try db.execute(sql: "INSERT INTO outbox(transfer_id, device_id, status, updated) VALUES (?, ?, 'unattended', ?)",
                               arguments: [id, target, Self.seconds(now)])
                try Self.insertEvent(db, kind: .transfer, data: StoreRows.json(["transfer": id]), device: target, now: now)
            }
            try Self.audit(db, org: sender.orgID, actor: sender.deviceID, action: "transfer.create", subject: id,
                           detail: targets.joined(separator: ","), now: now)
            let row = try Row.fetchOne(db, sql: "SELECT * FROM transfers WHERE id = ?", arguments: [id])!
            return try Self.outboxEntry(db, transfer: row)
        }
        notifications.post(entry.recipients.map(\.device))
        return entry
    }

    public func inbox(device: String) async throws -> [InboxEntry] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT t.*, o.status FROM outbox o JOIN transfers t ON t.id = o.transfer_id
                WHERE o.device_id = ? AND o.status IN ('unattended', 'initiated') ORDER BY t.created, t.id
                """, arguments: [device]).map {
                InboxEntry(id: $0["id"], sender: $0["sender_device"], size: $0["size"], sha256: $0["sha256"],
                           created: Self.date($0, "created"), expires: Self.date($0, "expires"),
                           status: TransferStatus(rawValue: $0["status"]) ?? .unattended)
            }
        }
    }

    public func outbox(device: String) async throws -> [OutboxEntry] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM transfers WHERE sender_device = ? ORDER BY created, id", arguments: [device])
                .map { try Self.outboxEntry(db, transfer: $0) }
        }
    }

    public func openTransfer(id: String, device: String, now: Date) async throws -> BlobRef {
        try await write { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT t.blob_id, t.size, t.sha256, o.status FROM outbox o JOIN transfers t ON t.id = o.transfer_id
                WHERE o.transfer_id = ? AND o.device_id = ? AND o.status IN ('unattended', 'initiated')
                """, arguments: [id, device]) else { throw StoreError.notFound("no transfer \"\(id)\"") }
            if (row["status"] as String) == "unattended" {
                try db.execute(sql: "UPDATE outbox SET status = 'initiated', updated = ? WHERE transfer_id = ? AND device_id = ?",
                               arguments: [Self.seconds(now), id, device])
            }
            return BlobRef(id: row["blob_id"], size: row["size"], sha256: row["sha256"])
        }
    }

    public func finishTransfer(id: String, device: String, status: TransferStatus, now: Date) async throws -> [String] {
        try await write { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT t.blob_id, t.sender_user FROM outbox o JOIN transfers t ON t.id = o.transfer_id
                WHERE o.transfer_id = ? AND o.device_id = ? AND o.status IN ('unattended', 'initiated')
                """, arguments: [id, device]) else { throw StoreError.notFound("no transfer \"\(id)\"") }
            try db.execute(sql: "UPDATE outbox SET status = ?, updated = ? WHERE transfer_id = ? AND device_id = ?",
                           arguments: [status.rawValue, Self.seconds(now), id, device])
            try Self.audit(db, org: nil, actor: device, action: "transfer.\(status.rawValue)", subject: id, now: now)
            return try Self.release(db, blob: row["blob_id"]) ? [row["blob_id"]] : []
        }
    }

    public func expireTransfers(now: Date) async throws -> [String] {
        try await write { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT o.transfer_id, o.device_id, t.blob_id FROM outbox o JOIN transfers t ON t.id = o.transfer_id
                WHERE o.status IN ('unattended', 'initiated') AND t.expires <= ?
                """, arguments: [Self.seconds(now)])
            var released = [String]()
            for row in rows {
                try db.execute(sql: "UPDATE outbox SET status = 'expired', updated = ? WHERE transfer_id = ? AND device_id = ?",
                               arguments: [Self.seconds(now), row["transfer_id"] as String, row["device_id"] as String])
                if try Self.release(db, blob: row["blob_id"]) { released.append(row["blob_id"]) }
            }
            if !rows.isEmpty {
                try Self.audit(db, org: nil, actor: "relay", action: "transfer.expire", subject: "\(rows.count) copies", now: now)
            }
            return released
        }
    }

    public func cancelTransfer(id: String, sender: String, now: Date) async throws -> [String] {
        try await write { db in
            guard let blob = try String.fetchOne(db, sql: "SELECT blob_id FROM transfers WHERE id = ? AND sender_device = ?",
                                                 arguments: [id, sender]) else { throw StoreError.notFound("no transfer \"\(id)\"") }
            let waiting = try String.fetchAll(db, sql: "SELECT device_id FROM outbox WHERE transfer_id = ? AND status IN ('unattended', 'initiated')",
                                              arguments: [id])
            var released = [String]()
            for device in waiting {
                try db.execute(sql: "UPDATE outbox SET status = 'expired', updated = ? WHERE transfer_id = ? AND device_id = ?",
                               arguments: [Self.seconds(now), id, device])
                if try Self.release(db, blob: blob) { released.append(blob) }
            }
            try Self.audit(db, org: nil, actor: sender, action: "transfer.cancel", subject: id, now: now)
            return released
        }
    }

    // MARK: - events

    // MARK: - cloud

    static func cloudEntry(_ row: Row, path: String) -> CloudEntry {
        let kind = CloudEntryKind(rawValue: row["kind"]) ?? .file
        return CloudEntry(id: row["id"], name: row["name"], path: path, kind: kind,
                          size: kind == .file ? row["size"] : nil, sha256: kind == .file ? row["sha256"] : nil,
                          created: date(row, "created"), updated: date(row, "updated"))
    }

    static func pathText(_ path: [String]) -> String { "/" + path.joined(separator: "/") }

    /// The row at `path` (nil for the root).
    static func resolve(_ db: Database, _ path: [String], user: Int64) throws -> Row? {
        var parent = ""
        var row: Row?
        for (n, name) in path.enumerated() {
            guard let next = try Row.fetchOne(db, sql: "SELECT * FROM cloud WHERE user_id = ? AND parent = ? AND name = ?",
                                              arguments: [user, parent, name]) else {
                throw StoreError.notFound("no such file or folder \"\(pathText(path))\"")
            }
            if n < path.count - 1, (next["kind"] as String) != "folder" {
                throw StoreError.notFound("no such file or folder \"\(pathText(path))\"")
            }
            row = next
            parent = next["id"]
        }
        return row
    }

    /// The id of the folder that would hold `path` (`""` for the root).
    /// Removes the file `name` in `parent` to put another in its place (a folder there is a
    /// conflict) and releases its blob reference; nil when nothing is there. The caller
    /// keeps the returned id and creation time; `released` are the blobs to delete.
    static func displaceFile(_ db: Database, parent: String, name: String, path: [String],
                             user: Int64) throws -> (id: String, created: Date, released: [String])? {
        guard let existing = try Row.fetchOne(db, sql: "SELECT * FROM cloud WHERE user_id = ? AND parent = ? AND name = ?",
                                              arguments: [user, parent, name]) else { return nil }
        guard (existing["kind"] as String) == "file" else {
            throw StoreError.conflict("\"\(Self.pathText(path))\" is a folder")
        }
        let id: String = existing["id"]
        try db.execute(sql: "DELETE FROM cloud WHERE id = ?", arguments: [id])
        var released = [String]()
        if let old = existing["blob_id"] as String?, try Self.release(db, blob: old) { released.append(old) }
        return (id, Self.date(existing, "created"), released)
    }

    static func parentFolder(_ db: Database, _ path: [String], user: Int64) throws -> String {
        guard let folder = try resolve(db, Array(path.dropLast()), user: user) else { return "" }
        guard (folder["kind"] as String) == "folder" else {
            throw StoreError.notFound("no such folder \"\(pathText(Array(path.dropLast())))\"")
        }
        return folder["id"]
    }

    public func cloudList(path: [String], user: Int64) async throws -> (CloudEntry, [CloudEntry]) {
        try await pool.read { db in
            let row = try Self.resolve(db, path, user: user)
            let here = row.map { Self.cloudEntry($0, path: Self.pathText(path)) }
                ?? CloudEntry(id: "", name: "", path: "/", kind: .folder, created: Date(timeIntervalSince1970: 0),
                              updated: Date(timeIntervalSince1970: 0))
            guard here.kind == .folder else { return (here, []) }
            let children = try Row.fetchAll(db, sql: "SELECT * FROM cloud WHERE user_id = ? AND parent = ? ORDER BY name",
                                            arguments: [user, row?["id"] ?? ""])
            return (here, children.map { Self.cloudEntry($0, path: Self.pathText(path + [$0["name"] as String])) })
        }
    }

    public func cloudMakeFolder(path: [String], id: String, user: Int64, now: Date) async throws -> CloudEntry {
        try await write { db in
            guard let name = path.last else { throw StoreError.conflict("the root folder exists") }
            let parent = try Self.parentFolder(db, path, user: user)
            if try Row.fetchOne(db, sql: "SELECT 1 FROM cloud WHERE user_id = ? AND parent = ? AND name = ?",
                                arguments: [user, parent, name]) != nil {
                throw StoreError.conflict("\"\(Self.pathText(path))\" already exists")
            }
            try db.execute(sql: "INSERT INTO cloud(id, user_id, parent, name, kind, created, updated) VALUES (?, ?, ?, ?, 'folder', ?, ?)",
                           arguments: [id, user, parent, name, Self.seconds(now), Self.seconds(now)])
            try Self.audit(db, org: nil, actor: "user:\(user)", action: "cloud.mkdir", subject: id, now: now)
            return CloudEntry(id: id, name: name, path: Self.pathText(path), kind: .folder, created: now, updated: now)
        }
    }

    public func cloudPut(path: [String], id: String, upload: String, blobID: String, user: Int64, now: Date) async throws -> (CloudEntry, [String]) {
        try await write { db in
            guard let name = path.last else { throw StoreError.conflict("the root is a folder") }
            let parent = try Self.parentFolder(db, path, user: user)
            let blob = try Self.consumeUpload(db, id: upload, user: user, blobID: blobID, refs: 1, now: now)
            let replaced = try Self.displaceFile(db, parent: parent, name: name, path: path, user: user)
            let entryID = replaced?.id ?? id, created = replaced?.created ?? now, released = replaced?.released ?? []
            try db.execute(sql: """
                INSERT INTO cloud(id, user_id, parent, name, kind, blob_id, size, sha256, created, updated)
                VALUES (?, ?, ?, ?, 'file', ?, ?, ?, ?, ?)
                """, arguments: [entryID, user, parent, name, blob.id, blob.size, blob.sha256, Self.seconds(created), Self.seconds(now)])
            try Self.audit(db, org: nil, actor: "user:\(user)", action: "cloud.put", subject: entryID, now: now)
            return (CloudEntry(id: entryID, name: name, path: Self.pathText(path), kind: .file, size: blob.size,
                               sha256: blob.sha256, created: created, updated: now), released)
        }
    }

    public func cloudMove(from: [String], to: [String], user: Int64, now: Date) async throws -> CloudEntry {
        try await write { db in
            guard let row = try Self.resolve(db, from, user: user), let name = to.last else {
                throw StoreError.conflict("the root folder cannot be moved or replaced")
            }
            let parent = try Self.parentFolder(db, to, user: user)
            // A folder cannot move into itself or below itself.
            var ancestor = parent
            while !ancestor.isEmpty {
                if ancestor == (row["id"] as String) { throw StoreError.conflict("cannot move a folder into itself") }
                ancestor = try String.fetchOne(db, sql: "SELECT parent FROM cloud WHERE id = ?", arguments: [ancestor]) ?? ""
            }
            if try Row.fetchOne(db, sql: "SELECT 1 FROM cloud WHERE user_id = ? AND parent = ? AND name = ?",
                                arguments: [user, parent, name]) != nil {
                throw StoreError.conflict("\"\(Self.pathText(to))\" already exists")
            }
            try db.execute(sql: "UPDATE cloud SET parent = ?, name = ?, updated = ? WHERE id = ?",
                           arguments: [parent, name, Self.seconds(now), row["id"] as String])
            try Self.audit(db, org: nil, actor: "user:\(user)", action: "cloud.move", subject: row["id"],
                           detail: Self.pathText(to), now: now)
            let moved = try Row.fetchOne(db, sql: "SELECT * FROM cloud WHERE id = ?", arguments: [row["id"] as String])!
            return Self.cloudEntry(moved, path: Self.pathText(to))
        }
    }

    public func cloudDelete(path: [String], user: Int64, now: Date) async throws -> [String] {
        try await write { db in
            guard let row = try Self.resolve(db, path, user: user) else {
                throw StoreError.conflict("the root folder cannot be deleted")
            }
            var released = [String]()
            var pending = [row]
            while let next = pending.popLast() {
                let id: String = next["id"]
                pending += try Row.fetchAll(db, sql: "SELECT * FROM cloud WHERE user_id = ? AND parent = ?", arguments: [user, id])
                try db.execute(sql: "DELETE FROM cloud WHERE id = ?", arguments: [id])
                if let blob = next["blob_id"] as String?, try Self.release(db, blob: blob) { released.append(blob) }
            }
            try Self.audit(db, org: nil, actor: "user:\(user)", action: "cloud.delete", subject: row["id"],
                           detail: Self.pathText(path), now: now)
            return released
        }
    }

    public func cloudFile(path: [String], user: Int64) async throws -> BlobRef {
        try await pool.read { db in
            guard let row = try Self.resolve(db, path, user: user), (row["kind"] as String) == "file" else {
                throw StoreError.notFound("no such file \"\(Self.pathText(path))\"")
            }
            return BlobRef(id: row["blob_id"], size: row["size"], sha256: row["sha256"])
        }
    }

    public func cloudPutTransfer(path: [String], id: String, transfer: String, sender: String, user: Int64,
                                 now: Date) async throws -> (CloudEntry, [String]) {
        try await write { db in
            guard let name = path.last else { throw StoreError.conflict("the root is a folder") }
            // The transfer's blob is live while one of its copies waits.
            guard let blob = try Row.fetchOne(db, sql: """
                SELECT b.* FROM transfers t JOIN blobs b ON b.id = t.blob_id
                WHERE t.id = ? AND t.sender_device = ? AND t.sender_user = ?
                """, arguments: [transfer, sender, user]) else {
                throw StoreError.notFound("no transfer \"\(transfer)\" whose ciphertext is still held")
            }
            let parent = try Self.parentFolder(db, path, user: user)
            let ref = BlobRef(id: blob["id"], size: blob["size"], sha256: blob["sha256"])
            // The new reference first: a file there that already holds this blob then
            // releases its own reference without the count reaching 0.
            try db.execute(sql: "UPDATE blobs SET refs = refs + 1 WHERE id = ?", arguments: [ref.id])
            let replaced = try Self.displaceFile(db, parent: parent, name: name, path: path, user: user)
            let entryID = replaced?.id ?? id, created = replaced?.created ?? now, released = replaced?.released ?? []
            try db.execute(sql: """
                INSERT INTO cloud(id, user_id, parent, name, kind, blob_id, size, sha256, created, updated)
                VALUES (?, ?, ?, ?, 'file', ?, ?, ?, ?, ?)
                """, arguments: [entryID, user, parent, name, ref.id, ref.size, ref.sha256, Self.seconds(created), Self.seconds(now)])
            try Self.audit(db, org: nil, actor: "user:\(user)", action: "cloud.put", subject: entryID, detail: "transfer \(transfer)", now: now)
            return (CloudEntry(id: entryID, name: name, path: Self.pathText(path), kind: .file, size: ref.size,
                               sha256: ref.sha256, created: created, updated: now), released)
        }
    }

    public func cloudReplaceBlob(path: [String], expected: String, with blob: BlobRef, user: Int64,
                                 now: Date) async throws -> (CloudEntry, [String]) {
        try await write { db in
            guard let row = try Self.resolve(db, path, user: user), (row["kind"] as String) == "file" else {
                throw StoreError.notFound("no such file \"\(Self.pathText(path))\"")
            }
            guard (row["sha256"] as String) == expected else {
                throw StoreError.preconditionFailed("the file changed: its SHA-256 is \(row["sha256"] as String)")
            }
            try db.execute(sql: "INSERT INTO blobs(id, size, sha256, refs, created) VALUES (?, ?, ?, 1, ?)",
                           arguments: [blob.id, blob.size, blob.sha256, Self.seconds(now)])
            try db.execute(sql: "UPDATE cloud SET blob_id = ?, size = ?, sha256 = ?, updated = ? WHERE id = ?",
                           arguments: [blob.id, blob.size, blob.sha256, Self.seconds(now), row["id"] as String])
            var released = [String]()
            if let old = row["blob_id"] as String?, try Self.release(db, blob: old) { released.append(old) }
            try Self.audit(db, org: nil, actor: "user:\(user)", action: "cloud.rekey", subject: row["id"], now: now)
            let updated = try Row.fetchOne(db, sql: "SELECT * FROM cloud WHERE id = ?", arguments: [row["id"] as String])!
            return (Self.cloudEntry(updated, path: Self.pathText(path)), released)
        }
    }

    // MARK: - maintenance

    public func collectGarbage(files: Set<String>, fileExists: @escaping @Sendable (String) -> Bool,
                               eventsBefore: Date, now: Date) async throws -> (report: GarbageReport, delete: [String]) {
        try await write { db in
            var report = GarbageReport()
            var delete = [String]()
            // Rows whose file is gone: their copies can never be delivered.
            for blob in try String.fetchAll(db, sql: "SELECT id FROM blobs") where !files.contains(blob) && !fileExists(blob) {
                try db.execute(sql: """
                    UPDATE outbox SET status = 'expired', updated = ? WHERE status IN ('unattended', 'initiated')
                    AND transfer_id IN (SELECT id FROM transfers WHERE blob_id = ?)
                    """, arguments: [Self.seconds(now), blob])
                try db.execute(sql: "DELETE FROM cloud WHERE blob_id = ?", arguments: [blob])
                try db.execute(sql: "DELETE FROM blobs WHERE id = ?", arguments: [blob])
                report.orphanRows += 1
            }
            let counts = try Row.fetchAll(db, sql: Self.referenceSQL)
            for row in counts {
                let id: String = row["id"], refs: Int64 = row["refs"], live: Int64 = row["live"]
                if live == 0 {
                    try db.execute(sql: "DELETE FROM blobs WHERE id = ?", arguments: [id])
                    delete.append(id)
                    report.releasedBlobs += 1
                } else if refs != live {
                    try db.execute(sql: "UPDATE blobs SET refs = ? WHERE id = ?", arguments: [live, id])
                    report.fixedReferenceCounts += 1
                }
            }
            let rows = Set(try String.fetchAll(db, sql: "SELECT id FROM blobs"))
            for file in files where !rows.contains(file) && !delete.contains(file) {
                delete.append(file)
                report.orphanFiles += 1
            }
            try db.execute(sql: "DELETE FROM events WHERE created < ?", arguments: [Self.seconds(eventsBefore)])
            report.prunedEvents = db.changesCount
            return (report, delete)
        }
    }

    static let referenceSQL = """
        SELECT b.id, b.refs,
          (SELECT COUNT(*) FROM outbox o JOIN transfers t ON t.id = o.transfer_id
             WHERE t.blob_id = b.id AND o.status IN ('unattended', 'initiated'))
          + (SELECT COUNT(*) FROM cloud c WHERE c.blob_id = b.id) AS live
        FROM blobs b ORDER BY b.id
        """

    public func referenceAudit() async throws -> [(id: String, refs: Int64, live: Int64)] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: Self.referenceSQL).map { (id: $0["id"], refs: $0["refs"], live: $0["live"]) }
        }
    }

    // MARK: - across processes

    /// One process serves a SQLite relay; `gc` beside it is kept out by SQLite's own
    /// write lock per step, as before. This lock only keeps two sweeps of one process apart.
    public func withMaintenanceLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T? {
        guard maintenanceRunning.withLock({ running in
            if running { return false }
            running = true
            return true
        }) else { return nil }
        defer { maintenanceRunning.withLock { $0 = false } }
        return try await body()
    }

    public func withUploadWriteLock<T: Sendable>(_ id: String, _ body: () async throws -> T) async throws -> T? {
        guard uploadWriters.withLock({ $0.insert(id).inserted }) else { return nil }
        defer { _ = uploadWriters.withLock { $0.remove(id) } }
        return try await body()
    }
}
