import Foundation
import GRDB
import VFSRelayProtocol

/// The admin web page's part of the SQLite store: sign-in codes, sessions and the
/// organisation-wide views.
extension SQLiteRelayStore {
    public func createLoginCode(email: String, codeHash: String, expires: Date, now: Date) async throws {
        try await pool.write { db in
            guard let user = try Row.fetchOne(db, sql: "SELECT id, org_id, role, disabled FROM users WHERE email = ?", arguments: [email]) else {
                throw StoreError.notFound("no user \"\(email)\"")
            }
            guard (user["disabled"] as Double?) == nil else { throw StoreError.invalid("user \"\(email)\" is disabled") }
            guard user["role"] as String == "admin" else {
                throw StoreError.invalid("user \"\(email)\" is not an administrator")
            }
            try db.execute(sql: "INSERT INTO login_codes(code_hash, user_id, created, expires) VALUES (?, ?, ?, ?)",
                           arguments: [codeHash, user["id"] as Int64, Self.seconds(now), Self.seconds(expires)])
            try Self.audit(db, org: user["org_id"], actor: email, action: "admin.login-code", subject: email, now: now)
        }
    }

    public func signIn(codeHash: String, sessionHash: String, expires: Date, now: Date) async throws -> AdminSession? {
        try await pool.write { db in
            guard let code = try Row.fetchOne(db, sql: """
                SELECT c.user_id, u.org_id, u.email, u.role FROM login_codes c JOIN users u ON u.id = c.user_id
                WHERE c.code_hash = ? AND c.used IS NULL AND c.expires > ?
                """, arguments: [codeHash, Self.seconds(now)]) else { return nil }
            // A code is spent by any attempt, also one refused because its user is no longer an admin.
            try db.execute(sql: "UPDATE login_codes SET used = ? WHERE code_hash = ?", arguments: [Self.seconds(now), codeHash])
            let email: String = code["email"]
            guard code["role"] as String == "admin" else {
                try Self.audit(db, org: code["org_id"], actor: email, action: "admin.sign-in-refused", subject: email,
                               detail: "not an administrator", now: now)
                return nil
            }
            // Expired sessions go when anyone signs in.
            try db.execute(sql: "DELETE FROM admin_sessions WHERE expires <= ?", arguments: [Self.seconds(now)])
            try db.execute(sql: "INSERT INTO admin_sessions(session_hash, user_id, created, expires) VALUES (?, ?, ?, ?)",
                           arguments: [sessionHash, code["user_id"] as Int64, Self.seconds(now), Self.seconds(expires)])
            try Self.audit(db, org: code["org_id"], actor: email, action: "admin.sign-in", subject: email, now: now)
            return AdminSession(userID: code["user_id"], orgID: code["org_id"], email: email, expires: expires)
        }
    }

    public func adminSession(hash: String, now: Date) async throws -> AdminSession? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: """
                SELECT s.user_id, s.expires, u.org_id, u.email FROM admin_sessions s JOIN users u ON u.id = s.user_id
                WHERE s.session_hash = ? AND s.expires > ? AND u.role = 'admin'
                """, arguments: [hash, Self.seconds(now)]).map {
                AdminSession(userID: $0["user_id"], orgID: $0["org_id"], email: $0["email"], expires: Self.date($0, "expires"))
            }
        }
    }

    public func signOut(sessionHash: String, now: Date) async throws {
        try await pool.write { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT u.org_id, u.email FROM admin_sessions s JOIN users u ON u.id = s.user_id WHERE s.session_hash = ?
                """, arguments: [sessionHash]) else { return }
            try db.execute(sql: "DELETE FROM admin_sessions WHERE session_hash = ?", arguments: [sessionHash])
            try Self.audit(db, org: row["org_id"], actor: row["email"], action: "admin.sign-out", subject: row["email"], now: now)
        }
    }

    public func organisationMembers(org: Int64) async throws -> [OrganisationMember] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, email, role FROM users WHERE org_id = ? ORDER BY email", arguments: [org]).map { user in
                let id: Int64 = user["id"]
                let devices = try Row.fetchAll(db, sql: "SELECT * FROM devices WHERE user_id = ? ORDER BY created, id",
                                               arguments: [id]).map(Self.device)
                let groups = try String.fetchAll(db, sql: "SELECT name FROM device_groups WHERE user_id = ? ORDER BY name",
                                                 arguments: [id]).map { try Self.group(db, name: $0, user: id) }
                return OrganisationMember(id: id, email: user["email"], role: user["role"], devices: devices, groups: groups)
            }
        }
    }

    public func organisationTransfers(org: Int64) async throws -> [TransferOverview] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT t.* FROM transfers t JOIN users u ON u.id = t.sender_user
                WHERE u.org_id = ? AND EXISTS (SELECT 1 FROM outbox o WHERE o.transfer_id = t.id AND o.status IN ('unattended', 'initiated'))
                ORDER BY t.created DESC, t.id
                """, arguments: [org]).map { row in
                let entry = try Self.outboxEntry(db, transfer: row)
                return TransferOverview(id: entry.id, senderDevice: row["sender_device"], size: entry.size, created: entry.created,
                                        expires: entry.expires, recipients: entry.recipients)
            }
        }
    }

    public func auditLog(org: Int64, matching: String?, limit: Int) async throws -> [AuditEntry] {
        let text = matching?.trimmingCharacters(in: .whitespaces)
        return try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT a.* FROM audit a
                WHERE (a.org_id = :org OR (a.org_id IS NULL AND (
                    a.actor IN (SELECT d.id FROM devices d JOIN users u ON u.id = d.user_id WHERE u.org_id = :org)
                    OR a.subject IN (SELECT d.id FROM devices d JOIN users u ON u.id = d.user_id WHERE u.org_id = :org)
                    OR a.actor IN (SELECT 'user:' || u.id FROM users u WHERE u.org_id = :org))))
                  AND (:text IS NULL OR instr(lower(a.actor || ' ' || a.action || ' ' || a.subject || ' ' || a.detail), lower(:text)) > 0)
                ORDER BY a.id DESC LIMIT :limit
                """, arguments: ["org": org, "text": (text?.isEmpty ?? true) ? nil : text, "limit": limit]).map {
                AuditEntry(id: $0["id"], at: Self.date($0, "at"), actor: $0["actor"], action: $0["action"],
                           subject: $0["subject"], detail: $0["detail"])
            }
        }
    }

    public func organisations() async throws -> [OrganisationSummary] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT o.name, o.created, (SELECT COUNT(*) FROM users u WHERE u.org_id = o.id) AS users
                FROM organisations o ORDER BY o.name
                """).map { OrganisationSummary(name: $0["name"], users: $0["users"], created: Self.date($0, "created")) }
        }
    }

    public func setUser(email: String, admin: Bool?, disabled: Bool?, now: Date) async throws {
        try await pool.write { db in
            guard let user = try Row.fetchOne(db, sql: "SELECT id, org_id FROM users WHERE email = ?", arguments: [email]) else {
                throw StoreError.notFound("no user \"\(email)\"")
            }
            let id: Int64 = user["id"]
            if let admin {
                try db.execute(sql: "UPDATE users SET role = ? WHERE id = ?", arguments: [admin ? "admin" : "member", id])
                try Self.audit(db, org: user["org_id"], actor: "operator", action: "user.role", subject: email,
                               detail: admin ? "admin" : "member", now: now)
            }
            if let disabled {
                let stamp: Double? = disabled ? Self.seconds(now) : nil
                try db.execute(sql: "UPDATE users SET disabled = ? WHERE id = ?", arguments: [stamp, id])
                if disabled { try db.execute(sql: "DELETE FROM admin_sessions WHERE user_id = ?", arguments: [id]) }
                try Self.audit(db, org: user["org_id"], actor: "operator", action: disabled ? "user.disable" : "user.enable",
                               subject: email, now: now)
            }
        }
    }
}
