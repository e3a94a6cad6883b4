import Foundation
import GRDB
import PostgresNIO

/// `vfs-relay copy`: every row of an embedded relay's SQLite database into an empty
/// PostgreSQL relay database, in one transaction (all or nothing), keeping ids.
public enum RelayCopy {
    /// Parents before children; tables added later (by another migration) follow.
    static let order = ["organisations", "users", "enrolment_codes", "devices", "device_groups", "group_members",
                        "uploads", "blobs", "transfers", "outbox", "cloud", "items", "events", "audit", "enrolment_failures",
                        "login_codes", "admin_sessions", "org_groups", "org_group_members", "upload_parts"]

    public enum Failure: Error, CustomStringConvertible {
        case notEmpty
        public var description: String { "the PostgreSQL database already holds a relay (it has organisations)" }
    }

    /// Copies; returns the rows copied per table.
    public static func copy(from source: SQLiteRelayStore, to target: PostgresRelayStore) async throws -> [(table: String, rows: Int)] {
        let snapshot = try await source.pool.read { db -> [(String, [String], [[DatabaseValue]])] in
            let tables = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'
                """)
            let ordered = order.filter(tables.contains) + tables.filter { !order.contains($0) }.sorted()
            return try ordered.map { table in
                let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(quoted(table)))").map { $0["name"] as String }
                let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(quoted(table))").map { row in
                    columns.map { row[$0] as DatabaseValue }
                }
                return (table, columns, rows)
            }
        }
        return try await target.write { db in
            if try await db.one("SELECT 1 FROM organisations LIMIT 1") != nil { throw Failure.notEmpty }
            var counts = [(table: String, rows: Int)]()
            for (table, sourceColumns, rows) in snapshot {
                let targetColumns = Set(try await db.values("""
                    SELECT column_name::text FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = \(table)
                    """, as: String.self))
                guard !targetColumns.isEmpty else { continue }
                let kept = sourceColumns.enumerated().filter { targetColumns.contains($0.element) }
                let names = kept.map { quoted($0.element) }.joined(separator: ", ")
                let placeholders = (1...max(kept.count, 1)).map { "$\($0)" }.joined(separator: ", ")
                // Identifiers come from the schema; every value is a bound parameter.
                let sql = "INSERT INTO \(quoted(table))(\(names)) VALUES (\(placeholders))"
                for row in rows {
                    var binds = PostgresBindings(capacity: kept.count)
                    for (index, _) in kept {
                        switch row[index].storage {
                        case .null: binds.appendNull()
                        case .int64(let value): binds.append(value)
                        case .double(let value): binds.append(value)
                        case .string(let value): binds.append(value)
                        case .blob(let data): binds.append(String(decoding: data, as: UTF8.self))
                        }
                    }
                    try await db.run(PostgresQuery(unsafeSQL: sql, binds: binds))
                }
                if targetColumns.contains("id"), try await db.value("SELECT pg_get_serial_sequence(\(table), 'id')", as: String.self) != nil {
                    try await db.run(PostgresQuery(unsafeSQL: """
                        SELECT setval(pg_get_serial_sequence($1, 'id'), COALESCE((SELECT MAX(id) FROM \(quoted(table))), 0) + 1, false)
                        """, binds: { var binds = PostgresBindings(); binds.append(table); return binds }()))
                }
                counts.append((table, rows.count))
            }
            return counts
        }
    }

    static func quoted(_ identifier: String) -> String { "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}
