import Foundation
import GRDB
import NIOConcurrencyHelpers

/// The seam on GRDB. A write transaction holds the pool's one writer connection from
/// `BEGIN IMMEDIATE` to `COMMIT` across the body's awaits: `gate` lets one write
/// transaction of this process in at a time, and SQLite's own lock keeps other processes
/// (the admin commands) out meanwhile. Reads run on the pool's reader connections (WAL:
/// they never wait for the writer).
///
/// A read is one statement on its own (SQLite's implicit transaction is all the store's
/// reads need): GRDB's `unsafeRead`, without the BEGIN DEFERRED and COMMIT its `read`
/// wraps around every statement.
///
/// The statements themselves run synchronously on the calling thread. None of them waits
/// for a lock: a WAL reader never waits for the writer, and a statement inside the write
/// transaction runs after `BEGIN IMMEDIATE` took SQLite's write lock (that one, which can
/// wait for another process, stays asynchronous, and so does the COMMIT). GRDB's async
/// calls would move each statement to a dispatch queue and back, two thread switches that
/// cost a short query more than the query.
struct SQLiteSQLDatabase: SQLDatabase {
    let pool: DatabasePool
    let gate: AsyncGate
    var dialect: SQLDialect { .sqlite }

    func read<T: Sendable>(_ body: (any SQLConnection) async throws -> T) async throws -> T {
        try await body(SQLiteSQLConnection(pool: pool, writer: false))
    }

    func write<T: Sendable>(_ body: (any SQLConnection) async throws -> T) async throws -> T {
        try await gate.withLock {
            try await pool.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
            do {
                let result = try await body(SQLiteSQLConnection(pool: pool, writer: true))
                try await pool.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
                return result
            } catch {
                // Whatever ended the body, the transaction ends here: in a task of its own,
                // which a cancellation of this one does not stop.
                let pool = pool
                await Task {
                    try? await pool.writeWithoutTransaction { db in if db.isInsideTransaction { try db.execute(sql: "ROLLBACK") } }
                }.value
                throw error
            }
        }
    }
}

struct SQLiteSQLConnection: SQLConnection {
    let pool: DatabasePool
    /// In the write transaction (on the writer connection), or a read.
    let writer: Bool
    var dialect: SQLDialect { .sqlite }

    func all(_ sql: SQL) async throws -> [SQLRow] {
        let (text, values) = sql.rendered(for: .sqlite)
        let fetch: @Sendable (Database) throws -> [SQLRow] = { db in
            try Row.fetchAll(Self.statement(db, text, values), arguments: Self.arguments(values)).map { row in
                SQLRow(columns: row.map { column, value in (column, Self.value(value)) })
            }
        }
        return try writer ? Self.onWriter(pool, fetch) : Self.onReader(pool, fetch)
    }

    func run(_ sql: SQL) async throws {
        let (text, values) = sql.rendered(for: .sqlite)
        precondition(writer, "a change outside a write transaction")
        try Self.onWriter(pool) { db in try Self.statement(db, text, values).execute(arguments: Self.arguments(values)) }
    }

    /// GRDB's synchronous calls (a function that is not async picks them over the async
    /// overloads): on the calling thread, see `SQLiteSQLDatabase`.
    private static func onReader<T>(_ pool: DatabasePool, _ body: (Database) throws -> T) throws -> T {
        try pool.unsafeRead(body)
    }

    private static func onWriter<T>(_ pool: DatabasePool, _ body: (Database) throws -> T) throws -> T {
        try pool.writeWithoutTransaction(body)
    }

    /// The prepared statement of `text`: kept by the connection for the next request when
    /// its text is one of the store's fixed queries (a handful of parameters), prepared
    /// afresh when it lists values (`IN (?, ?, …)` of any length would grow the cache
    /// without bound). Preparing, and GRDB's authorizer that runs with it, cost a request
    /// as much as running the query.
    static func statement(_ db: Database, _ text: String, _ values: [SQLValue]) throws -> Statement {
        values.count <= 12 ? try db.cachedStatement(sql: text) : try db.makeStatement(sql: text)
    }

    func advisoryLock(_ key: Int64) async throws {}

    static func arguments(_ values: [SQLValue]) -> StatementArguments {
        StatementArguments(values.map { databaseValue($0) as (any DatabaseValueConvertible)? })
    }

    static func databaseValue(_ value: SQLValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        case .text(let text): text.databaseValue
        }
    }

    static func value(_ value: DatabaseValue) -> SQLValue {
        switch value.storage {
        case .null: .null
        case .int64(let number): .integer(number)
        case .double(let number): .real(number)
        case .string(let text): .text(text)
        case .blob(let data): .text(String(decoding: data, as: UTF8.self))
        }
    }
}

/// A lock for async code: one holder at a time, the others wait in turn (without a thread).
final class AsyncGate: Sendable {
    private struct State {
        var held = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = NIOLockedValueBox(State())

    init() {}

    func withLock<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { continuation in
            let now = state.withLockedValue { state -> Bool in
                if state.held {
                    state.waiting.append(continuation)
                    return false
                }
                state.held = true
                return true
            }
            if now { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.held = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
