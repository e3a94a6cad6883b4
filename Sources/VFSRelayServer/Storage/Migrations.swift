import Foundation

/// A schema statement written once for both engines: its text is the same SQL on SQLite
/// and PostgreSQL, except the column types, interpolated from this vocabulary. Times are
/// seconds since 1970 on both, so `vfs-relay copy` moves values unchanged.
struct SchemaSQL: Sendable, ExpressibleByStringInterpolation {
    enum ColumnType: Sendable {
        /// A whole number: INTEGER (SQLite's is 64 bits) / BIGINT.
        case integer
        /// Seconds since 1970: REAL / DOUBLE PRECISION.
        case time
        /// A row id the database assigns: SQLite's rowid alias / a BIGSERIAL.
        case rowID
        /// A row id the database assigns and never gives again, even after the newest row
        /// was deleted (event ids are stream positions): AUTOINCREMENT / a BIGSERIAL (whose
        /// sequence never goes back).
        case increasingID
    }

    private var pieces: [(text: String, type: ColumnType?)] = []

    init(stringLiteral text: String) { pieces = [(text, nil)] }

    init(stringInterpolation: StringInterpolation) { pieces = stringInterpolation.pieces }

    struct StringInterpolation: StringInterpolationProtocol {
        var pieces: [(text: String, type: ColumnType?)] = []
        init(literalCapacity: Int, interpolationCount: Int) {}
        mutating func appendLiteral(_ literal: String) { pieces.append((literal, nil)) }
        mutating func appendInterpolation(_ type: ColumnType) { pieces.append(("", type)) }
    }

    func rendered(for dialect: SQLDialect) -> String {
        pieces.map { piece in
            guard let type = piece.type else { return piece.text }
            switch (type, dialect) {
            case (.integer, .sqlite): return "INTEGER"
            case (.integer, .postgres): return "BIGINT"
            case (.time, .sqlite): return "REAL"
            case (.time, .postgres): return "DOUBLE PRECISION"
            case (.rowID, .sqlite): return "INTEGER PRIMARY KEY"
            case (.rowID, .postgres): return "BIGSERIAL PRIMARY KEY"
            case (.increasingID, .sqlite): return "INTEGER PRIMARY KEY AUTOINCREMENT"
            case (.increasingID, .postgres): return "BIGSERIAL PRIMARY KEY"
            }
        }.joined()
    }
}

/// One change of the schema: its name (the same on both engines, recorded in
/// `grdb_migrations` on SQLite and `relay_migrations` on PostgreSQL) and its statements,
/// each run on its own, all in one transaction.
struct Migration: Sendable {
    let name: String
    private let sqlite: [SchemaSQL]
    private let postgres: [SchemaSQL]

    /// The same statements on both engines.
    init(_ name: String, _ statements: [SchemaSQL]) {
        self.init(name, sqlite: statements, postgres: statements)
    }

    /// A change the two engines make differently (the migration says why).
    init(_ name: String, sqlite: [SchemaSQL], postgres: [SchemaSQL]) {
        self.name = name
        self.sqlite = sqlite
        self.postgres = postgres
    }

    func statements(for dialect: SQLDialect) -> [String] {
        (dialect == .sqlite ? sqlite : postgres).map { $0.rendered(for: dialect) }
    }
}

/// The relay's schema on both engines: one list of changes, in order, each under one name.
/// A new change goes at the end, numbered after the last (next: `v16-…`); a change already
/// released is never edited (databases that ran it keep what it did).
enum RelayMigrations {
    static let all: [Migration] = [
        Migration("v1-tables", [
            """
            CREATE TABLE organisations(
              id \(.rowID), name TEXT NOT NULL UNIQUE, created \(.time) NOT NULL)
            """,
            """
            CREATE TABLE users(
              id \(.rowID), org_id \(.integer) NOT NULL REFERENCES organisations(id),
              email TEXT NOT NULL UNIQUE, role TEXT NOT NULL CHECK (role IN ('member', 'admin')),
              created \(.time) NOT NULL)
            """,
            """
            CREATE TABLE enrolment_codes(
              code_hash TEXT PRIMARY KEY, user_id \(.integer) NOT NULL REFERENCES users(id),
              created \(.time) NOT NULL, expires \(.time) NOT NULL, used \(.time))
            """,
            """
            CREATE TABLE devices(
              id TEXT PRIMARY KEY, user_id \(.integer) NOT NULL REFERENCES users(id),
              name TEXT NOT NULL, platform TEXT NOT NULL, recipient TEXT NOT NULL,
              token_hash TEXT NOT NULL UNIQUE, created \(.time) NOT NULL, last_seen \(.time), invalidated \(.time))
            """,
            "CREATE INDEX devices_user ON devices(user_id)",
            """
            CREATE TABLE device_groups(
              id \(.rowID), user_id \(.integer) NOT NULL REFERENCES users(id),
              name TEXT NOT NULL, created \(.time) NOT NULL, UNIQUE(user_id, name))
            """,
            """
            CREATE TABLE group_members(
              group_id \(.integer) NOT NULL REFERENCES device_groups(id) ON DELETE CASCADE,
              device_id TEXT NOT NULL REFERENCES devices(id), PRIMARY KEY(group_id, device_id))
            """,
            """
            CREATE TABLE uploads(
              id TEXT PRIMARY KEY, user_id \(.integer) NOT NULL REFERENCES users(id), device_id TEXT NOT NULL,
              length \(.integer) NOT NULL, "offset" \(.integer) NOT NULL, metadata TEXT NOT NULL,
              created \(.time) NOT NULL, expires \(.time) NOT NULL, sha256 TEXT)
            """,
            """
            CREATE TABLE blobs(
              id TEXT PRIMARY KEY, size \(.integer) NOT NULL, sha256 TEXT NOT NULL,
              refs \(.integer) NOT NULL, created \(.time) NOT NULL)
            """,
            """
            CREATE TABLE transfers(
              id TEXT PRIMARY KEY, sender_device TEXT NOT NULL, sender_user \(.integer) NOT NULL,
              blob_id TEXT NOT NULL, size \(.integer) NOT NULL, sha256 TEXT NOT NULL,
              created \(.time) NOT NULL, expires \(.time) NOT NULL)
            """,
            "CREATE INDEX transfers_sender ON transfers(sender_device)",
            """
            CREATE TABLE outbox(
              transfer_id TEXT NOT NULL REFERENCES transfers(id), device_id TEXT NOT NULL,
              status TEXT NOT NULL, updated \(.time) NOT NULL, PRIMARY KEY(transfer_id, device_id))
            """,
            "CREATE INDEX outbox_device ON outbox(device_id, status)",
            """
            CREATE TABLE cloud(
              id TEXT PRIMARY KEY, user_id \(.integer) NOT NULL REFERENCES users(id), parent TEXT NOT NULL,
              name TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('folder', 'file')),
              blob_id TEXT, size \(.integer), sha256 TEXT, created \(.time) NOT NULL, updated \(.time) NOT NULL,
              UNIQUE(user_id, parent, name))
            """,
            """
            CREATE TABLE items(
              org_id \(.integer) NOT NULL REFERENCES organisations(id), id TEXT NOT NULL, app TEXT NOT NULL,
              body TEXT NOT NULL, version \(.integer) NOT NULL,
              PRIMARY KEY(org_id, id), UNIQUE(org_id, app))
            """,
            """
            CREATE TABLE events(
              id \(.increasingID), device_id TEXT NOT NULL, kind TEXT NOT NULL,
              data TEXT NOT NULL, created \(.time) NOT NULL)
            """,
            "CREATE INDEX events_device ON events(device_id, id)",
            """
            CREATE TABLE audit(
              id \(.increasingID), at \(.time) NOT NULL, org_id \(.integer),
              actor TEXT NOT NULL, action TEXT NOT NULL, subject TEXT NOT NULL, detail TEXT NOT NULL)
            """,
        ]),
        // A counter of changes to the organisation's items, so a relay can keep the
        // encoded list and know, with one small read, whether it is still current.
        Migration("v2-items-revision", ["ALTER TABLE organisations ADD COLUMN items_revision \(.integer) NOT NULL DEFAULT 0"]),
        // How long a device may decide from its cached copy of the organisation's
        // policy after its last sync (seconds); NULL is the relay's default.
        Migration("v3-policy-grace", ["ALTER TABLE organisations ADD COLUMN policy_grace \(.integer)"]),
        // The admin web page: one-time sign-in codes and its sessions, both hashed.
        Migration("v4-admin-sessions", [
            """
            CREATE TABLE login_codes(
              code_hash TEXT PRIMARY KEY, user_id \(.integer) NOT NULL REFERENCES users(id),
              created \(.time) NOT NULL, expires \(.time) NOT NULL, used \(.time))
            """,
            """
            CREATE TABLE admin_sessions(
              session_hash TEXT PRIMARY KEY, user_id \(.integer) NOT NULL REFERENCES users(id),
              created \(.time) NOT NULL, expires \(.time) NOT NULL)
            """,
        ]),
        // Wrong enrolment codes per address (the throttle outlives a restart, and every
        // instance shares it).
        Migration("v5-enrolment-failures", [
            "CREATE TABLE enrolment_failures(address TEXT PRIMARY KEY, failures \(.integer) NOT NULL, until \(.time))",
        ]),
        // tus creation-defer-length: an upload's length is NULL until a PATCH declares it.
        // The one change the engines make differently: SQLite cannot drop NOT NULL in
        // place, so the table is copied; PostgreSQL alters the column.
        Migration("v6-upload-defer-length", sqlite: [
            """
            CREATE TABLE uploads_new(
              id TEXT PRIMARY KEY, user_id \(.integer) NOT NULL REFERENCES users(id), device_id TEXT NOT NULL,
              length \(.integer), "offset" \(.integer) NOT NULL, metadata TEXT NOT NULL,
              created \(.time) NOT NULL, expires \(.time) NOT NULL, sha256 TEXT)
            """,
            """
            INSERT INTO uploads_new SELECT id, user_id, device_id, length, "offset", metadata, created, expires, sha256 FROM uploads
            """,
            "DROP TABLE uploads",
            "ALTER TABLE uploads_new RENAME TO uploads",
        ], postgres: [
            "ALTER TABLE uploads ALTER COLUMN length DROP NOT NULL",
        ]),
        // An operator can disable a user (`vfs-relay user disable`): no enrolment, no sign-in.
        Migration("v7-user-disabled", ["ALTER TABLE users ADD COLUMN disabled \(.time)"]),
        // Tokens of a removed user's devices (`vfs-relay user remove`): the rows are gone,
        // but the token is still answered "revoked", so a device away at the time logs out.
        Migration("v8-removed-tokens", ["CREATE TABLE removed_tokens(token_hash TEXT PRIMARY KEY, removed \(.time) NOT NULL)"]),
        // Issue 24: each user's device chain (signed statements the relay stores without
        // trusting them) and each device's published signing key.
        Migration("v9-device-chains", [
            """
            CREATE TABLE device_chains(
              user_id \(.integer) NOT NULL REFERENCES users(id), sequence \(.integer) NOT NULL,
              statement TEXT NOT NULL, hash TEXT NOT NULL, created \(.time) NOT NULL,
              PRIMARY KEY(user_id, sequence))
            """,
            "ALTER TABLE devices ADD COLUMN signing_key TEXT",
        ]),
        // How far a PATCH under way may take an upload of deferred length: counted in the
        // usage while it runs, so parallel PATCHes can't together pass the quota.
        Migration("v10-upload-reserved", ["ALTER TABLE uploads ADD COLUMN reserved \(.integer)"]),
        // The device that made an enrolment code (POST /v1/invites): its unused codes die
        // with it, so a stolen token's invites stop working once the device is revoked.
        Migration("v11-invite-creator", ["ALTER TABLE enrolment_codes ADD COLUMN created_by TEXT"]),
        // Issue 26: a transfer made while its upload still runs names the upload here (its
        // blob_id is '' and its size 0 until the upload ends and becomes its blob).
        Migration("v12-transfer-upload", [
            "ALTER TABLE transfers ADD COLUMN upload_id TEXT",
            "CREATE INDEX transfers_upload ON transfers(upload_id)",
        ]),
        // Issue 30: an upload in an S3 bucket is a multipart upload (its id), its parts
        // (number, ETag, where each begins and its size) and, once whole, assembled.
        Migration("v13-upload-parts", [
            "ALTER TABLE uploads ADD COLUMN multipart TEXT",
            "ALTER TABLE uploads ADD COLUMN assembled \(.integer)",
            """
            CREATE TABLE upload_parts(
              upload_id TEXT NOT NULL REFERENCES uploads(id) ON DELETE CASCADE, number \(.integer) NOT NULL,
              etag TEXT NOT NULL, start_offset \(.integer) NOT NULL, size \(.integer) NOT NULL,
              PRIMARY KEY(upload_id, number))
            """,
        ]),
        // Issue 28: an organisation's groups of people, kept by its administrators.
        Migration("v14-org-groups", [
            """
            CREATE TABLE org_groups(
              id \(.rowID), org_id \(.integer) NOT NULL REFERENCES organisations(id),
              name TEXT NOT NULL, created \(.time) NOT NULL, UNIQUE(org_id, name))
            """,
            """
            CREATE TABLE org_group_members(
              group_id \(.integer) NOT NULL REFERENCES org_groups(id), user_id \(.integer) NOT NULL REFERENCES users(id),
              added \(.time) NOT NULL, PRIMARY KEY(group_id, user_id))
            """,
            "CREATE INDEX org_group_members_user ON org_group_members(user_id)",
        ]),
        // Issue 47: gc and the reference recount find a blob's transfers and cloud files by
        // blob_id. PostgreSQL databases had these since their first migration; SQLite ones
        // get them now.
        Migration("v15-blob-indexes", [
            "CREATE INDEX transfers_blob ON transfers(blob_id)",
            "CREATE INDEX cloud_blob ON cloud(blob_id)",
        ]),
        // Issue 43, item 10: the checkpoints the relay verified when they were appended
        // (1): it serves a client's chain from the last one at or before its pin, and
        // verifies appends from the last one (docs/device-chain.md, "Checkpoints").
        Migration("v16-chain-checkpoints", ["ALTER TABLE device_chains ADD COLUMN checkpoint \(.integer) NOT NULL DEFAULT 0"]),
        // Issue 51: share links. A link holds one reference to its blob until it is
        // revoked or expires (`released`); `downloads` is counted in the UPDATE that lets a
        // GET through, so a limit holds however many ask at once. Each download is logged
        // for the owner (time, bytes, the client's address).
        Migration("v17-shares", [
            """
            CREATE TABLE shares(
              id TEXT PRIMARY KEY, user_id \(.integer) NOT NULL, device_id TEXT NOT NULL, org_id \(.integer) NOT NULL,
              blob_id TEXT NOT NULL, size \(.integer) NOT NULL, sha256 TEXT NOT NULL, created \(.time) NOT NULL,
              expires \(.time) NOT NULL, max_downloads \(.integer), downloads \(.integer) NOT NULL DEFAULT 0,
              revoked \(.time), released \(.time))
            """,
            "CREATE INDEX shares_user ON shares(user_id)",
            "CREATE INDEX shares_blob ON shares(blob_id)",
            """
            CREATE TABLE share_downloads(
              share_id TEXT NOT NULL REFERENCES shares(id) ON DELETE CASCADE, at \(.time) NOT NULL,
              size \(.integer) NOT NULL, address TEXT NOT NULL)
            """,
            "CREATE INDEX share_downloads_share ON share_downloads(share_id)",
        ]),
        // Issue 48: the devices enrolled with --send-only, whose tokens may only push
        // (TokenScopeMiddleware). Marked before the enrolment makes the device.
        Migration("v18-send-only-devices", ["CREATE TABLE send_only_devices(device_id TEXT PRIMARY KEY, created \(.time) NOT NULL)"]),
        // Issue 48, item 4: an organisation's minimum retention (`vfs-relay org set
        // --min-retention`), and each transfer's, fixed when it is made: until then (or
        // until no copy waits) no device may cancel it, and it does not expire.
        Migration("v19-min-retention", [
            "CREATE TABLE org_retention(org_id \(.integer) PRIMARY KEY REFERENCES organisations(id), seconds \(.integer) NOT NULL)",
            """
            CREATE TABLE retained_transfers(
              transfer_id TEXT PRIMARY KEY REFERENCES transfers(id) ON DELETE CASCADE, retain_until \(.time) NOT NULL)
            """,
        ]),
        // Issue 51, item 4: file requests. A request names the devices that receive what is
        // sent in and their X25519 recipients (the stanzas an age file sent in must count);
        // `uploads` is counted in the statement that accepts one, so a limit holds however
        // many send at once. Each file accepted is an external transfer (`request_id`, the
        // sender's `external_name`), logged for the owner.
        Migration("v20-file-requests", [
            """
            CREATE TABLE file_requests(
              id TEXT PRIMARY KEY, user_id \(.integer) NOT NULL, device_id TEXT NOT NULL, org_id \(.integer) NOT NULL,
              devices TEXT NOT NULL, recipients TEXT NOT NULL, created \(.time) NOT NULL, expires \(.time) NOT NULL,
              max_uploads \(.integer), uploads \(.integer) NOT NULL DEFAULT 0, revoked \(.time))
            """,
            "CREATE INDEX file_requests_user ON file_requests(user_id)",
            """
            CREATE TABLE file_request_uploads(
              request_id TEXT NOT NULL REFERENCES file_requests(id) ON DELETE CASCADE, transfer_id TEXT NOT NULL,
              at \(.time) NOT NULL, size \(.integer) NOT NULL, address TEXT NOT NULL, name TEXT)
            """,
            "CREATE INDEX file_request_uploads_request ON file_request_uploads(request_id)",
            "ALTER TABLE transfers ADD COLUMN request_id TEXT",
            "ALTER TABLE transfers ADD COLUMN external_name TEXT",
        ]),
        // Issue 50: the versions of each cloud file, the one without `until` its head. A put
        // names the version it is based on and is refused when that is no longer the head
        // (`CloudPut.Expectation`); a rekey or a move keeps the version. A file stored before has no
        // row: its version is its own id until it is replaced.
        Migration("v23-cloud-versions", [
            """
            CREATE TABLE cloud_versions(
              id TEXT PRIMARY KEY, user_id \(.integer) NOT NULL REFERENCES users(id), file_id TEXT NOT NULL,
              path TEXT NOT NULL, device TEXT NOT NULL, since \(.time) NOT NULL, until \(.time))
            """,
            "CREATE INDEX cloud_versions_file ON cloud_versions(file_id, until)",
            "CREATE INDEX cloud_versions_user ON cloud_versions(user_id, path)",
        ]),
        // Issue 51, item 5: what an organisation allows its users' share links and file
        // requests (`vfs-relay org set --links`); no row: links allowed, the relay's limits.
        Migration("v24-link-settings", [
            """
            CREATE TABLE org_link_settings(
              org_id \(.integer) PRIMARY KEY REFERENCES organisations(id), allowed \(.integer) NOT NULL,
              max_expiry \(.integer), max_downloads \(.integer), max_size \(.integer))
            """,
        ]),
        // Issue 50, item 2: the history of each cloud file. A row of `cloud_versions` says
        // that from `since` until `until` (NULL: still, the head) the file `file_id` was at
        // `path` holding `version` (the content id a put's `base` names; `id` is the row's
        // own) in the blob `blob_id`, of which the row holds one reference while it is
        // kept. A move adds rows under the new paths with the same version; a rekey points
        // the head row at the new blob; a removal or a replacement ends the rows, keeping
        // their references (item 3's retention releases them). v23's rows were their own
        // versions, without a blob: a head of theirs gets its file's blob when it is next
        // replaced, moved, removed or rekeyed (`CloudTree.holdHead`).
        Migration("v25-cloud-history", [
            "ALTER TABLE cloud_versions ADD COLUMN version TEXT NOT NULL DEFAULT ''",
            "UPDATE cloud_versions SET version = id",
            "ALTER TABLE cloud_versions ADD COLUMN blob_id TEXT",
            "ALTER TABLE cloud_versions ADD COLUMN size \(.integer)",
            "ALTER TABLE cloud_versions ADD COLUMN sha256 TEXT",
            "CREATE INDEX cloud_versions_version ON cloud_versions(user_id, version)",
            "CREATE INDEX cloud_versions_blob ON cloud_versions(blob_id)",
            "CREATE INDEX cloud_versions_since ON cloud_versions(user_id, since)",
        ]),
        // Issue 50, item 3: which earlier cloud versions an organisation keeps (`vfs-relay
        // org set --cloud-versions`, `CloudVersionPolicy`'s text); no row: staggered. The
        // sweep drops the ended rows of `cloud_versions` the policy no longer keeps (the
        // index finds them), each giving up its blob reference.
        Migration("v26-cloud-retention", [
            "CREATE TABLE org_cloud_retention(org_id \(.integer) PRIMARY KEY REFERENCES organisations(id), policy TEXT NOT NULL)",
            "CREATE INDEX cloud_versions_ended ON cloud_versions(user_id, until)",
        ]),
        // A counted download of a share link can be continued (`VFS-Resume`): the hash of
        // the token its answer carried, so a download cut short is not one lost.
        Migration("v27-share-resume", ["ALTER TABLE share_downloads ADD COLUMN resume TEXT"]),
    ]

    /// What the migrations were called before they were one list (main up to be4e8fe),
    /// per engine: each old name, and the changes of the list it made. A database that
    /// records an old name has it replaced by these before migrating, once, so none of
    /// them runs again. ("v1" meant different things: SQLite's made the tables,
    /// PostgreSQL's also the items revision and the two blob indexes.)
    static func renamed(on dialect: SQLDialect) -> [String: [String]] {
        switch dialect {
        case .sqlite:
            ["v1": ["v1-tables"]]
        case .postgres:
            [
                "v1": ["v1-tables", "v2-items-revision", "v15-blob-indexes"],
                "v2-enrolment-failures": ["v5-enrolment-failures"],
                "v3-policy-grace-admin-sessions": ["v3-policy-grace", "v4-admin-sessions"],
                "v2-upload-defer-length": ["v6-upload-defer-length"],
                "v3-user-disabled": ["v7-user-disabled"],
                "v4-removed-tokens": ["v8-removed-tokens"],
                "v5-device-chains": ["v9-device-chains"],
                "v6-upload-reserved": ["v10-upload-reserved"],
                "v7-invite-creator": ["v11-invite-creator"],
                "v8-transfer-upload": ["v12-transfer-upload"],
                "v9-upload-parts": ["v13-upload-parts"],
                "v10-org-groups": ["v14-org-groups"],
            ]
        }
    }

    /// The old names among `recorded`, each with the names that replace it (the caller
    /// records those it lacks and drops the old one, in one transaction).
    static func renames(in recorded: some Collection<String>, on dialect: SQLDialect) -> [(old: String, new: [String])] {
        let map = renamed(on: dialect)
        return recorded.sorted().compactMap { name in map[name].map { (name, $0) } }
    }
}
