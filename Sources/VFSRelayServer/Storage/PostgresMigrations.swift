import Foundation
import Logging
import PostgresNIO

/// Runs `RelayMigrations` on PostgreSQL: each migration's statements in one transaction,
/// recorded in `relay_migrations`, under an advisory lock.
enum PostgresMigrations {
    /// The advisory lock key every instance takes before migrating (so two relays
    /// starting together do not migrate twice).
    static let lockKey: Int64 = 0x7666_7372_0001
    /// The sweeper's lock key: one sweep at a time across every instance.
    static let sweepKey: Int64 = 0x7666_7372_0002
    /// Taken (per transaction) before events are inserted, so event ids become visible
    /// in the order they were given: a stream reading "after N" never skips one.
    static let eventsKey: Int64 = 0x7666_7372_0003

    /// Runs the migrations not yet applied, holding the advisory lock on one connection.
    /// Returns the names it applied.
    @discardableResult
    static func migrate(_ client: PostgresClient, logger: Logger) async throws -> [String] {
        try await client.withConnection { connection in
            try await connection.query("SELECT pg_advisory_lock(\(lockKey))", logger: logger)
            do {
                try await connection.query("""
                    CREATE TABLE IF NOT EXISTS relay_migrations(name TEXT PRIMARY KEY, applied DOUBLE PRECISION NOT NULL)
                    """, logger: logger)
                var done = try await recorded(connection, logger: logger)
                let renames = RelayMigrations.renames(in: done, on: .postgres)
                if !renames.isEmpty {
                    // Once: the names older code recorded become the list's (each keeps the
                    // time its old one ran).
                    try await connection.withTransaction(logger: logger) { connection in
                        for (old, new) in renames {
                            for name in new {
                                try await connection.query("""
                                    INSERT INTO relay_migrations(name, applied) SELECT \(name), applied FROM relay_migrations
                                    WHERE name = \(old) ON CONFLICT DO NOTHING
                                    """, logger: logger)
                            }
                            try await connection.query("DELETE FROM relay_migrations WHERE name = \(old)", logger: logger)
                        }
                    }
                    done = try await recorded(connection, logger: logger)
                }
                var applied = [String]()
                for migration in RelayMigrations.all where !done.contains(migration.name) {
                    try await connection.withTransaction(logger: logger) { connection in
                        for statement in migration.statements(for: .postgres) {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                        try await connection.query("""
                            INSERT INTO relay_migrations(name, applied) VALUES (\(migration.name), \(Date().timeIntervalSince1970))
                            """, logger: logger)
                    }
                    applied.append(migration.name)
                }
                try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
                return applied
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
                throw error
            }
        }
    }

    static func recorded(_ connection: PostgresConnection, logger: Logger) async throws -> Set<String> {
        var names = Set<String>()
        for try await name in try await connection.query("SELECT name FROM relay_migrations", logger: logger).decode(String.self) {
            names.insert(name)
        }
        return names
    }
}
