import Foundation
import VFSRelayProtocol

/// The admin web page's part of the store: sign-in codes, sessions (both stored as
/// SHA-256 hashes) and the organisation-wide views.
extension SQLRelayStore {
    public func createLoginCode(email: String, codeHash: String, expires: Date, now: Date) async throws {
        try await sql.database.write { db in
            guard let user = try await db.one("SELECT * FROM users WHERE email = \(email)", as: UserRow.self) else {
                throw StoreError.notFound("no user \"\(email)\"")
            }
            guard user.disabled == nil else { throw StoreError.invalid("user \"\(email)\" is disabled") }
            guard user.role == "admin" else {
                throw StoreError.invalid("user \"\(email)\" is not an administrator")
            }
            try await db.run("""
                INSERT INTO login_codes(code_hash, user_id, created, expires)
                VALUES (\(codeHash), \(user.id), \(now), \(expires))
                """)
            try await StoreRows.audit(db, org: user.orgID, actor: email, action: "admin.login-code", subject: email,
                                      now: now)
        }
    }

    public func signIn(codeHash: String, sessionHash: String, expires: Date, now: Date) async throws -> AdminSession? {
        try await sql.database.write { db in
            // Spent by any attempt (one UPDATE: single use across instances), also one
            // refused because its user is no longer an admin.
            guard let userID = try await db.value("""
                UPDATE login_codes SET used = \(now)
                WHERE code_hash = \(codeHash) AND used IS NULL AND expires > \(now) RETURNING user_id
                """, as: Int64.self),
                let user = try await db.one("SELECT * FROM users WHERE id = \(userID)", as: UserRow.self) else { return nil }
            let email = user.email, org = user.orgID
            guard user.role == "admin" else {
                try await StoreRows.audit(db, org: org, actor: email, action: "admin.sign-in-refused", subject: email,
                                          detail: "not an administrator", now: now)
                return nil
            }
            // Expired sessions go when anyone signs in.
            try await db.run("DELETE FROM admin_sessions WHERE expires <= \(now)")
            try await db.run("""
                INSERT INTO admin_sessions(session_hash, user_id, created, expires)
                VALUES (\(sessionHash), \(userID), \(now), \(expires))
                """)
            try await StoreRows.audit(db, org: org, actor: email, action: "admin.sign-in", subject: email, now: now)
            return AdminSession(userID: userID, orgID: org, email: email, expires: expires)
        }
    }

    public func adminSession(hash: String, now: Date) async throws -> AdminSession? {
        try await sql.database.read { db in
            try await db.one("""
                SELECT s.user_id, s.expires, u.org_id, u.email FROM admin_sessions s JOIN users u ON u.id = s.user_id
                WHERE s.session_hash = \(hash) AND s.expires > \(now) AND u.role = 'admin'
                """, as: AdminSession.self)
        }
    }

    public func signOut(sessionHash: String, now: Date) async throws {
        try await sql.database.write { db in
            guard let user = try await db.one("""
                SELECT u.* FROM admin_sessions s JOIN users u ON u.id = s.user_id WHERE s.session_hash = \(sessionHash)
                """, as: UserRow.self),
                try await db.one("DELETE FROM admin_sessions WHERE session_hash = \(sessionHash) RETURNING session_hash") != nil
            else { return }
            try await StoreRows.audit(db, org: user.orgID, actor: user.email, action: "admin.sign-out", subject: user.email,
                                      now: now)
        }
    }

    public func organisationMembers(org: Int64) async throws -> [OrganisationMember] {
        try await sql.database.read { db in
            var members = [OrganisationMember]()
            for user in try await db.all("SELECT * FROM users WHERE org_id = \(org) ORDER BY email", as: UserRow.self) {
                let id = user.id
                let devices = try await db.all("SELECT * FROM devices WHERE user_id = \(id) ORDER BY created, id", as: Device.self)
                var groups = [DeviceGroup]()
                for name in try await db.values("SELECT name FROM device_groups WHERE user_id = \(id) ORDER BY name", as: String.self) {
                    groups.append(try await StoreRows.group(db, name: name, user: id))
                }
                members.append(OrganisationMember(id: id, email: user.email, role: user.role,
                                                  devices: devices, groups: groups))
            }
            return members
        }
    }

    public func organisationTransfers(org: Int64) async throws -> [TransferOverview] {
        try await sql.database.read { db in
            var overviews = [TransferOverview]()
            for row in try await db.all("""
                SELECT t.* FROM transfers t JOIN users u ON u.id = t.sender_user
                WHERE u.org_id = \(org) AND EXISTS (SELECT 1 FROM outbox o WHERE o.transfer_id = t.id AND o.status IN ('unattended', 'initiated'))
                ORDER BY t.created DESC, t.id
                """, as: TransferRow.self) {
                let entry = try await StoreRows.outboxEntry(db, transfer: row)
                overviews.append(TransferOverview(id: entry.id, senderDevice: row.senderDevice, size: entry.size,
                                                  created: entry.created, expires: entry.expires, recipients: entry.recipients))
            }
            return overviews
        }
    }

    public func auditLog(org: Int64, matching: String?, limit: Int) async throws -> [AuditEntry] {
        let trimmed = matching?.trimmingCharacters(in: .whitespaces)
        let text = (trimmed?.isEmpty ?? true) ? nil : trimmed
        let database = sql.database
        // Where a text is in another: the one function the dialects name differently.
        let position: SQL = database.dialect == .postgres ? "strpos" : "instr"
        return try await database.read { db in
            try await db.all("""
                SELECT a.* FROM audit a
                WHERE (a.org_id = \(org) OR (a.org_id IS NULL AND (
                    a.actor IN (SELECT d.id FROM devices d JOIN users u ON u.id = d.user_id WHERE u.org_id = \(org))
                    OR a.subject IN (SELECT d.id FROM devices d JOIN users u ON u.id = d.user_id WHERE u.org_id = \(org))
                    OR a.actor IN (SELECT 'user:' || u.id FROM users u WHERE u.org_id = \(org)))))
                  AND (CAST(\(text) AS TEXT) IS NULL
                       OR \(position)(lower(a.actor || ' ' || a.action || ' ' || a.subject || ' ' || a.detail), lower(CAST(\(text) AS TEXT))) > 0)
                ORDER BY a.id DESC LIMIT \(limit)
                """, as: AuditEntry.self)
        }
    }
}
