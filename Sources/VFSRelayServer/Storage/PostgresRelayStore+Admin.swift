import Foundation
import PostgresNIO
import VFSRelayProtocol

/// The policy grace, the cloud's transfer and rekey puts, and the admin web page's part
/// of the PostgreSQL store (sign-in codes, sessions, organisation-wide views).
extension PostgresRelayStore {
    public func policyGrace(org: Int64) async throws -> Int64? {
        try await read { db in try await db.value("SELECT policy_grace FROM organisations WHERE id = \(org)", as: Int64.self) }
    }

    public func setPolicyGrace(org: Int64, seconds: Int64?, actor: DeviceIdentity, now: Date) async throws {
        try await write { db in
            try await db.run("UPDATE organisations SET policy_grace = \(seconds) WHERE id = \(org)")
            try await Self.audit(db, org: org, actor: actor.email, action: "policy.grace", subject: "organisation",
                                 detail: seconds.map(String.init) ?? "default", now: now)
            try await Self.bumpItemsRevision(db, org: org)
        }
    }

    public func cloudPutTransfer(path: [String], id: String, transfer: String, sender: String, user: Int64,
                                 now: Date) async throws -> (CloudEntry, [String]) {
        try await write { db in
            guard let name = path.last else { throw StoreError.conflict("the root is a folder") }
            try await Self.lockUser(db, user)
            let gone = StoreError.notFound("no transfer \"\(transfer)\" whose ciphertext is still held")
            guard let held = try await db.value("""
                SELECT t.blob_id FROM transfers t JOIN blobs b ON b.id = t.blob_id
                WHERE t.id = \(transfer) AND t.sender_device = \(sender) AND t.sender_user = \(user)
                """, as: String.self) else { throw gone }
            let parent = try await Self.parentFolder(db, path, user: user)
            // Both blobs, the transfer's and that of a file it replaces, locked at once by id
            // (the store's lock order) before any cloud row.
            let there = try await db.value("""
                SELECT blob_id FROM cloud WHERE user_id = \(user) AND parent = \(parent) AND name = \(name)
                """, as: String.self)
            try await Self.lockBlobs(db, [held] + (there.map { [$0] } ?? []))
            // The transfer's blob, locked: it is live while one of its copies waits.
            guard let blob = try await db.one("SELECT * FROM blobs WHERE id = \(held)") else { throw gone }
            let ref = BlobRef(id: try blob.get("id"), size: try blob.get("size"), sha256: try blob.get("sha256"))
            // The new reference first: a file there that already holds this blob then
            // releases its own reference without the count reaching 0.
            try await db.run("UPDATE blobs SET refs = refs + 1 WHERE id = \(ref.id)")
            let replaced = try await Self.displaceFile(db, parent: parent, name: name, path: path, user: user)
            let entryID = replaced?.id ?? id, created = replaced?.created ?? now, released = replaced?.released ?? []
            try await db.run("""
                INSERT INTO cloud(id, user_id, parent, name, kind, blob_id, size, sha256, created, updated)
                VALUES (\(entryID), \(user), \(parent), \(name), 'file', \(ref.id), \(ref.size), \(ref.sha256),
                        \(Self.seconds(created)), \(Self.seconds(now)))
                """)
            try await Self.audit(db, org: nil, actor: "user:\(user)", action: "cloud.put", subject: entryID,
                                 detail: "transfer \(transfer)", now: now)
            return (CloudEntry(id: entryID, name: name, path: Self.pathText(path), kind: .file, size: ref.size,
                               sha256: ref.sha256, created: created, updated: now), released)
        }
    }

    public func cloudReplaceBlob(path: [String], expected: String, with blob: BlobRef, user: Int64,
                                 now: Date) async throws -> (CloudEntry, [String]) {
        try await write { db in
            try await Self.lockUser(db, user)
            guard let row = try await Self.resolve(db, path, user: user), try row.get("kind", as: String.self) == "file" else {
                throw StoreError.notFound("no such file \"\(Self.pathText(path))\"")
            }
            let current: String = try row.get("sha256")
            guard current == expected else {
                throw StoreError.preconditionFailed("the file changed: its SHA-256 is \(current)")
            }
            let rowID: String = try row.get("id")
            let old = try row.get("blob_id", as: String?.self)
            if let old { try await Self.lockBlobs(db, [old]) }
            try await db.run("""
                INSERT INTO blobs(id, size, sha256, refs, created) VALUES (\(blob.id), \(blob.size), \(blob.sha256), 1, \(Self.seconds(now)))
                """)
            let updated = try await db.one("""
                UPDATE cloud SET blob_id = \(blob.id), size = \(blob.size), sha256 = \(blob.sha256), updated = \(Self.seconds(now))
                WHERE id = \(rowID) RETURNING *
                """)!
            var released = [String]()
            if let old, try await Self.release(db, blob: old) { released.append(old) }
            try await Self.audit(db, org: nil, actor: "user:\(user)", action: "cloud.rekey", subject: rowID, now: now)
            return (try Self.cloudEntry(updated, path: Self.pathText(path)), released)
        }
    }

    public func createLoginCode(email: String, codeHash: String, expires: Date, now: Date) async throws {
        try await write { db in
            guard let user = try await db.one("SELECT id, org_id, role, disabled FROM users WHERE email = \(email)") else {
                throw StoreError.notFound("no user \"\(email)\"")
            }
            guard try user.get("disabled", as: Double?.self) == nil else { throw StoreError.invalid("user \"\(email)\" is disabled") }
            guard try user.get("role", as: String.self) == "admin" else {
                throw StoreError.invalid("user \"\(email)\" is not an administrator")
            }
            try await db.run("""
                INSERT INTO login_codes(code_hash, user_id, created, expires)
                VALUES (\(codeHash), \(try user.get("id", as: Int64.self)), \(Self.seconds(now)), \(Self.seconds(expires)))
                """)
            try await Self.audit(db, org: try user.get("org_id"), actor: email, action: "admin.login-code", subject: email, now: now)
        }
    }

    public func signIn(codeHash: String, sessionHash: String, expires: Date, now: Date) async throws -> AdminSession? {
        try await write { db in
            // Spent by any attempt (one UPDATE: single use across instances), also one
            // refused because its user is no longer an admin.
            guard let code = try await db.one("""
                UPDATE login_codes c SET used = \(Self.seconds(now)) FROM users u
                WHERE u.id = c.user_id AND c.code_hash = \(codeHash) AND c.used IS NULL AND c.expires > \(Self.seconds(now))
                RETURNING c.user_id, u.org_id, u.email, u.role
                """) else { return nil }
            let email: String = try code.get("email")
            let org: Int64 = try code.get("org_id")
            guard try code.get("role", as: String.self) == "admin" else {
                try await Self.audit(db, org: org, actor: email, action: "admin.sign-in-refused", subject: email,
                                     detail: "not an administrator", now: now)
                return nil
            }
            try await db.run("DELETE FROM admin_sessions WHERE expires <= \(Self.seconds(now))")
            let user: Int64 = try code.get("user_id")
            try await db.run("""
                INSERT INTO admin_sessions(session_hash, user_id, created, expires)
                VALUES (\(sessionHash), \(user), \(Self.seconds(now)), \(Self.seconds(expires)))
                """)
            try await Self.audit(db, org: org, actor: email, action: "admin.sign-in", subject: email, now: now)
            return AdminSession(userID: user, orgID: org, email: email, expires: expires)
        }
    }

    public func adminSession(hash: String, now: Date) async throws -> AdminSession? {
        try await read { db in
            guard let row = try await db.one("""
                SELECT s.user_id, s.expires, u.org_id, u.email FROM admin_sessions s JOIN users u ON u.id = s.user_id
                WHERE s.session_hash = \(hash) AND s.expires > \(Self.seconds(now)) AND u.role = 'admin'
                """) else { return nil }
            return AdminSession(userID: try row.get("user_id"), orgID: try row.get("org_id"), email: try row.get("email"),
                                expires: try row.date("expires"))
        }
    }

    public func signOut(sessionHash: String, now: Date) async throws {
        try await write { db in
            guard let row = try await db.one("""
                DELETE FROM admin_sessions s USING users u WHERE u.id = s.user_id AND s.session_hash = \(sessionHash)
                RETURNING u.org_id, u.email
                """) else { return }
            let email: String = try row.get("email")
            try await Self.audit(db, org: try row.get("org_id"), actor: email, action: "admin.sign-out", subject: email, now: now)
        }
    }

    public func organisationMembers(org: Int64) async throws -> [OrganisationMember] {
        try await read { db in
            var members = [OrganisationMember]()
            for user in try await db.all("SELECT id, email, role FROM users WHERE org_id = \(org) ORDER BY email") {
                let id: Int64 = try user.get("id")
                let devices = try await db.all("SELECT * FROM devices WHERE user_id = \(id) ORDER BY created, id").map(Self.device)
                var groups = [DeviceGroup]()
                for name in try await db.values("SELECT name FROM device_groups WHERE user_id = \(id) ORDER BY name", as: String.self) {
                    groups.append(try await Self.group(db, name: name, user: id))
                }
                members.append(OrganisationMember(id: id, email: try user.get("email"), role: try user.get("role"),
                                                  devices: devices, groups: groups))
            }
            return members
        }
    }

    public func organisationTransfers(org: Int64) async throws -> [TransferOverview] {
        try await read { db in
            var overviews = [TransferOverview]()
            for row in try await db.all("""
                SELECT t.* FROM transfers t JOIN users u ON u.id = t.sender_user
                WHERE u.org_id = \(org) AND EXISTS (SELECT 1 FROM outbox o WHERE o.transfer_id = t.id AND o.status IN ('unattended', 'initiated'))
                ORDER BY t.created DESC, t.id
                """) {
                let entry = try await Self.outboxEntry(db, transfer: row)
                overviews.append(TransferOverview(id: entry.id, senderDevice: try row.get("sender_device"), size: entry.size,
                                                  created: entry.created, expires: entry.expires, recipients: entry.recipients))
            }
            return overviews
        }
    }

    public func auditLog(org: Int64, matching: String?, limit: Int) async throws -> [AuditEntry] {
        let trimmed = matching?.trimmingCharacters(in: .whitespaces)
        let text = (trimmed?.isEmpty ?? true) ? nil : trimmed
        return try await read { db in
            try await db.all("""
                SELECT a.* FROM audit a
                WHERE (a.org_id = \(org) OR (a.org_id IS NULL AND (
                    a.actor IN (SELECT d.id FROM devices d JOIN users u ON u.id = d.user_id WHERE u.org_id = \(org))
                    OR a.subject IN (SELECT d.id FROM devices d JOIN users u ON u.id = d.user_id WHERE u.org_id = \(org))
                    OR a.actor IN (SELECT 'user:' || u.id FROM users u WHERE u.org_id = \(org)))))
                  AND (\(text)::text IS NULL
                       OR strpos(lower(a.actor || ' ' || a.action || ' ' || a.subject || ' ' || a.detail), lower(\(text)::text)) > 0)
                ORDER BY a.id DESC LIMIT \(Int64(limit))
                """).map {
                AuditEntry(id: try $0.get("id"), at: try $0.date("at"), actor: try $0.get("actor"), action: try $0.get("action"),
                           subject: try $0.get("subject"), detail: try $0.get("detail"))
            }
        }
    }

    public func organisations() async throws -> [OrganisationSummary] {
        try await read { db in
            try await db.all("""
                SELECT o.name, o.created, (SELECT COUNT(*) FROM users u WHERE u.org_id = o.id) AS users
                FROM organisations o ORDER BY o.name
                """).map {
                OrganisationSummary(name: try $0.get("name"), users: Int(try $0.get("users", as: Int64.self)), created: try $0.date("created"))
            }
        }
    }

    public func setUser(email: String, admin: Bool?, disabled: Bool?, now: Date) async throws {
        try await write { db in
            guard let user = try await db.one("SELECT id, org_id FROM users WHERE email = \(email)") else {
                throw StoreError.notFound("no user \"\(email)\"")
            }
            let id = try user.get("id", as: Int64.self), org = try user.get("org_id", as: Int64.self)
            if let admin {
                try await db.run("UPDATE users SET role = \(admin ? "admin" : "member") WHERE id = \(id)")
                try await Self.audit(db, org: org, actor: "operator", action: "user.role", subject: email,
                                     detail: admin ? "admin" : "member", now: now)
            }
            if let disabled {
                let stamp: Double? = disabled ? Self.seconds(now) : nil
                try await db.run("UPDATE users SET disabled = \(stamp) WHERE id = \(id)")
                if disabled { try await db.run("DELETE FROM admin_sessions WHERE user_id = \(id)") }
                try await Self.audit(db, org: org, actor: "operator", action: disabled ? "user.disable" : "user.enable",
                                     subject: email, detail: "", now: now)
            }
        }
    }
}
