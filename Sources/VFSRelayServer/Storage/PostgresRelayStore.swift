import Crypto
import Foundation
import Logging
import PostgresNIO
import VFSPolicyModel
import VFSRelayProtocol

typealias PGRow = PostgresRandomAccessRow

/// One connection, in a transaction or not, with the few shapes of query the store uses.
/// Every value goes in as a bound parameter (PostgresQuery's interpolation), never into
/// the SQL text.
struct PGSession {
    let connection: PostgresConnection
    let logger: Logger

    func all(_ query: PostgresQuery) async throws -> [PGRow] {
        var rows = [PGRow]()
        for try await row in try await connection.query(query, logger: logger) { rows.append(row.makeRandomAccess()) }
        return rows
    }

    func one(_ query: PostgresQuery) async throws -> PGRow? { try await all(query).first }

    func run(_ query: PostgresQuery) async throws {
        for try await _ in try await connection.query(query, logger: logger) {}
    }

    func value<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self) async throws -> T? {
        guard let row = try await one(query), row[0].bytes != nil else { return nil }
        return try row[0].decode(T.self)
    }

    func values<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self) async throws -> [T] {
        try await all(query).map { try $0[0].decode(T.self) }
    }
}

extension PGRow {
    func get<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T { try self[column].decode(T.self) }
    func date(_ column: String) throws -> Date { Date(timeIntervalSince1970: try get(column, as: Double.self)) }
    func optionalDate(_ column: String) throws -> Date? {
        try get(column, as: Double?.self).map { Date(timeIntervalSince1970: $0) }
    }
}

/// Where a `postgres://` URL points: host and port or a unix socket folder
/// (`?host=/run/postgresql`), user, password, database, `sslmode`.
public struct PostgresLocation: Sendable, Equatable {
    public var host: String?
    public var port: Int
    public var socketFolder: String?
    public var user: String
    public var password: String?
    public var database: String?
    public var requireTLS: Bool

    /// nil when `text` is not a postgres:// or postgresql:// URL.
    public init?(url text: String) {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? "") else {
            return nil
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        host = components.host.flatMap { $0.isEmpty ? nil : $0 }
        port = components.port ?? Int(query["port"] ?? "") ?? 5432
        if let folder = query["host"], folder.hasPrefix("/") {
            socketFolder = folder
        } else if let name = query["host"], !name.isEmpty {
            host = name
        }
        guard host != nil || socketFolder != nil else { return nil }
        user = components.user ?? query["user"] ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        password = components.password ?? query["password"]
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? nil : path
        switch query["sslmode"] ?? "disable" {
        case "require", "verify-ca", "verify-full": requireTLS = true
        default: requireTLS = false
        }
    }

    var configuration: PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketFolder {
            configuration = .init(unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: password,
                                  database: database)
        } else {
            configuration = .init(host: host ?? "localhost", port: port, username: user, password: password, database: database,
                                  tls: requireTLS ? .require(.makeClientConfiguration()) : .disable)
        }
        configuration.options.maximumConnections = 16
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }
}

/// The store for several relay instances: one PostgreSQL database through postgres-nio's
/// connection pool. Every change that moves a reference count or a status runs in one
/// transaction that locks the rows it changes (`FOR UPDATE`, `UPDATE … RETURNING`), so
/// two instances racing on one transfer neither double-count nor lose a reference.
/// Events also go out, after their commit, as `NOTIFY vfs_events, 'DEVICE'` so other instances wake the
/// device's streams at once.
public final class PostgresRelayStore: SQLRelayStore, EventNotifications {
    let client: PostgresClient
    let logger: Logger
    private let runner: Task<Void, Never>
    public static let eventChannel = "vfs_events"
    public var eventNotifications: any EventNotifications { self }
    public var sql: SQLHandle { SQLHandle(database: PostgresSQLDatabase(store: self), notify: { [self] in await notify($0) }) }

    /// Connects and runs the migrations (under the advisory lock) when `migrate` is set.
    public init(location: PostgresLocation, migrate: Bool = true, logger: Logger = Logger(label: "vfs-relay.postgres")) async throws {
        client = PostgresClient(configuration: location.configuration, backgroundLogger: logger)
        let client = self.client
        runner = Task { await client.run() }
        self.logger = logger
        do {
            // Fails fast when the database is not there (the pool itself would wait for it).
            try await Self.withTimeout(.seconds(30), "no answer from the database in 30 s") {
                _ = try await client.query("SELECT 1", logger: logger)
            }
            if migrate { try await PostgresMigrations.migrate(client, logger: logger) }
        } catch {
            runner.cancel()
            throw error
        }
    }

    deinit { runner.cancel() }

    struct Timeout: Error, CustomStringConvertible { let description: String }

    static func withTimeout(_ limit: Duration, _ message: String, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw Timeout(description: message)
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Closes the pool's connections.
    public func shutdown() async {
        runner.cancel()
        _ = await runner.value
    }

    /// Runs the migrations not yet applied; returns their names.
    public func migrate() async throws -> [String] { try await PostgresMigrations.migrate(client, logger: logger) }

    /// The connection an upload's writer lock is held on, by store: inside
    /// `withUploadWriteLock` this store's queries run on it, so a writer never waits for a
    /// second connection of the pool (long PATCHes holding every connection would wait forever).
    @TaskLocal static var lockConnection: (store: ObjectIdentifier, connection: PostgresConnection)?

    var heldConnection: PostgresConnection? {
        Self.lockConnection.flatMap { $0.store == ObjectIdentifier(self) ? $0.connection : nil }
    }

    func read<T: Sendable>(_ body: (PGSession) async throws -> T) async throws -> T {
        if let held = heldConnection { return try await body(PGSession(connection: held, logger: logger)) }
        return try await client.withConnection { connection in try await body(PGSession(connection: connection, logger: logger)) }
    }

    /// Runs `body` in a transaction, again (after a short random wait) when PostgreSQL
    /// chose it as a deadlock's victim or failed its serialization: a rolled-back
    /// transaction is safe to run again.
    func write<T: Sendable>(_ body: (PGSession) async throws -> T) async throws -> T {
        try await Self.retrying { try await transaction(body) }
    }

    func transaction<T: Sendable>(_ body: (PGSession) async throws -> T) async throws -> T {
        do {
            if let held = heldConnection {
                return try await held.withTransaction(logger: logger) { connection in
                    try await body(PGSession(connection: connection, logger: logger))
                }
            }
            return try await client.withTransaction(logger: logger) { connection in
                try await body(PGSession(connection: connection, logger: logger))
            }
        } catch let error as PostgresTransactionError {
            // The closure's own error (a StoreError) is what the caller wants to see.
            if let closure = error.closureError { throw Self.mapped(closure) }
            if let commit = error.commitError { throw Self.mapped(commit) }
            throw error
        } catch {
            throw Self.mapped(error)
        }
    }

    /// SQLSTATEs after which the whole transaction may simply run again: deadlock
    /// detected (one of the transactions waiting in a circle is rolled back) and
    /// serialization failure.
    static let retryableStates: Set<String> = ["40P01", "40001"]
    static let attempts = 5

    static func retrying<T>(_ attempt: () async throws -> T) async throws -> T {
        var failures = 0
        while true {
            do {
                return try await attempt()
            } catch let error as PSQLError where failures + 1 < attempts && retryableStates.contains(error.serverInfo?[.sqlState] ?? "") {
                failures += 1
                // Jitter: the transactions that met do not come back in step.
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(10 << failures))))
            }
        }
    }

    /// A unique violation is a conflict (two instances creating the same thing at once).
    static func mapped(_ error: any Error) -> any Error {
        if let error = error as? PSQLError, error.serverInfo?[.sqlState] == "23505" {
            return StoreError.conflict("already exists (\(error.serverInfo?[.constraintName] ?? "unique"))")
        }
        return error
    }

    /// One line for an error of postgres-nio (whose description hides the server's message).
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return message + (error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? "")
        }
        if let underlying = error.underlying { return "\(underlying)" }
        return "\(error.code)"
    }

    // MARK: - helpers

    static func seconds(_ date: Date) -> Double { date.timeIntervalSince1970 }

    static func device(_ row: PGRow) throws -> Device { try StoreRows.device(SQLRow(row)) }

    static func audit(_ db: PGSession, org: Int64?, actor: String, action: String, subject: String,
                      detail: String = "", now: Date) async throws {
        try await StoreRows.audit(PostgresSQLConnection(session: db), org: org, actor: actor, action: action, subject: subject,
                                  detail: detail, now: now)
    }

    /// Locks blob rows in id order. The lock order of the whole store: a transaction that
    /// changes reference counts locks its blob rows first (all of them, by id, as gc does
    /// with every row), and only then the outbox, transfer and cloud rows that use them;
    /// two transactions never wait for each other in a circle (SQLSTATE 40P01).
    static func lockBlobs(_ db: PGSession, _ ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        try await db.run("SELECT id FROM blobs WHERE id = ANY(\(ids)::text[]) ORDER BY id FOR UPDATE")
    }

    /// Drops one reference under the row's lock; deletes the blob row at zero and reports it.
    static func release(_ db: PGSession, blob: String) async throws -> Bool {
        guard let refs = try await db.value("UPDATE blobs SET refs = refs - 1 WHERE id = \(blob) RETURNING refs", as: Int64.self),
              refs <= 0 else { return false }
        try await db.run("DELETE FROM blobs WHERE id = \(blob)")
        return true
    }

    /// Tells every instance (LISTEN on `eventChannel`) that these devices have new events,
    /// after their commit. A NOTIFY that fails loses nothing: the events are stored, and
    /// every instance's poll finds them.
    func notify(_ devices: [String]) async {
        guard !devices.isEmpty else { return }
        do {
            try await read { db in
                try await db.run("SELECT pg_notify(\(Self.eventChannel), d) FROM (SELECT DISTINCT d FROM unnest(\(devices)::text[]) AS t(d)) AS u")
            }
        } catch {
            logger.warning("notify: \(Self.describe(error))")
        }
    }

    static func ownedDevice(_ db: PGSession, id: String, user: Int64) async throws -> PGRow {
        guard let row = try await db.one("""
            SELECT * FROM devices WHERE id = \(id) AND user_id = \(user) AND invalidated IS NULL
            """) else {
            throw StoreError.notFound("no device \"\(id)\"")
        }
        return row
    }

    // MARK: - operator

    public func backup(to path: String) async throws {
        throw StoreError.invalid("a PostgreSQL relay is backed up with pg_dump, not vfs-relay backup")
    }

    // MARK: - groups

    static func group(_ db: PGSession, name: String, user: Int64) async throws -> DeviceGroup {
        try await StoreRows.group(PostgresSQLConnection(session: db), name: name, user: user)
    }

    // MARK: - uploads

    static func upload(_ row: PGRow) throws -> UploadRecord {
        UploadRecord(id: try row.get("id"), userID: try row.get("user_id"), deviceID: try row.get("device_id"),
                     length: try row.get("length"), offset: try row.get("offset"), metadata: try row.get("metadata"),
                     created: try row.date("created"), expires: try row.date("expires"), sha256: try row.get("sha256"))
    }

    /// A finished upload of this user, deleted as it becomes a blob with `refs` references
    /// (the DELETE takes it: two instances cannot both consume one upload).
    static func consumeUpload(_ db: PGSession, id: String, user: Int64, blobID: String, refs: Int, now: Date) async throws -> BlobRef {
        guard let row = try await db.one("DELETE FROM uploads WHERE id = \(id) AND user_id = \(user) RETURNING *") else {
            throw StoreError.notFound("no upload \"\(id)\"")
        }
        let upload = try Self.upload(row)
        guard let length = upload.length, upload.offset == length, let sha256 = upload.sha256 else {
            throw StoreError.conflict("upload \"\(id)\" is not finished (\(upload.offset) of \(upload.length.map { "\($0) bytes" } ?? "a length not yet declared"))")
        }
        try await db.run("""
            INSERT INTO blobs(id, size, sha256, refs, created) VALUES (\(blobID), \(length), \(sha256), \(Int64(refs)), \(seconds(now)))
            """)
        return BlobRef(id: blobID, size: length, sha256: sha256)
    }

    // MARK: - transfers

    static func outboxEntry(_ db: PGSession, transfer row: PGRow) async throws -> OutboxEntry {
        try await StoreRows.outboxEntry(PostgresSQLConnection(session: db), transfer: SQLRow(row))
    }

    public func createTransfer(id: String, upload: String, blobID: String, sender: DeviceIdentity, devices: [String],
                               groups: [String], expires: Date, now: Date) async throws -> OutboxEntry {
        let entry = try await write { db in
            var targets = [String]()
            for device in devices {
                _ = try await Self.ownedDevice(db, id: device, user: sender.userID)
                if !targets.contains(device) { targets.append(device) }
            }
            for name in groups {
                for member in try await Self.group(db, name: name, user: sender.userID).members where !targets.contains(member) {
                    targets.append(member)
                }
            }
            guard !targets.isEmpty else { throw StoreError.invalid("a transfer needs at least one target device") }
            let blob = try await Self.consumeUpload(db, id: upload, user: sender.userID, blobID: blobID, refs: targets.count, now: now)
            try await db.run("""
                INSERT INTO transfers(id, sender_device, sender_user, blob_id, size, sha256, created, expires)
                VALUES (\(id), \(sender.deviceID), \(sender.userID), \(blob.id), \(blob.size), \(blob.sha256),
                        \(Self.seconds(now)), \(Self.seconds(expires)))
                """)
            try await db.run("""
                INSERT INTO outbox(transfer_id, device_id, status, updated)
                SELECT \(id), d, 'unattended', \(Self.seconds(now)) FROM unnest(\(targets)::text[]) AS t(d)
                """)
            try await StoreRows.insertEvents(PostgresSQLConnection(session: db), kind: .transfer,
                                             data: StoreRows.json(["transfer": id]), devices: targets, now: now)
            try await Self.audit(db, org: sender.orgID, actor: sender.deviceID, action: "transfer.create", subject: id,
                                 detail: targets.joined(separator: ","), now: now)
            let row = try await db.one("SELECT * FROM transfers WHERE id = \(id)")!
            return try await Self.outboxEntry(db, transfer: row)
        }
        await notify(entry.recipients.map(\.device))
        return entry
    }

    public func inbox(device: String) async throws -> [InboxEntry] {
        try await read { db in
            try await db.all("""
                SELECT t.*, o.status FROM outbox o JOIN transfers t ON t.id = o.transfer_id
                WHERE o.device_id = \(device) AND o.status IN ('unattended', 'initiated') ORDER BY t.created, t.id
                """).map {
                InboxEntry(id: try $0.get("id"), sender: try $0.get("sender_device"), size: try $0.get("size"),
                           sha256: try $0.get("sha256"), created: try $0.date("created"), expires: try $0.date("expires"),
                           status: TransferStatus(rawValue: try $0.get("status")) ?? .unattended)
            }
        }
    }

    public func outbox(device: String) async throws -> [OutboxEntry] {
        try await read { db in
            var entries = [OutboxEntry]()
            for row in try await db.all("SELECT * FROM transfers WHERE sender_device = \(device) ORDER BY created, id") {
                entries.append(try await Self.outboxEntry(db, transfer: row))
            }
            return entries
        }
    }

    public func openTransfer(id: String, device: String, now: Date) async throws -> BlobRef {
        try await write { db in
            guard let row = try await db.one("""
                SELECT t.blob_id, t.size, t.sha256 FROM outbox o JOIN transfers t ON t.id = o.transfer_id
                WHERE o.transfer_id = \(id) AND o.device_id = \(device) AND o.status IN ('unattended', 'initiated')
                """) else { throw StoreError.notFound("no transfer \"\(id)\"") }
            try await db.run("""
                UPDATE outbox SET status = 'initiated', updated = \(Self.seconds(now))
                WHERE transfer_id = \(id) AND device_id = \(device) AND status = 'unattended'
                """)
            return BlobRef(id: try row.get("blob_id"), size: try row.get("size"), sha256: try row.get("sha256"))
        }
    }

    public func finishTransfer(id: String, device: String, status: TransferStatus, now: Date) async throws -> [String] {
        try await write { db in
            // The blob first (the store's lock order), then the copy.
            if let blob = try await db.value("SELECT blob_id FROM transfers WHERE id = \(id)", as: String.self) {
                try await Self.lockBlobs(db, [blob])
            }
            // The status changes once: a second instance finds no waiting row.
            guard let row = try await db.one("""
                UPDATE outbox o SET status = \(status.rawValue), updated = \(Self.seconds(now)) FROM transfers t
                WHERE t.id = o.transfer_id AND o.transfer_id = \(id) AND o.device_id = \(device)
                  AND o.status IN ('unattended', 'initiated')
                RETURNING t.blob_id
                """) else { throw StoreError.notFound("no transfer \"\(id)\"") }
            try await Self.audit(db, org: nil, actor: device, action: "transfer.\(status.rawValue)", subject: id, now: now)
            let blob: String = try row.get("blob_id")
            return try await Self.release(db, blob: blob) ? [blob] : []
        }
    }

    public func expireTransfers(now: Date) async throws -> [String] {
        try await write { db in
            try await Self.lockBlobs(db, try await db.values("""
                SELECT DISTINCT t.blob_id FROM outbox o JOIN transfers t ON t.id = o.transfer_id
                WHERE o.status IN ('unattended', 'initiated') AND t.expires <= \(Self.seconds(now))
                """, as: String.self))
            let rows = try await db.all("""
                UPDATE outbox o SET status = 'expired', updated = \(Self.seconds(now)) FROM transfers t
                WHERE t.id = o.transfer_id AND o.status IN ('unattended', 'initiated') AND t.expires <= \(Self.seconds(now))
                RETURNING t.blob_id
                """)
            var released = [String]()
            for blob in try rows.map({ try $0.get("blob_id", as: String.self) }).sorted() {
                if try await Self.release(db, blob: blob) { released.append(blob) }
            }
            if !rows.isEmpty {
                try await Self.audit(db, org: nil, actor: "relay", action: "transfer.expire", subject: "\(rows.count) copies", now: now)
            }
            return released
        }
    }

    public func cancelTransfer(id: String, sender: String, now: Date) async throws -> [String] {
        try await write { db in
            guard let blob = try await db.value("SELECT blob_id FROM transfers WHERE id = \(id) AND sender_device = \(sender)",
                                                as: String.self) else { throw StoreError.notFound("no transfer \"\(id)\"") }
            try await Self.lockBlobs(db, [blob])
            let waiting = try await db.all("""
                UPDATE outbox SET status = 'expired', updated = \(Self.seconds(now))
                WHERE transfer_id = \(id) AND status IN ('unattended', 'initiated') RETURNING device_id
                """)
            var released = [String]()
            for _ in waiting {
                if try await Self.release(db, blob: blob) { released.append(blob) }
            }
            try await Self.audit(db, org: nil, actor: sender, action: "transfer.cancel", subject: id, now: now)
            return released
        }
    }

    // MARK: - events

    /// LISTEN on one pooled connection, for every instance's NOTIFYs; a lost connection
    /// ends it with an error.
    public func listenForEvents(_ wake: @escaping @Sendable (String) -> Void) async throws {
        try await client.withConnection { connection in
            try await connection.listen(on: Self.eventChannel) { notifications in
                for try await notification in notifications { wake(notification.payload) }
            }
        }
    }

    // MARK: - cloud

    static func cloudEntry(_ row: PGRow, path: String) throws -> CloudEntry {
        let kind = CloudEntryKind(rawValue: try row.get("kind")) ?? .file
        return CloudEntry(id: try row.get("id"), name: try row.get("name"), path: path, kind: kind,
                          size: kind == .file ? try row.get("size", as: Int64?.self) : nil,
                          sha256: kind == .file ? try row.get("sha256", as: String?.self) : nil,
                          created: try row.date("created"), updated: try row.date("updated"))
    }

    static func pathText(_ path: [String]) -> String { "/" + path.joined(separator: "/") }

    /// The row at `path` (nil for the root).
    static func resolve(_ db: PGSession, _ path: [String], user: Int64) async throws -> PGRow? {
        var parent = ""
        var row: PGRow?
        for (n, name) in path.enumerated() {
            guard let next = try await db.one("SELECT * FROM cloud WHERE user_id = \(user) AND parent = \(parent) AND name = \(name)") else {
                throw StoreError.notFound("no such file or folder \"\(pathText(path))\"")
            }
            if n < path.count - 1, try next.get("kind", as: String.self) != "folder" {
                throw StoreError.notFound("no such file or folder \"\(pathText(path))\"")
            }
            row = next
            parent = try next.get("id")
        }
        return row
    }

    /// Removes the file `name` in `parent` to put another in its place (a folder there is a
    /// conflict) and releases its blob reference; nil when nothing is there. The caller
    /// keeps the returned id and creation time; `released` are the blobs to delete.
    static func displaceFile(_ db: PGSession, parent: String, name: String, path: [String],
                             user: Int64) async throws -> (id: String, created: Date, released: [String])? {
        guard let existing = try await db.one("SELECT * FROM cloud WHERE user_id = \(user) AND parent = \(parent) AND name = \(name)") else {
            return nil
        }
        guard try existing.get("kind", as: String.self) == "file" else {
            throw StoreError.conflict("\"\(Self.pathText(path))\" is a folder")
        }
        let id: String = try existing.get("id")
        let old = try existing.get("blob_id", as: String?.self)
        if let old { try await Self.lockBlobs(db, [old]) }
        try await db.run("DELETE FROM cloud WHERE id = \(id)")
        var released = [String]()
        if let old, try await Self.release(db, blob: old) { released.append(old) }
        return (id, try existing.date("created"), released)
    }

    static func parentFolder(_ db: PGSession, _ path: [String], user: Int64) async throws -> String {
        guard let folder = try await resolve(db, Array(path.dropLast()), user: user) else { return "" }
        guard try folder.get("kind", as: String.self) == "folder" else {
            throw StoreError.notFound("no such folder \"\(pathText(Array(path.dropLast())))\"")
        }
        return try folder.get("id")
    }

    /// Cloud changes of one user run one at a time (the user row's lock): a move cannot
    /// race a delete of its target's parent on another instance.
    static func lockUser(_ db: PGSession, _ user: Int64) async throws {
        try await db.run("SELECT 1 FROM users WHERE id = \(user) FOR UPDATE")
    }

    public func cloudList(path: [String], user: Int64) async throws -> (CloudEntry, [CloudEntry]) {
        try await read { db in
            let row = try await Self.resolve(db, path, user: user)
            let here = try row.map { try Self.cloudEntry($0, path: Self.pathText(path)) }
                ?? CloudEntry(id: "", name: "", path: "/", kind: .folder, created: Date(timeIntervalSince1970: 0),
                              updated: Date(timeIntervalSince1970: 0))
            guard here.kind == .folder else { return (here, []) }
            let parent = try row?.get("id", as: String.self) ?? ""
            let children = try await db.all("SELECT * FROM cloud WHERE user_id = \(user) AND parent = \(parent) ORDER BY name")
            return (here, try children.map { try Self.cloudEntry($0, path: Self.pathText(path + [try $0.get("name", as: String.self)])) })
        }
    }

    public func cloudMakeFolder(path: [String], id: String, user: Int64, now: Date) async throws -> CloudEntry {
        try await write { db in
            guard let name = path.last else { throw StoreError.conflict("the root folder exists") }
            try await Self.lockUser(db, user)
            let parent = try await Self.parentFolder(db, path, user: user)
            if try await db.one("SELECT 1 FROM cloud WHERE user_id = \(user) AND parent = \(parent) AND name = \(name)") != nil {
                throw StoreError.conflict("\"\(Self.pathText(path))\" already exists")
            }
            try await db.run("""
                INSERT INTO cloud(id, user_id, parent, name, kind, created, updated)
                VALUES (\(id), \(user), \(parent), \(name), 'folder', \(Self.seconds(now)), \(Self.seconds(now)))
                """)
            try await Self.audit(db, org: nil, actor: "user:\(user)", action: "cloud.mkdir", subject: id, now: now)
            return CloudEntry(id: id, name: name, path: Self.pathText(path), kind: .folder, created: now, updated: now)
        }
    }

    public func cloudPut(path: [String], id: String, upload: String, blobID: String, user: Int64, now: Date) async throws -> (CloudEntry, [String]) {
        try await write { db in
            guard let name = path.last else { throw StoreError.conflict("the root is a folder") }
            try await Self.lockUser(db, user)
            let parent = try await Self.parentFolder(db, path, user: user)
            let blob = try await Self.consumeUpload(db, id: upload, user: user, blobID: blobID, refs: 1, now: now)
            let replaced = try await Self.displaceFile(db, parent: parent, name: name, path: path, user: user)
            let entryID = replaced?.id ?? id, created = replaced?.created ?? now, released = replaced?.released ?? []
            try await db.run("""
                INSERT INTO cloud(id, user_id, parent, name, kind, blob_id, size, sha256, created, updated)
                VALUES (\(entryID), \(user), \(parent), \(name), 'file', \(blob.id), \(blob.size), \(blob.sha256),
                        \(Self.seconds(created)), \(Self.seconds(now)))
                """)
            try await Self.audit(db, org: nil, actor: "user:\(user)", action: "cloud.put", subject: entryID, now: now)
            return (CloudEntry(id: entryID, name: name, path: Self.pathText(path), kind: .file, size: blob.size,
                               sha256: blob.sha256, created: created, updated: now), released)
        }
    }

    public func cloudMove(from: [String], to: [String], user: Int64, now: Date) async throws -> CloudEntry {
        try await write { db in
            try await Self.lockUser(db, user)
            guard let row = try await Self.resolve(db, from, user: user), let name = to.last else {
                throw StoreError.conflict("the root folder cannot be moved or replaced")
            }
            let rowID: String = try row.get("id")
            let parent = try await Self.parentFolder(db, to, user: user)
            var ancestor = parent
            while !ancestor.isEmpty {
                if ancestor == rowID { throw StoreError.conflict("cannot move a folder into itself") }
                ancestor = try await db.value("SELECT parent FROM cloud WHERE id = \(ancestor)", as: String.self) ?? ""
            }
            if try await db.one("SELECT 1 FROM cloud WHERE user_id = \(user) AND parent = \(parent) AND name = \(name)") != nil {
                throw StoreError.conflict("\"\(Self.pathText(to))\" already exists")
            }
            let moved = try await db.one("""
                UPDATE cloud SET parent = \(parent), name = \(name), updated = \(Self.seconds(now)) WHERE id = \(rowID) RETURNING *
                """)!
            try await Self.audit(db, org: nil, actor: "user:\(user)", action: "cloud.move", subject: rowID,
                                 detail: Self.pathText(to), now: now)
            return try Self.cloudEntry(moved, path: Self.pathText(to))
        }
    }

    public func cloudDelete(path: [String], user: Int64, now: Date) async throws -> [String] {
        try await write { db in
            try await Self.lockUser(db, user)
            guard let row = try await Self.resolve(db, path, user: user) else {
                throw StoreError.conflict("the root folder cannot be deleted")
            }
            // The whole subtree first, to lock its blobs before any of its rows (the lock order).
            var rows = [row]
            var next = 0
            while next < rows.count {
                let id: String = try rows[next].get("id")
                rows += try await db.all("SELECT * FROM cloud WHERE user_id = \(user) AND parent = \(id)")
                next += 1
            }
            let blobs = try rows.compactMap { try $0.get("blob_id", as: String?.self) }.sorted()
            let ids = try rows.map { try $0.get("id", as: String.self) }
            try await Self.lockBlobs(db, blobs)
            try await db.run("DELETE FROM cloud WHERE id = ANY(\(ids)::text[])")
            var released = [String]()
            for blob in blobs {
                if try await Self.release(db, blob: blob) { released.append(blob) }
            }
            try await Self.audit(db, org: nil, actor: "user:\(user)", action: "cloud.delete", subject: try row.get("id"),
                                 detail: Self.pathText(path), now: now)
            return released
        }
    }

    public func cloudFile(path: [String], user: Int64) async throws -> BlobRef {
        try await read { db in
            guard let row = try await Self.resolve(db, path, user: user), try row.get("kind", as: String.self) == "file" else {
                throw StoreError.notFound("no such file \"\(Self.pathText(path))\"")
            }
            return BlobRef(id: try row.get("blob_id"), size: try row.get("size"), sha256: try row.get("sha256"))
        }
    }

    // MARK: - maintenance

    static let referenceSQL: PostgresQuery = """
        SELECT b.id, b.refs,
          ((SELECT COUNT(*) FROM outbox o JOIN transfers t ON t.id = o.transfer_id
             WHERE t.blob_id = b.id AND o.status IN ('unattended', 'initiated'))
          + (SELECT COUNT(*) FROM cloud c WHERE c.blob_id = b.id))::BIGINT AS live
        FROM blobs b ORDER BY b.id
        """

    public func collectGarbage(files: Set<String>, fileExists: @escaping @Sendable (String) -> Bool,
                               eventsBefore: Date, now: Date) async throws -> (report: GarbageReport, delete: [String]) {
        try await write { db in
            var report = GarbageReport()
            var delete = [String]()
            // Every blob row stays locked until the recount commits: no reference moves meanwhile.
            let ids = try await db.values("SELECT id FROM blobs ORDER BY id FOR UPDATE", as: String.self)
            for blob in ids where !files.contains(blob) && !fileExists(blob) {
                try await db.run("""
                    UPDATE outbox SET status = 'expired', updated = \(Self.seconds(now)) WHERE status IN ('unattended', 'initiated')
                    AND transfer_id IN (SELECT id FROM transfers WHERE blob_id = \(blob))
                    """)
                try await db.run("DELETE FROM cloud WHERE blob_id = \(blob)")
                try await db.run("DELETE FROM blobs WHERE id = \(blob)")
                report.orphanRows += 1
            }
            for row in try await db.all(Self.referenceSQL) {
                let id: String = try row.get("id"), refs: Int64 = try row.get("refs"), live: Int64 = try row.get("live")
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
            report.prunedEvents = Int(try await db.value("""
                WITH gone AS (DELETE FROM events WHERE created < \(Self.seconds(eventsBefore)) RETURNING 1)
                SELECT COUNT(*) FROM gone
                """, as: Int64.self) ?? 0)
            return (report, delete)
        }
    }

    public func referenceAudit() async throws -> [(id: String, refs: Int64, live: Int64)] {
        try await read { db in
            try await db.all(Self.referenceSQL).map { (id: try $0.get("id"), refs: try $0.get("refs"), live: try $0.get("live")) }
        }
    }

    // MARK: - across instances

    public func withMaintenanceLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T? {
        try await client.withConnection { connection in
            let session = PGSession(connection: connection, logger: logger)
            guard try await session.value("SELECT pg_try_advisory_lock(\(PostgresMigrations.sweepKey))", as: Bool.self) == true else {
                return nil
            }
            do {
                let result = try await body()
                try await session.run("SELECT pg_advisory_unlock(\(PostgresMigrations.sweepKey))")
                return result
            } catch {
                try? await session.run("SELECT pg_advisory_unlock(\(PostgresMigrations.sweepKey))")
                throw error
            }
        }
    }

    /// An upload's advisory lock key: the first 8 bytes of SHA-256("vfs-upload:" + id).
    static func uploadLockKey(_ id: String) -> Int64 {
        SHA256.hash(data: Array("vfs-upload:\(id)".utf8)).prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }

    /// A session advisory lock on a connection of its own, held while `body` runs (a PATCH
    /// streams for as long as the client sends) and unlocked before the connection goes
    /// back to the pool. `body`'s queries run on that connection. A connection that cannot
    /// unlock is closed instead, which drops its locks: none outlives its request, and a
    /// relay that dies drops them with its connections.
    public func withUploadWriteLock<T: Sendable>(_ id: String, _ body: () async throws -> T) async throws -> T? {
        let key = Self.uploadLockKey(id)
        return try await client.withConnection { connection in
            let session = PGSession(connection: connection, logger: logger)
            guard try await session.value("SELECT pg_try_advisory_lock(\(key))", as: Bool.self) == true else { return nil }
            let result: Result<T, any Error>
            do {
                result = .success(try await Self.$lockConnection.withValue((ObjectIdentifier(self), connection)) { try await body() })
            } catch {
                result = .failure(error)
            }
            let unlocked = try? await session.value("SELECT pg_advisory_unlock(\(key))", as: Bool.self)
            if unlocked != true {
                logger.warning("upload \(id): its writer lock was not released on its connection; closing the connection")
                try? await connection.close()
            }
            return try result.get()
        }
    }
}
