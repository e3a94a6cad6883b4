import Foundation

/// Typed rows: a `Decodable` type is read out of a row by its properties' names, each
/// the column's name in Swift's spelling (`orgID` is `org_id`, `startOffset` is
/// `start_offset`), so a new column is one new property. Dates are seconds since 1970;
/// a column the type names but the row lacks is an error, never a silent nil.
extension SQLRow {
    func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try T(from: SQLRowDecoder(row: self))
    }

    /// The column a property name reads: `orgID` → `org_id`, `lastSeen` → `last_seen`.
    static func column(for property: String) -> String {
        var column = "", previous: Character?
        for character in property {
            if character.isUppercase, let previous, previous.isLowercase || previous.isNumber { column += "_" }
            column += character.lowercased()
            previous = character
        }
        return column
    }

    func value(_ property: String) throws -> (name: String, value: SQLValue) {
        let name = Self.column(for: property)
        guard let value = columns.first(where: { $0.name == name })?.value else {
            throw SQLColumnMismatch(column: name, value: .null, expected: "a column of the result")
        }
        return (name, value)
    }
}

extension SQLConnection {
    func all<T: Decodable>(_ sql: SQL, as type: T.Type) async throws -> [T] { try await all(sql).map { try $0.decode(T.self) } }

    func one<T: Decodable>(_ sql: SQL, as type: T.Type) async throws -> T? { try await one(sql)?.decode(T.self) }
}

private struct SQLRowDecoder: Decoder {
    let row: SQLRow
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Columns(row: row))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "a row is read by column names"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "a row is read by column names"))
    }

    struct Columns<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let row: SQLRow
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }

        /// Every property is a column: a missing one fails when it is read.
        func contains(_ key: Key) -> Bool { true }

        func decodeNil(forKey key: Key) throws -> Bool { try row.value(key.stringValue).value == .null }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let (name, value) = try row.value(key.stringValue)
            // The column types the store reads, each as SQLColumn converts it.
            if let column = T.self as? any SQLColumn.Type, let decoded = try column.init(column: value, name: name) as? T {
                return decoded
            }
            if T.self == Bool.self, let decoded = (try Int64(column: value, name: name) != 0) as? T { return decoded }
            throw SQLColumnMismatch(column: name, value: value, expected: "\(T.self)")
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey> {
            throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "a column holds one value"))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "a column holds one value"))
        }

        func superDecoder() throws -> any Decoder { SQLRowDecoder(row: row) }
        func superDecoder(forKey key: Key) throws -> any Decoder { SQLRowDecoder(row: row) }
    }
}
