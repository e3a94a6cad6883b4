import GRDB

/// The database schema, one migration per change; times are seconds since 1970 (REAL).
enum SQLiteMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE organisations(
                  id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, created REAL NOT NULL);
                CREATE TABLE users(
                  id INTEGER PRIMARY KEY, org_id INTEGER NOT NULL REFERENCES organisations(id),
                  email TEXT NOT NULL UNIQUE, role TEXT NOT NULL CHECK (role IN ('member', 'admin')),
                  created REAL NOT NULL);
                CREATE TABLE enrolment_codes(
                  code_hash TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
                  created REAL NOT NULL, expires REAL NOT NULL, used REAL);
                CREATE TABLE devices(
                  id TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
                  name TEXT NOT NULL, platform TEXT NOT NULL, recipient TEXT NOT NULL,
                  token_hash TEXT NOT NULL UNIQUE, created REAL NOT NULL, last_seen REAL, invalidated REAL);
                CREATE INDEX devices_user ON devices(user_id);
                CREATE TABLE device_groups(
                  id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
                  name TEXT NOT NULL, created REAL NOT NULL, UNIQUE(user_id, name));
                CREATE TABLE group_members(
                  group_id INTEGER NOT NULL REFERENCES device_groups(id) ON DELETE CASCADE,
                  device_id TEXT NOT NULL REFERENCES devices(id), PRIMARY KEY(group_id, device_id));
                CREATE TABLE uploads(
                  id TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), device_id TEXT NOT NULL,
                  length INTEGER NOT NULL, "offset" INTEGER NOT NULL, metadata TEXT NOT NULL,
                  created REAL NOT NULL, expires REAL NOT NULL, sha256 TEXT);
                CREATE TABLE blobs(
                  id TEXT PRIMARY KEY, size INTEGER NOT NULL, sha256 TEXT NOT NULL,
                  refs INTEGER NOT NULL, created REAL NOT NULL);
                CREATE TABLE transfers(
                  id TEXT PRIMARY KEY, sender_device TEXT NOT NULL, sender_user INTEGER NOT NULL,
                  blob_id TEXT NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL,
                  created REAL NOT NULL, expires REAL NOT NULL);
                CREATE INDEX transfers_sender ON transfers(sender_device);
                CREATE TABLE outbox(
                  transfer_id TEXT NOT NULL REFERENCES transfers(id), device_id TEXT NOT NULL,
                  status TEXT NOT NULL, updated REAL NOT NULL, PRIMARY KEY(transfer_id, device_id));
                CREATE INDEX outbox_device ON outbox(device_id, status);
                CREATE TABLE cloud(
                  id TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), parent TEXT NOT NULL,
                  name TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('folder', 'file')),
                  blob_id TEXT, size INTEGER, sha256 TEXT, created REAL NOT NULL, updated REAL NOT NULL,
                  UNIQUE(user_id, parent, name));
                CREATE TABLE items(
                  org_id INTEGER NOT NULL REFERENCES organisations(id), id TEXT NOT NULL, app TEXT NOT NULL,
                  body TEXT NOT NULL, version INTEGER NOT NULL,
                  PRIMARY KEY(org_id, id), UNIQUE(org_id, app));
                CREATE TABLE events(
                  id INTEGER PRIMARY KEY AUTOINCREMENT, device_id TEXT NOT NULL, kind TEXT NOT NULL,
                  data TEXT NOT NULL, created REAL NOT NULL);
                CREATE INDEX events_device ON events(device_id, id);
                CREATE TABLE audit(
                  id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, org_id INTEGER,
                  actor TEXT NOT NULL, action TEXT NOT NULL, subject TEXT NOT NULL, detail TEXT NOT NULL);
                """)
        }
        // A counter of changes to the organisation's items, so a relay can keep the
        // encoded list and know, with one small read, whether it is still current.
        migrator.registerMigration("v2-items-revision") { db in
            try db.execute(sql: "ALTER TABLE organisations ADD COLUMN items_revision INTEGER NOT NULL DEFAULT 0")
        }
        // How long a device may decide from its cached copy of the organisation's
        // policy after its last sync (seconds); NULL is the relay's default.
        migrator.registerMigration("v3-policy-grace") { db in
            try db.execute(sql: "ALTER TABLE organisations ADD COLUMN policy_grace INTEGER")
        }
        // The admin web page: one-time sign-in codes and its sessions, both hashed.
        migrator.registerMigration("v4-admin-sessions") { db in
            try db.execute(sql: """
                CREATE TABLE login_codes(
                  code_hash TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
                  created REAL NOT NULL, expires REAL NOT NULL, used REAL);
                CREATE TABLE admin_sessions(
                  session_hash TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
                  created REAL NOT NULL, expires REAL NOT NULL);
                """)
        }
        // Wrong enrolment codes per address (the throttle outlives a restart).
        migrator.registerMigration("v5-enrolment-failures") { db in
            try db.execute(sql: "CREATE TABLE enrolment_failures(address TEXT PRIMARY KEY, failures INTEGER NOT NULL, until REAL)")
        }
        // tus creation-defer-length: an upload's length is NULL until a PATCH declares it
        // (SQLite cannot drop NOT NULL in place: the table is copied).
        migrator.registerMigration("v6-upload-defer-length") { db in
            try db.execute(sql: """
                CREATE TABLE uploads_new(
                  id TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), device_id TEXT NOT NULL,
                  length INTEGER, "offset" INTEGER NOT NULL, metadata TEXT NOT NULL,
                  created REAL NOT NULL, expires REAL NOT NULL, sha256 TEXT);
                INSERT INTO uploads_new SELECT id, user_id, device_id, length, "offset", metadata, created, expires, sha256 FROM uploads;
                DROP TABLE uploads;
                ALTER TABLE uploads_new RENAME TO uploads;
                """)
        }
        // An operator can disable a user (`vfs-relay user disable`): no enrolment, no sign-in.
        migrator.registerMigration("v7-user-disabled") { db in
            try db.execute(sql: "ALTER TABLE users ADD COLUMN disabled REAL")
        }
        // Tokens of a removed user's devices (`vfs-relay user remove`): the rows are gone,
        // but the token is still answered "revoked", so a device away at the time logs out.
        migrator.registerMigration("v8-removed-tokens") { db in
            try db.execute(sql: "CREATE TABLE removed_tokens(token_hash TEXT PRIMARY KEY, removed REAL NOT NULL)")
        }
        // Issue 24: each user's device chain (signed statements the relay stores without
        // trusting them) and each device's published signing key.
        migrator.registerMigration("v9-device-chains") { db in
            try db.execute(sql: """
                CREATE TABLE device_chains(
                  user_id INTEGER NOT NULL REFERENCES users(id), sequence INTEGER NOT NULL,
                  statement TEXT NOT NULL, hash TEXT NOT NULL, created REAL NOT NULL,
                  PRIMARY KEY(user_id, sequence));
                ALTER TABLE devices ADD COLUMN signing_key TEXT;
                """)
        }
        // How far a PATCH under way may take an upload of deferred length: counted in the
        // usage while it runs, so parallel PATCHes can't together pass the quota.
        migrator.registerMigration("v10-upload-reserved") { db in
            try db.execute(sql: "ALTER TABLE uploads ADD COLUMN reserved INTEGER")
        }
        // The device that made an enrolment code (POST /v1/invites): its unused codes die
        // with it, so a stolen token's invites stop working once the device is revoked.
        migrator.registerMigration("v11-invite-creator") { db in
            try db.execute(sql: "ALTER TABLE enrolment_codes ADD COLUMN created_by TEXT")
        }
        // Issue 26: a transfer made while its upload still runs names the upload here (its
        // blob_id is '' and its size 0 until the upload ends and becomes its blob).
        migrator.registerMigration("v12-transfer-upload") { db in
            try db.execute(sql: """
                ALTER TABLE transfers ADD COLUMN upload_id TEXT;
                CREATE INDEX transfers_upload ON transfers(upload_id);
                """)
        }
        // Issue 30: an upload in an S3 bucket is a multipart upload (its id), its parts
        // (number, ETag, where each begins and its size) and, once whole, assembled.
        migrator.registerMigration("v13-upload-parts") { db in
            try db.execute(sql: """
                ALTER TABLE uploads ADD COLUMN multipart TEXT;
                ALTER TABLE uploads ADD COLUMN assembled INTEGER;
                CREATE TABLE upload_parts(
                  upload_id TEXT NOT NULL REFERENCES uploads(id) ON DELETE CASCADE, number INTEGER NOT NULL,
                  etag TEXT NOT NULL, start_offset INTEGER NOT NULL, size INTEGER NOT NULL,
                  PRIMARY KEY(upload_id, number));
                """)
        }
        // Issue 28: an organisation's groups of people, kept by its administrators.
        migrator.registerMigration("v14-org-groups") { db in
            try db.execute(sql: """
                CREATE TABLE org_groups(
                  id INTEGER PRIMARY KEY, org_id INTEGER NOT NULL REFERENCES organisations(id),
                  name TEXT NOT NULL, created REAL NOT NULL, UNIQUE(org_id, name));
                CREATE TABLE org_group_members(
                  group_id INTEGER NOT NULL REFERENCES org_groups(id), user_id INTEGER NOT NULL REFERENCES users(id),
                  added REAL NOT NULL, PRIMARY KEY(group_id, user_id));
                CREATE INDEX org_group_members_user ON org_group_members(user_id);
                """)
        }
        return migrator
    }
}
