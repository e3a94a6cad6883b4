import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL schema, one migration per change, each a list of statements run in
/// one transaction. Times are seconds since 1970 (double precision), as in SQLite, so
/// `vfs-relay copy` moves values unchanged. `relay_migrations` records what ran.
enum PostgresMigrations {
    /// The advisory lock key every instance takes before migrating (so two relays
    /// starting together do not migrate twice).
    static let lockKey: Int64 = 0x7666_7372_0001
    /// The sweeper's lock key: one sweep at a time across every instance.
    static let sweepKey: Int64 = 0x7666_7372_0002
    /// Taken (per transaction) before events are inserted, so event ids become visible
    /// in the order they were given: a stream reading "after N" never skips one.
    static let eventsKey: Int64 = 0x7666_7372_0003

    static let all: [(name: String, statements: [String])] = [
        ("v1", [
            """
            CREATE TABLE organisations(
              id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, created DOUBLE PRECISION NOT NULL,
              items_revision BIGINT NOT NULL DEFAULT 0)
            """,
            """
            CREATE TABLE users(
              id BIGSERIAL PRIMARY KEY, org_id BIGINT NOT NULL REFERENCES organisations(id),
              email TEXT NOT NULL UNIQUE, role TEXT NOT NULL CHECK (role IN ('member', 'admin')),
              created DOUBLE PRECISION NOT NULL)
            """,
            """
            CREATE TABLE enrolment_codes(
              code_hash TEXT PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id),
              created DOUBLE PRECISION NOT NULL, expires DOUBLE PRECISION NOT NULL, used DOUBLE PRECISION)
            """,
            """
            CREATE TABLE devices(
              id TEXT PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id),
              name TEXT NOT NULL, platform TEXT NOT NULL, recipient TEXT NOT NULL,
              token_hash TEXT NOT NULL UNIQUE, created DOUBLE PRECISION NOT NULL, last_seen DOUBLE PRECISION,
              invalidated DOUBLE PRECISION)
            """,
            "CREATE INDEX devices_user ON devices(user_id)",
            """
            CREATE TABLE device_groups(
              id BIGSERIAL PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id),
              name TEXT NOT NULL, created DOUBLE PRECISION NOT NULL, UNIQUE(user_id, name))
            """,
            """
            CREATE TABLE group_members(
              group_id BIGINT NOT NULL REFERENCES device_groups(id) ON DELETE CASCADE,
              device_id TEXT NOT NULL REFERENCES devices(id), PRIMARY KEY(group_id, device_id))
            """,
            """
            CREATE TABLE uploads(
              id TEXT PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id), device_id TEXT NOT NULL,
              length BIGINT NOT NULL, "offset" BIGINT NOT NULL, metadata TEXT NOT NULL,
              created DOUBLE PRECISION NOT NULL, expires DOUBLE PRECISION NOT NULL, sha256 TEXT)
            """,
            """
            CREATE TABLE blobs(
              id TEXT PRIMARY KEY, size BIGINT NOT NULL, sha256 TEXT NOT NULL,
              refs BIGINT NOT NULL, created DOUBLE PRECISION NOT NULL)
            """,
            """
            CREATE TABLE transfers(
              id TEXT PRIMARY KEY, sender_device TEXT NOT NULL, sender_user BIGINT NOT NULL,
              blob_id TEXT NOT NULL, size BIGINT NOT NULL, sha256 TEXT NOT NULL,
              created DOUBLE PRECISION NOT NULL, expires DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX transfers_sender ON transfers(sender_device)",
            "CREATE INDEX transfers_blob ON transfers(blob_id)",
            """
            CREATE TABLE outbox(
              transfer_id TEXT NOT NULL REFERENCES transfers(id), device_id TEXT NOT NULL,
              status TEXT NOT NULL, updated DOUBLE PRECISION NOT NULL, PRIMARY KEY(transfer_id, device_id))
            """,
            "CREATE INDEX outbox_device ON outbox(device_id, status)",
            """
            CREATE TABLE cloud(
              id TEXT PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id), parent TEXT NOT NULL,
              name TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('folder', 'file')),
              blob_id TEXT, size BIGINT, sha256 TEXT, created DOUBLE PRECISION NOT NULL,
              updated DOUBLE PRECISION NOT NULL, UNIQUE(user_id, parent, name))
            """,
            "CREATE INDEX cloud_blob ON cloud(blob_id)",
            """
            CREATE TABLE items(
              org_id BIGINT NOT NULL REFERENCES organisations(id), id TEXT NOT NULL, app TEXT NOT NULL,
              body TEXT NOT NULL, version BIGINT NOT NULL,
              PRIMARY KEY(org_id, id), UNIQUE(org_id, app))
            """,
            """
            CREATE TABLE events(
              id BIGSERIAL PRIMARY KEY, device_id TEXT NOT NULL, kind TEXT NOT NULL,
              data TEXT NOT NULL, created DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX events_device ON events(device_id, id)",
            """
            CREATE TABLE audit(
              id BIGSERIAL PRIMARY KEY, at DOUBLE PRECISION NOT NULL, org_id BIGINT,
              actor TEXT NOT NULL, action TEXT NOT NULL, subject TEXT NOT NULL, detail TEXT NOT NULL)
            """,
        ]),
        // Wrong enrolment codes per address, shared by every instance.
        ("v2-enrolment-failures", [
            """
            CREATE TABLE enrolment_failures(
              address TEXT PRIMARY KEY, failures BIGINT NOT NULL, until DOUBLE PRECISION)
            """,
        ]),
        // The policy's offline grace per organisation (NULL: the relay's default), and the
        // admin web page's one-time sign-in codes and sessions (both hashed).
        ("v3-policy-grace-admin-sessions", [
            "ALTER TABLE organisations ADD COLUMN policy_grace BIGINT",
            """
            CREATE TABLE login_codes(
              code_hash TEXT PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id),
              created DOUBLE PRECISION NOT NULL, expires DOUBLE PRECISION NOT NULL, used DOUBLE PRECISION)
            """,
            """
            CREATE TABLE admin_sessions(
              session_hash TEXT PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id),
              created DOUBLE PRECISION NOT NULL, expires DOUBLE PRECISION NOT NULL)
            """,
        ]),
        // tus creation-defer-length: an upload's length is NULL until a PATCH declares it.
        ("v2-upload-defer-length", ["ALTER TABLE uploads ALTER COLUMN length DROP NOT NULL"]),
        // An operator can disable a user (`vfs-relay user disable`): no enrolment, no sign-in.
        ("v3-user-disabled", ["ALTER TABLE users ADD COLUMN disabled DOUBLE PRECISION"]),
        ("v4-removed-tokens", ["CREATE TABLE removed_tokens(token_hash TEXT PRIMARY KEY, removed DOUBLE PRECISION NOT NULL)"]),
        // Issue 24: each user's device chain (signed statements the relay stores without
        // trusting them) and each device's published signing key.
        ("v5-device-chains", [
            """
            CREATE TABLE device_chains(
              user_id BIGINT NOT NULL REFERENCES users(id), sequence BIGINT NOT NULL,
              statement TEXT NOT NULL, hash TEXT NOT NULL, created DOUBLE PRECISION NOT NULL,
              PRIMARY KEY(user_id, sequence))
            """,
            "ALTER TABLE devices ADD COLUMN signing_key TEXT",
        ]),
        ("v6-upload-reserved", ["ALTER TABLE uploads ADD COLUMN reserved BIGINT"]),
        ("v7-invite-creator", ["ALTER TABLE enrolment_codes ADD COLUMN created_by TEXT"]),
        // Issue 26: a transfer made while its upload still runs (SQLite's v12).
        ("v8-transfer-upload", [
            "ALTER TABLE transfers ADD COLUMN upload_id TEXT",
            "CREATE INDEX transfers_upload ON transfers(upload_id)",
        ]),
        // Issue 30: an upload in an S3 bucket is a multipart upload (its id), its parts
        // (number, ETag, where each begins and its size) and, once whole, assembled.
        ("v9-upload-parts", [
            "ALTER TABLE uploads ADD COLUMN multipart TEXT",
            "ALTER TABLE uploads ADD COLUMN assembled BIGINT",
            """
            CREATE TABLE upload_parts(
              upload_id TEXT NOT NULL REFERENCES uploads(id) ON DELETE CASCADE, number BIGINT NOT NULL,
              etag TEXT NOT NULL, start_offset BIGINT NOT NULL, size BIGINT NOT NULL,
              PRIMARY KEY(upload_id, number))
            """,
        ]),
        // Issue 28: an organisation's groups of people, kept by its administrators.
        ("v10-org-groups", [
            """
            CREATE TABLE org_groups(
              id BIGSERIAL PRIMARY KEY, org_id BIGINT NOT NULL REFERENCES organisations(id),
              name TEXT NOT NULL, created DOUBLE PRECISION NOT NULL, UNIQUE(org_id, name))
            """,
            """
            CREATE TABLE org_group_members(
              group_id BIGINT NOT NULL REFERENCES org_groups(id), user_id BIGINT NOT NULL REFERENCES users(id),
              added DOUBLE PRECISION NOT NULL, PRIMARY KEY(group_id, user_id))
            """,
            "CREATE INDEX org_group_members_user ON org_group_members(user_id)",
        ]),
    ]

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
                var done = Set<String>()
                for try await name in try await connection.query("SELECT name FROM relay_migrations", logger: logger)
                    .decode(String.self) {
                    done.insert(name)
                }
                var applied = [String]()
                for migration in all where !done.contains(migration.name) {
                    try await connection.withTransaction(logger: logger) { connection in
                        for statement in migration.statements {
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
}
