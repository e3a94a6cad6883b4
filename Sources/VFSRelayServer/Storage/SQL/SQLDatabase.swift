import Foundation

/// One connection of the seam, in a transaction or not: it runs statements and reads rows.
/// The store's rules are written over this, once for both databases.
protocol SQLConnection: Sendable {
    var dialect: SQLDialect { get }
    func all(_ sql: SQL) async throws -> [SQLRow]
    func run(_ sql: SQL) async throws
    /// Holds the advisory lock `key` until the transaction ends (PostgreSQL); SQLite's
    /// write transaction already excludes every other writer.
    func advisoryLock(_ key: Int64) async throws
}

extension SQLConnection {
    func one(_ sql: SQL) async throws -> SQLRow? { try await all(sql).first }

    /// The first column of the first row; nil without a row or for NULL.
    func value<T: SQLColumn>(_ sql: SQL, as type: T.Type = T.self) async throws -> T? {
        guard let row = try await one(sql) else { return nil }
        return try row.first(as: T?.self)
    }

    func values<T: SQLColumn>(_ sql: SQL, as type: T.Type = T.self) async throws -> [T] {
        try await all(sql).map { try $0.first(as: T.self) }
    }
}

/// A database of the seam: reads, and write transactions. A write transaction runs again
/// (PostgreSQL) when the database chose it as a deadlock's victim or failed its
/// serialization; on SQLite it holds the database's one writer (`BEGIN IMMEDIATE`), so
/// its reads are already locked for the change. Rows the change depends on are read
/// `\(SQL.forUpdate)`, which PostgreSQL needs.
protocol SQLDatabase: Sendable {
    var dialect: SQLDialect { get }
    func read<T: Sendable>(_ body: (any SQLConnection) async throws -> T) async throws -> T
    func write<T: Sendable>(_ body: (any SQLConnection) async throws -> T) async throws -> T
}

/// The relay store written once over the seam: each area of the store (`Storage/Stores/`)
/// is an extension of this protocol, and the two back-ends conform by handing out their
/// database.
public protocol SQLRelayStore: RelayStore {
    var sql: SQLHandle { get }
}

/// A back-end's database, as the seam sees it (opaque outside the module), and how it
/// tells listeners about events after their commit (`EventNotifications`).
public struct SQLHandle: Sendable {
    let database: any SQLDatabase
    let notify: @Sendable ([String]) async -> Void
}
