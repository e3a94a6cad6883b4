import Foundation

/// The two SQL dialects the relay speaks. The store's statements are written once; what
/// differs is rendered here (placeholders, row locks) or chosen by one `switch` in the
/// statement itself.
enum SQLDialect: Sendable {
    case sqlite, postgres
}

/// One value bound to a statement (never spliced into its text).
enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// A statement with its values, written as an interpolated string:
/// `"SELECT * FROM devices WHERE id = \(id)"` binds `id`. The back-end renders it in its
/// dialect: `?` placeholders for SQLite, `$1, $2, …` for PostgreSQL.
struct SQL: Sendable, ExpressibleByStringInterpolation {
    enum Piece: Sendable {
        case text(String)
        case value(SQLValue)
        /// ` FOR UPDATE` on PostgreSQL; nothing on SQLite, whose write transaction
        /// already holds the whole database.
        case forUpdate
    }

    var pieces: [Piece]

    init(stringLiteral text: String) { pieces = [.text(text)] }

    init(stringInterpolation: StringInterpolation) { pieces = stringInterpolation.pieces }

    struct StringInterpolation: StringInterpolationProtocol {
        var pieces: [Piece] = []

        init(literalCapacity: Int, interpolationCount: Int) {}

        mutating func appendLiteral(_ literal: String) { pieces.append(.text(literal)) }
        mutating func appendInterpolation(_ value: String?) { pieces.append(.value(value.map(SQLValue.text) ?? .null)) }
        mutating func appendInterpolation(_ value: Int64?) { pieces.append(.value(value.map(SQLValue.integer) ?? .null)) }
        mutating func appendInterpolation(_ value: Int) { pieces.append(.value(.integer(Int64(value)))) }
        mutating func appendInterpolation(_ value: Double?) { pieces.append(.value(value.map(SQLValue.real) ?? .null)) }
        /// Times are stored as seconds since 1970.
        mutating func appendInterpolation(_ value: Date?) {
            pieces.append(.value(value.map { .real($0.timeIntervalSince1970) } ?? .null))
        }
        /// A list of values in parentheses, for `IN`: `(?, ?)` or `($1, $2)`; an empty list
        /// is `(NULL)`, which no value is in.
        mutating func appendInterpolation(list values: [String]) {
            pieces.append(.text("("))
            for (n, value) in values.enumerated() {
                if n > 0 { pieces.append(.text(", ")) }
                pieces.append(.value(.text(value)))
            }
            pieces.append(.text(values.isEmpty ? "NULL)" : ")"))
        }
        /// A fragment written elsewhere, with its own values.
        mutating func appendInterpolation(_ fragment: SQL) { pieces += fragment.pieces }
    }

    /// ` FOR UPDATE` where the dialect locks rows (PostgreSQL).
    static let forUpdate = SQL(pieces: [.forUpdate])

    init(pieces: [Piece]) { self.pieces = pieces }

    /// The same statement written for each dialect (the one switch where they differ).
    static func dialect(_ dialect: SQLDialect, sqlite: SQL, postgres: SQL) -> SQL {
        switch dialect {
        case .sqlite: sqlite
        case .postgres: postgres
        }
    }

    /// The text with the dialect's placeholders, and the values in their order.
    func rendered(for dialect: SQLDialect) -> (text: String, values: [SQLValue]) {
        var text = "", values = [SQLValue]()
        for piece in pieces {
            switch piece {
            case .text(let literal): text += literal
            case .value(let value):
                values.append(value)
                text += dialect == .postgres ? "$\(values.count)" : "?"
            case .forUpdate: if dialect == .postgres { text += " FOR UPDATE" }
            }
        }
        return (text, values)
    }
}

/// A column's type the store reads out of a row.
protocol SQLColumn {
    init(column value: SQLValue, name: String) throws
}

/// A column that did not hold what the code expected (a schema and code out of step).
struct SQLColumnMismatch: Error, CustomStringConvertible {
    let column: String
    let value: SQLValue
    let expected: String
    var description: String { "column \(column) holds \(value), not \(expected)" }
}

extension String: SQLColumn {
    init(column value: SQLValue, name: String) throws {
        guard case .text(let text) = value else { throw SQLColumnMismatch(column: name, value: value, expected: "text") }
        self = text
    }
}

extension Int64: SQLColumn {
    init(column value: SQLValue, name: String) throws {
        switch value {
        case .integer(let number): self = number
        case .real(let number) where number.rounded() == number: self = Int64(number)
        default: throw SQLColumnMismatch(column: name, value: value, expected: "an integer")
        }
    }
}

extension Int: SQLColumn {
    init(column value: SQLValue, name: String) throws { self = Int(try Int64(column: value, name: name)) }
}

extension Double: SQLColumn {
    init(column value: SQLValue, name: String) throws {
        switch value {
        case .real(let number): self = number
        case .integer(let number): self = Double(number)
        default: throw SQLColumnMismatch(column: name, value: value, expected: "a number")
        }
    }
}

extension Date: SQLColumn {
    init(column value: SQLValue, name: String) throws { self = Date(timeIntervalSince1970: try Double(column: value, name: name)) }
}

extension Optional: SQLColumn where Wrapped: SQLColumn {
    init(column value: SQLValue, name: String) throws {
        self = value == .null ? nil : try Wrapped(column: value, name: name)
    }
}

/// One row of a result, by column name.
struct SQLRow: Sendable {
    /// Columns in their order (a name may repeat, as in `SELECT t.*, o.*`: the first wins).
    var columns: [(name: String, value: SQLValue)]

    func get<T: SQLColumn>(_ column: String, as type: T.Type = T.self) throws -> T {
        guard let value = columns.first(where: { $0.name == column })?.value else {
            throw SQLColumnMismatch(column: column, value: .null, expected: "a column of the result")
        }
        return try T(column: value, name: column)
    }

    /// The first column (for one-value queries).
    func first<T: SQLColumn>(as type: T.Type = T.self) throws -> T {
        guard let column = columns.first else { throw SQLColumnMismatch(column: "#0", value: .null, expected: "a column") }
        return try T(column: column.value, name: column.name)
    }
}
