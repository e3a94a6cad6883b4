import Foundation
import Logging
import PostgresNIO

/// The seam on postgres-nio: statements become `PostgresQuery`s with `$n` placeholders and
/// bound values; transactions are the store's (`PostgresRelayStore.write`: retried on
/// SQLSTATE 40P01 and 40001, a unique violation reported as a conflict).
struct PostgresSQLDatabase: SQLDatabase {
    let store: PostgresRelayStore
    var dialect: SQLDialect { .postgres }

    func read<T: Sendable>(_ body: (any SQLConnection) async throws -> T) async throws -> T {
        try await store.read { session in try await body(PostgresSQLConnection(session: session)) }
    }

    func write<T: Sendable>(_ body: (any SQLConnection) async throws -> T) async throws -> T {
        try await store.write { session in try await body(PostgresSQLConnection(session: session)) }
    }
}

struct PostgresSQLConnection: SQLConnection {
    let session: PGSession
    var dialect: SQLDialect { .postgres }

    static func query(_ sql: SQL) -> PostgresQuery {
        let (text, values) = sql.rendered(for: .postgres)
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: binds.appendNull()
            case .integer(let number): binds.append(number)
            case .real(let number): binds.append(number)
            case .text(let text): binds.append(text)
            }
        }
        return PostgresQuery(unsafeSQL: text, binds: binds)
    }

    func all(_ sql: SQL) async throws -> [SQLRow] {
        try await session.all(Self.query(sql)).map(SQLRow.init)
    }

    func run(_ sql: SQL) async throws { try await session.run(Self.query(sql)) }

    func advisoryLock(_ key: Int64) async throws {
        try await session.run("SELECT pg_advisory_xact_lock(\(key))")
    }

    static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .numeric:
            // SUM of BIGINTs is a NUMERIC: whole numbers stay integers.
            let number = try cell.decode(Decimal.self)
            return number == number.rounded0 ? .integer(NSDecimalNumber(decimal: number).int64Value)
                : .real(NSDecimalNumber(decimal: number).doubleValue)
        default: return .text(try cell.decode(String.self))
        }
    }
}

extension SQLRow {
    init(_ row: PostgresRandomAccessRow) throws {
        columns = try row.map { cell in (cell.columnName, try PostgresSQLConnection.value(cell)) }
    }
}

extension Decimal {
    /// Rounded to a whole number.
    var rounded0: Decimal {
        var value = self, result = Decimal()
        NSDecimalRound(&result, &value, 0, .plain)
        return result
    }
}
