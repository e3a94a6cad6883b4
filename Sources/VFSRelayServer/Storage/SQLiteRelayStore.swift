import Foundation
import GRDB
import NIOConcurrencyHelpers
import VFSPolicyModel
import VFSRelayProtocol

/// The embedded store: one SQLite database in WAL mode (readers never wait for the
/// writer), opened by `serve` and by the admin commands alike.
public final class SQLiteRelayStore: SQLRelayStore {
    let pool: DatabasePool
    private let maintenanceRunning = NIOLockedValueBox(false)
    /// Uploads with a writer now (one process serves an embedded relay).
    private let uploadWriters = NIOLockedValueBox(Set<String>())
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
        try Self.migrate(pool)
    }

    let database: SQLiteSQLDatabase

    /// Runs `RelayMigrations` with GRDB's migrator (each in one transaction, recorded in
    /// `grdb_migrations`), after renaming, once, what older code recorded.
    static func migrate(_ pool: DatabasePool) throws {
        try pool.write { db in
            guard try db.tableExists("grdb_migrations") else { return }
            let recorded = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            for (old, new) in RelayMigrations.renames(in: recorded, on: .sqlite) {
                for name in new {
                    try db.execute(sql: "INSERT OR IGNORE INTO grdb_migrations(identifier) VALUES (?)", arguments: [name])
                }
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [old])
            }
        }
        var migrator = DatabaseMigrator()
        for migration in RelayMigrations.all {
            migrator.registerMigration(migration.name) { db in
                for statement in migration.statements(for: .sqlite) { try db.execute(sql: statement) }
            }
        }
        try migrator.migrate(pool)
    }
    public var sql: SQLHandle { SQLHandle(database: database, notify: { [notifications] in notifications.post($0) }) }

    // MARK: - operator

    public func backup(to path: String) async throws {
        let target = try DatabaseQueue(path: path)
        try pool.backup(to: target)
        try target.close()
    }

    // MARK: - across processes

    /// One process serves a SQLite relay; `gc` beside it is kept out by SQLite's own
    /// write lock per step, as before. This lock only keeps two sweeps of one process apart.
    public func withMaintenanceLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T? {
        guard maintenanceRunning.withLockedValue({ running in
            if running { return false }
            running = true
            return true
        }) else { return nil }
        defer { maintenanceRunning.withLockedValue { $0 = false } }
        return try await body()
    }

    public func uploadsBeingWritten() -> Set<String> { uploadWriters.withLockedValue { $0 } }

    public func withUploadWriteLock<T: Sendable>(_ id: String, _ body: () async throws -> T) async throws -> T? {
        guard uploadWriters.withLockedValue({ $0.insert(id).inserted }) else { return nil }
        defer { _ = uploadWriters.withLockedValue { $0.remove(id) } }
        return try await body()
    }
}
