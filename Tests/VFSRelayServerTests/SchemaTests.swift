import Foundation
import GRDB
import Logging
import Testing
import VFSTestSupport
@testable import VFSRelayServer

/// The schema as a list of lines in one vocabulary for both engines: tables; columns with
/// their type (integer, real, text) and whether they take NULL; primary keys; unique
/// constraints; indexes by name; foreign keys. Sorted, so two schemas compare as lists.
enum SchemaDescription {
    static func of(_ store: any RelayStore) async throws -> [String] {
        let database = try #require(store as? any SQLRelayStore).sql.database
        return try await database.read { db in
            db.dialect == .sqlite ? try await sqlite(db) : try await postgres(db)
        }.sorted()
    }

    static func type(_ declared: String) -> String {
        switch declared.lowercased() {
        case "integer", "bigint": "integer"
        case "real", "double precision": "real"
        case "text": "text"
        default: "unmapped type \(declared)"
        }
    }

    static func sqlite(_ db: any SQLConnection) async throws -> [String] {
        var lines = [String]()
        for table in try await tables(db) {
            lines.append("table \(table)")
            var key = [(Int64, String)]()
            for column in try await db.all("SELECT name, type, \"notnull\", pk FROM pragma_table_info(\(table))") {
                let name: String = try column.get("name"), pk: Int64 = try column.get("pk")
                // SQLite lets a TEXT PRIMARY KEY hold NULL (a compatibility quirk); the store
                // never writes one, and PostgreSQL refuses it: both count as NOT NULL.
                let notNull = try column.get("notnull", as: Int64.self) == 1 || pk > 0
                lines.append("column \(table).\(name) \(type(try column.get("type")))\(notNull ? " not null" : "")")
                if pk > 0 { key.append((pk, name)) }
            }
            if !key.isEmpty { lines.append("primary key \(table)(\(key.sorted { $0.0 < $1.0 }.map(\.1).joined(separator: ",")))") }
            for index in try await db.all("SELECT name, \"unique\", origin FROM pragma_index_list(\(table))") {
                let name: String = try index.get("name"), origin: String = try index.get("origin")
                let columns = try await db.values("SELECT name FROM pragma_index_info(\(name)) ORDER BY seqno", as: String.self)
                    .joined(separator: ",")
                switch origin {
                case "pk": continue
                case "u": lines.append("unique \(table)(\(columns))")
                default: lines.append("\(try index.get("unique", as: Int64.self) == 1 ? "unique " : "")index \(name) on \(table)(\(columns))")
                }
            }
            for key in try await db.all("SELECT \"table\", \"from\", \"to\", on_delete FROM pragma_foreign_key_list(\(table))") {
                let rule: String = try key.get("on_delete")
                lines.append("foreign key \(table)(\(try key.get("from", as: String.self))) references "
                             + "\(try key.get("table", as: String.self))(\(try key.get("to", as: String.self))) on delete \(rule.lowercased())")
            }
        }
        return lines
    }

    static func postgres(_ db: any SQLConnection) async throws -> [String] {
        var lines = [String]()
        for table in try await tables(db) {
            lines.append("table \(table)")
            for column in try await db.all("""
                SELECT column_name::text AS name, data_type::text AS type, is_nullable::text AS nullable
                FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = \(table)
                """) {
                let notNull = try column.get("nullable", as: String.self) == "NO"
                lines.append("column \(table).\(try column.get("name", as: String.self)) \(type(try column.get("type")))\(notNull ? " not null" : "")")
            }
            for index in try await db.all("""
                SELECT c.relname::text AS name, i.indisprimary AS is_primary, i.indisunique AS is_unique,
                  EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype = 'u') AS is_constraint,
                  (SELECT string_agg(a.attname::text, ',' ORDER BY array_position(i.indkey::int2[], a.attnum))
                   FROM pg_attribute a WHERE a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)) AS columns
                FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = \(table)::regclass
                """) {
                let name: String = try index.get("name"), columns: String = try index.get("columns")
                if try index.get("is_primary", as: Int64.self) == 1 {
                    lines.append("primary key \(table)(\(columns))")
                } else if try index.get("is_constraint", as: Int64.self) == 1 {
                    lines.append("unique \(table)(\(columns))")
                } else {
                    lines.append("\(try index.get("is_unique", as: Int64.self) == 1 ? "unique " : "")index \(name) on \(table)(\(columns))")
                }
            }
            for key in try await db.all("""
                SELECT a.attname::text AS from_column, f.relname::text AS to_table, fa.attname::text AS to_column,
                  k.confdeltype::text AS on_delete
                FROM pg_constraint k JOIN pg_class f ON f.oid = k.confrelid
                JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
                JOIN pg_attribute fa ON fa.attrelid = k.confrelid AND fa.attnum = k.confkey[1]
                WHERE k.conrelid = \(table)::regclass AND k.contype = 'f'
                """) {
                let rule = ["a": "no action", "c": "cascade", "r": "restrict", "n": "set null", "d": "set default"][
                    try key.get("on_delete", as: String.self)] ?? "?"
                lines.append("foreign key \(table)(\(try key.get("from_column", as: String.self))) references "
                             + "\(try key.get("to_table", as: String.self))(\(try key.get("to_column", as: String.self))) on delete \(rule)")
            }
        }
        return lines
    }

    /// The relay's tables (not the migrations' own record).
    static func tables(_ db: any SQLConnection) async throws -> [String] {
        try await db.values(SQL.dialect(db.dialect, sqlite: """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%' ORDER BY name
            """, postgres: """
            SELECT table_name::text FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'relay_migrations' ORDER BY 1
            """), as: String.self)
    }

    /// Every row of every table, as text (to compare a database before and after migrating).
    static func rows(_ store: any RelayStore) async throws -> [String: [String]] {
        let database = try #require(store as? any SQLRelayStore).sql.database
        return try await database.read { db in
            var rows = [String: [String]]()
            for table in try await tables(db) {
                rows[table] = try await db.all(SQL(stringLiteral: "SELECT * FROM \"\(table)\"")).map { row in
                    row.columns.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
                }.sorted()
            }
            return rows
        }
    }

    /// The names the database records as applied.
    static func migrations(_ store: any RelayStore) async throws -> Set<String> {
        let database = try #require(store as? any SQLRelayStore).sql.database
        return try await database.read { db in
            Set(try await db.values(db.dialect == .sqlite ? "SELECT identifier FROM grdb_migrations" : "SELECT name FROM relay_migrations",
                                    as: String.self))
        }
    }
}

@Suite("schema: one list of migrations on both engines (issue 47)", .serialized)
struct SchemaTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("relay-schema")
    static let names = Set(RelayMigrations.all.map(\.name))

    @Test("a fresh SQLite and a fresh PostgreSQL database end with one schema (tables, columns, types, NULL, keys, unique, indexes, foreign keys) and one record of changes")
    func enginesAgree() async throws {
        let sqlite = try await StoreFixture.make(.sqlite), postgres = try await StoreFixture.make(.postgres)
        let left = try await SchemaDescription.of(sqlite.store), right = try await SchemaDescription.of(postgres.store)
        #expect(left.contains("table org_group_members") && left.contains("index transfers_blob on transfers(blob_id)"))
        #expect(!left.contains { $0.contains("unmapped") } && !right.contains { $0.contains("unmapped") })
        #expect(left.filter { !right.contains($0) } == [], "only on SQLite")
        #expect(right.filter { !left.contains($0) } == [], "only on PostgreSQL")
        #expect(try await SchemaDescription.migrations(sqlite.store) == Self.names)
        #expect(try await SchemaDescription.migrations(postgres.store) == Self.names)
        #expect(Self.names.count == RelayMigrations.all.count, "a name used twice")

        // The comparison sees a drift: a column one engine has and the other lacks.
        let database = try #require(sqlite.store as? any SQLRelayStore).sql.database
        try await database.write { try await $0.run("ALTER TABLE blobs ADD COLUMN drift TEXT") }
        #expect(try await SchemaDescription.of(sqlite.store).filter { !right.contains($0) } == ["column blobs.drift text"])
    }

    @Test("a SQLite relay made by main at be4e8fe (v1…v14-org-groups) opens: every row kept, v1 renamed v1-tables, only v15-blob-indexes and the migrations since run, the schema a fresh one gets")
    func oldSQLite() async throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let path = folder.path + "/relay.sqlite"
        let (oldNames, oldRows) = try Self.load(fixture: "main-be4e8fe-sqlite.sql", into: path)
        #expect(oldNames.count == 14 && oldNames.contains("v1") && oldNames.contains("v14-org-groups"))
        #expect(oldRows.count == 22 && oldRows.values.allSatisfy { !$0.isEmpty })

        let store = try SQLiteRelayStore(path: path)
        let rows = try await SchemaDescription.rows(store)
        #expect(rows == Self.withCheckpointColumn(oldRows, "integer(0)"))
        #expect(try await SchemaDescription.migrations(store) == Self.names)
        let fresh = try await StoreFixture.make(.sqlite)
        #expect(try await SchemaDescription.of(store) == (try await SchemaDescription.of(fresh.store)))
        // The rows read through the store as before.
        let device = try await store.device(id: "dev-ann", user: 1)
        #expect(device.name == "laptop" && device.signingKey == "ed25519-ann" && device.lastSeen == Date(timeIntervalSince1970: 1700000200))

        // Opening it again changes nothing.
        let again = try SQLiteRelayStore(path: path)
        #expect(try await SchemaDescription.rows(again) == rows)
        #expect(try await SchemaDescription.migrations(again) == Self.names)
    }

    /// `rows` of a database from before v16-chain-checkpoints as they read after it: each
    /// device_chains row gains `checkpoint` (0: no stored statement was a checkpoint), each
    /// transfers row `request_id` and `external_name` (null: none was external), and the
    /// tables made since the dumps are there, empty.
    static func withCheckpointColumn(_ rows: [String: [String]], _ value: String) -> [String: [String]] {
        var rows = rows
        rows["device_chains"] = rows["device_chains"]?.map { $0 + " checkpoint=\(value)" }
        // v20-file-requests: a transfer's file request and the name its sender gave, none for the old ones.
        rows["transfers"] = rows["transfers"]?.map { $0 + " request_id=null external_name=null" }
        for table in tablesSinceDumps { rows[table] = rows[table] ?? [] }
        return rows
    }

    /// The migrations of the list made after the newest dump in Tests/relay-schema (each
    /// runs on every dump), in order, and the tables they make.
    static let sinceDumps = ["v16-chain-checkpoints", "v17-shares", "v18-send-only-devices", "v19-min-retention", "v20-file-requests", "v23-cloud-versions", "v24-link-settings", "v25-cloud-history", "v26-cloud-retention", "v27-share-resume"]
    static let tablesSinceDumps = ["shares", "share_downloads", "send_only_devices", "org_retention", "retained_transfers", "file_requests", "file_request_uploads", "cloud_versions", "org_link_settings", "org_cloud_retention"]

    @Test("a SQLite relay made by main at b255526 (v1-tables…v15-blob-indexes) opens: every row kept, only the migrations since run (v16-chain-checkpoints: device_chains.checkpoint, 0 on every stored statement), the schema a fresh one gets, and its chain reads whole")
    func sqliteBeforeCheckpoints() async throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let path = folder.path + "/relay.sqlite"
        let (oldNames, oldRows) = try Self.load(fixture: "main-b255526-sqlite.sql", into: path)
        #expect(oldNames == Self.names.subtracting(Self.sinceDumps))
        #expect(oldRows.count == 22 && oldRows["device_chains"]?.count == 1)
        #expect(oldRows["device_chains"]?.first?.contains("checkpoint") == false)

        let store = try SQLiteRelayStore(path: path)
        #expect(try await SchemaDescription.rows(store) == Self.withCheckpointColumn(oldRows, "integer(0)"))
        #expect(try await SchemaDescription.migrations(store) == Self.names)
        let fresh = try await StoreFixture.make(.sqlite)
        let schema = try await SchemaDescription.of(store)
        #expect(schema == (try await SchemaDescription.of(fresh.store)))
        #expect(schema.contains("column device_chains.checkpoint integer not null"))
        // No stored statement is a checkpoint: a client's pin reads the chain whole.
        #expect(try await store.chain(user: 1, pinned: 0) == ["c3RhdGVtZW50"])
        #expect(try await store.chain(user: 1, pinned: nil) == ["c3RhdGVtZW50"])
    }

    /// A folder of its own, removed with the value.
    final class TemporaryFolder {
        let path: String
        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("schema-test-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// `load` of the dump in Tests/relay-schema called `fixture`.
    static func load(fixture: String, into path: String) throws -> (names: Set<String>, rows: [String: [String]]) {
        try load(try String(contentsOf: fixtures.appendingPathComponent(fixture), encoding: .utf8), into: path)
    }

    /// Runs a SQLite dump into a new database; returns the migrations it records and its
    /// tables' rows (as `SchemaDescription.rows` writes them).
    static func load(_ dump: String, into path: String) throws -> (names: Set<String>, rows: [String: [String]]) {
        let old = try DatabaseQueue(path: path)
        defer { try? old.close() }
        try old.writeWithoutTransaction { try $0.execute(sql: dump) }
        return try old.read { db in
            let names = try Set(String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
            let tables = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'
                """)
            return (names, try Dictionary(uniqueKeysWithValues: tables.map { table in
                (table, try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"").map { row in
                    row.map { "\($0)=\(SQLiteSQLConnection.value($1))" }.joined(separator: " ")
                }.sorted())
            }))
        }
    }

    @Test("a PostgreSQL relay database made by main at be4e8fe (v1…v10-org-groups) migrates: every row kept, the 12 old names become the 15, only the migrations since run (v16…), the schema a fresh one gets")
    func oldPostgres() async throws {
        let cluster = try await StoreFixture.offPool { try PostgresCluster.start() }
        let name = try await StoreFixture.offPool { try cluster.createDatabase() }
        let file = Self.fixtures.appendingPathComponent("main-be4e8fe-postgres.sql").path
        try await StoreFixture.offPool { try cluster.psql(name, file: file) }
        var logger = Logger(label: "schema-test")
        logger.logLevel = .critical
        let location = try #require(PostgresLocation(url: cluster.url(database: name)))
        let store = try await PostgresRelayStore(location: location, migrate: false, logger: logger)
        let oldNames = try await SchemaDescription.migrations(store)
        let oldRows = try await SchemaDescription.rows(store)
        #expect(oldNames.count == 12 && oldNames.contains("v1") && oldNames.contains("v5-device-chains"))
        #expect(oldRows.count == 22 && oldRows.values.allSatisfy { !$0.isEmpty })

        #expect(try await store.migrate() == Self.sinceDumps, "a change ran again, or v16 did not run")
        #expect(try await SchemaDescription.migrations(store) == Self.names)
        #expect(try await SchemaDescription.rows(store) == Self.withCheckpointColumn(oldRows, "integer(0)"))
        let fresh = try await StoreFixture.make(.postgres)
        #expect(try await SchemaDescription.of(store) == (try await SchemaDescription.of(fresh.store)))
        let device = try await store.device(id: "dev-ann", user: 1)
        #expect(device.name == "laptop" && device.signingKey == "ed25519-ann" && device.lastSeen == Date(timeIntervalSince1970: 1700000200))
        #expect(try await store.migrate() == [])
        await store.shutdown()
    }

    @Test("a PostgreSQL relay database at v15-blob-indexes (b255526's schema) migrates: every row kept, only the migrations since run (v16-chain-checkpoints: device_chains.checkpoint, 0 on every stored statement), the schema a fresh one gets")
    func postgresBeforeCheckpoints() async throws {
        let cluster = try await StoreFixture.offPool { try PostgresCluster.start() }
        let name = try await StoreFixture.offPool { try cluster.createDatabase() }
        let file = Self.fixtures.appendingPathComponent("main-b255526-postgres.sql").path
        try await StoreFixture.offPool { try cluster.psql(name, file: file) }
        var logger = Logger(label: "schema-test")
        logger.logLevel = .critical
        let location = try #require(PostgresLocation(url: cluster.url(database: name)))
        let store = try await PostgresRelayStore(location: location, migrate: false, logger: logger)
        #expect(try await SchemaDescription.migrations(store) == Self.names.subtracting(Self.sinceDumps))
        let oldRows = try await SchemaDescription.rows(store)
        #expect(oldRows.count == 22 && oldRows["device_chains"]?.first?.contains("checkpoint") == false)

        #expect(try await store.migrate() == Self.sinceDumps)
        #expect(try await SchemaDescription.migrations(store) == Self.names)
        #expect(try await SchemaDescription.rows(store) == Self.withCheckpointColumn(oldRows, "integer(0)"))
        let fresh = try await StoreFixture.make(.postgres)
        #expect(try await SchemaDescription.of(store) == (try await SchemaDescription.of(fresh.store)))
        #expect(try await store.chain(user: 1, pinned: 0) == ["c3RhdGVtZW50"])
        #expect(try await store.migrate() == [])
        await store.shutdown()
    }

    @Test("the renames: every old name maps onto names of the list; SQLite's v1 is the tables, PostgreSQL's v1 also the items revision and blob indexes")
    func renames() {
        for dialect in [SQLDialect.sqlite, .postgres] {
            for (old, new) in RelayMigrations.renamed(on: dialect) {
                #expect(!Self.names.contains(old), "\(old) is also a new name")
                #expect(!new.isEmpty && new.allSatisfy(Self.names.contains), "\(old) → \(new)")
            }
        }
        let postgres = RelayMigrations.renamed(on: .postgres)
        // Main's 12 PostgreSQL migrations cover the list's first 15 (v16 and later came after).
        #expect(Set(postgres.values.flatMap { $0 }) == Self.names.subtracting(Self.sinceDumps))
        #expect(RelayMigrations.renames(in: ["v1", "v9-device-chains"], on: .sqlite).map(\.old) == ["v1"])
    }

    @Test("typed rows: a property reads the column of its name (orgID is org_id), NULL is nil, times are seconds since 1970; a missing column or a wrong type is an error, never a silent nil")
    func typedRows() throws {
        struct Sample: Decodable, Equatable {
            var id: Int64, orgID: Int64, lastSeen: Date?, startOffset: Int, name: String, sha256: String?
        }
        let full: [(name: String, value: SQLValue)] = [("id", .integer(7)), ("org_id", .integer(2)), ("last_seen", .real(1_700_000_000.5)),
                                                       ("start_offset", .integer(10)), ("name", .text("x")), ("sha256", .null)]
        #expect(try SQLRow(columns: full).decode(Sample.self)
                == Sample(id: 7, orgID: 2, lastSeen: Date(timeIntervalSince1970: 1_700_000_000.5), startOffset: 10, name: "x", sha256: nil))
        var unseen = full
        unseen[2].value = .null
        #expect(try SQLRow(columns: unseen).decode(Sample.self).lastSeen == nil)
        #expect(throws: SQLColumnMismatch.self) { try SQLRow(columns: full.filter { $0.name != "sha256" }).decode(Sample.self) }
        #expect(throws: SQLColumnMismatch.self) { try SQLRow(columns: full.filter { $0.name != "org_id" }).decode(Sample.self) }
        var wrong = full
        wrong[1].value = .text("two")
        #expect(throws: SQLColumnMismatch.self) { try SQLRow(columns: wrong).decode(Sample.self) }
        #expect(["orgID", "lastSeen", "uploadID", "sha256", "startOffset", "id"].map(SQLRow.column(for:))
                == ["org_id", "last_seen", "upload_id", "sha256", "start_offset", "id"])
    }
}
