import Foundation
import VFSRelayProtocol

/// The operator's records (organisations, users, invitations), enrolment, token
/// authentication and a user's own devices.
extension SQLRelayStore {
    public func createOrganisation(name: String, now: Date) async throws {
        try await sql.database.write { db in
            if try await db.one("SELECT 1 FROM organisations WHERE name = \(name)") != nil {
                throw StoreError.conflict("organisation \"\(name)\" already exists")
            }
            let id = try await db.value("INSERT INTO organisations(name, created) VALUES (\(name), \(now)) RETURNING id",
                                        as: Int64.self)
            try await StoreRows.audit(db, org: id, actor: "operator", action: "org.add", subject: name, now: now)
        }
    }

    public func createUser(email: String, organisation: String, admin: Bool, now: Date) async throws {
        try await sql.database.write { db in
            guard let org = try await db.value("SELECT id FROM organisations WHERE name = \(organisation)", as: Int64.self) else {
                throw StoreError.notFound("no organisation \"\(organisation)\"")
            }
            if try await db.one("SELECT 1 FROM users WHERE email = \(email)") != nil {
                throw StoreError.conflict("user \"\(email)\" already exists")
            }
            let role = admin ? "admin" : "member"
            try await db.run("INSERT INTO users(org_id, email, role, created) VALUES (\(org), \(email), \(role), \(now))")
            try await StoreRows.audit(db, org: org, actor: "operator", action: "user.add", subject: email, detail: role, now: now)
        }
    }

    public func createEnrolmentCode(email: String, codeHash: String, expires: Date, now: Date, createdBy: String?) async throws {
        try await createEnrolmentCode(email: email, codeHash: codeHash, expires: expires, now: now, createdBy: createdBy, openLimit: nil)
    }

    public func createEnrolmentCode(email: String, codeHash: String, expires: Date, now: Date, createdBy: String, openLimit: Int) async throws {
        try await createEnrolmentCode(email: email, codeHash: codeHash, expires: expires, now: now, createdBy: createdBy, openLimit: .some(openLimit))
    }

    func createEnrolmentCode(email: String, codeHash: String, expires: Date, now: Date, createdBy: String?, openLimit: Int?) async throws {
        try await sql.database.write { db in
            guard let user = try await db.one("SELECT * FROM users WHERE email = \(email)", as: UserRow.self) else {
                throw StoreError.notFound("no user \"\(email)\"")
            }
            guard user.disabled == nil else { throw StoreError.invalid("user \"\(email)\" is disabled") }
            if let openLimit {
                let userID = user.id
                // The user's row, locked (PostgreSQL) so that two requests at once count in turn.
                try await db.run("UPDATE users SET role = role WHERE id = \(userID)")
                let open = try await db.value("""
                    SELECT COUNT(*) FROM enrolment_codes
                    WHERE user_id = \(userID) AND used IS NULL AND expires > \(now) AND created_by IS NOT NULL
                    """, as: Int.self) ?? 0
                guard open < openLimit else { throw LimitRefusal.openInvites(limit: openLimit) }
            }
            try await db.run("""
                INSERT INTO enrolment_codes(code_hash, user_id, created, expires, created_by)
                VALUES (\(codeHash), \(user.id), \(now), \(expires), \(createdBy))
                """)
            try await StoreRows.audit(db, org: user.orgID, actor: createdBy ?? "operator", action: "invite", subject: email, now: now)
        }
    }

    public func users() async throws -> [UserSummary] {
        try await sql.database.read { db in
            try await db.all("""
                SELECT u.id, u.email, o.name AS org, u.role, u.created, u.disabled,
                  (SELECT COUNT(*) FROM devices d WHERE d.user_id = u.id AND d.invalidated IS NULL) AS devices
                FROM users u JOIN organisations o ON o.id = u.org_id ORDER BY o.name, u.email
                """, as: UserSummary.self)
        }
    }

    public func organisations() async throws -> [OrganisationSummary] {
        try await sql.database.read { db in
            try await db.all("""
                SELECT o.name, o.created, (SELECT COUNT(*) FROM users u WHERE u.org_id = o.id) AS users
                FROM organisations o ORDER BY o.name
                """, as: OrganisationSummary.self)
        }
    }

    public func setUser(email: String, admin: Bool?, disabled: Bool?, now: Date) async throws {
        try await sql.database.write { db in
            guard let user = try await db.one("SELECT * FROM users WHERE email = \(email)", as: UserRow.self) else {
                throw StoreError.notFound("no user \"\(email)\"")
            }
            let id = user.id, org = user.orgID
            if let admin {
                let role = admin ? "admin" : "member"
                try await db.run("UPDATE users SET role = \(role) WHERE id = \(id)")
                try await StoreRows.audit(db, org: org, actor: "operator", action: "user.role", subject: email, detail: role, now: now)
            }
            if let disabled {
                try await db.run("UPDATE users SET disabled = \(disabled ? now : nil) WHERE id = \(id)")
                if disabled { try await db.run("DELETE FROM admin_sessions WHERE user_id = \(id)") }
                try await StoreRows.audit(db, org: org, actor: "operator", action: disabled ? "user.disable" : "user.enable",
                                          subject: email, now: now)
            }
        }
    }

    public func allDevices() async throws -> [DeviceSummary] {
        try await sql.database.read { db in
            try await db.all("SELECT d.*, u.email FROM devices d JOIN users u ON u.id = d.user_id ORDER BY u.email, d.created")
                .map { DeviceSummary(user: try $0.decode(UserRow.Email.self).email, device: try $0.decode(Device.self)) }
        }
    }

    public func stats() async throws -> RelayStats {
        try await sql.database.read { db in
            guard let stats = try await db.one("""
                SELECT (SELECT COUNT(*) FROM organisations) AS organisations, (SELECT COUNT(*) FROM users) AS users,
                  (SELECT COUNT(*) FROM devices) AS devices,
                  (SELECT COUNT(*) FROM devices WHERE invalidated IS NULL) AS active_devices,
                  (SELECT COUNT(*) FROM device_groups) AS groups, (SELECT COUNT(*) FROM uploads) AS uploads,
                  (SELECT COUNT(*) FROM blobs) AS blobs, (SELECT COALESCE(SUM(size), 0) FROM blobs) AS blob_bytes,
                  (SELECT COUNT(*) FROM outbox WHERE status IN ('unattended', 'initiated')) AS live_transfers,
                  (SELECT COUNT(*) FROM cloud WHERE kind = 'file') AS cloud_files,
                  (SELECT COUNT(*) FROM items) AS items, (SELECT COUNT(*) FROM events) AS events
                """, as: RelayStats.self) else { throw SQLColumnMismatch(column: "#0", value: .null, expected: "a row of counts") }
            return stats
        }
    }

    public func audit(org: Int64?, actor: String, action: String, subject: String, detail: String, now: Date) async throws {
        try await sql.database.write { db in
            try await StoreRows.audit(db, org: org, actor: actor, action: action, subject: subject, detail: detail, now: now)
        }
    }

    public func deviceIDs(ofUser email: String) async throws -> [String] {
        try await sql.database.read { db in
            guard let user = try await db.value("SELECT id FROM users WHERE email = \(email)", as: Int64.self) else {
                throw StoreError.notFound("no user \"\(email)\"")
            }
            return try await db.values("SELECT id FROM devices WHERE user_id = \(user) AND invalidated IS NULL ORDER BY created",
                                       as: String.self)
        }
    }

    public func enroll(codeHash: String, deviceID: String, tokenHash: String, name: String, platform: String,
                       recipient: String, now: Date, limits: UsageLimits) async throws -> Device? {
        try await sql.database.write { db in
            // Single use: only one transaction can flip `used` from NULL.
            guard let userID = try await db.value("""
                UPDATE enrolment_codes SET used = \(now)
                WHERE code_hash = \(codeHash) AND used IS NULL AND expires > \(now)
                  AND user_id IN (SELECT id FROM users WHERE disabled IS NULL)
                RETURNING user_id
                """, as: Int64.self),
                let user = try await db.one("SELECT * FROM users WHERE id = \(userID)", as: UserRow.self) else { return nil }
            // The caps, counted with the user's row locked (PostgreSQL; SQLite writes one at a
            // time): refused, the transaction and so the code's use are undone.
            try await db.run("UPDATE users SET role = role WHERE id = \(userID)")
            let org = user.orgID
            let own = try await db.value("SELECT COUNT(*) FROM devices WHERE user_id = \(userID) AND invalidated IS NULL", as: Int.self) ?? 0
            guard own < limits.devices else { throw LimitRefusal.devices(limit: limits.devices, organisation: false) }
            if limits.orgDevices < .max {
                let all = try await db.value("""
                    SELECT COUNT(*) FROM devices d JOIN users u ON u.id = d.user_id WHERE u.org_id = \(org) AND d.invalidated IS NULL
                    """, as: Int.self) ?? 0
                guard all < limits.orgDevices else { throw LimitRefusal.devices(limit: limits.orgDevices, organisation: true) }
            }
            // Names are unique among a user's live devices (the transaction, and so the code's use, is undone).
            if try await db.one("SELECT 1 FROM devices WHERE user_id = \(userID) AND name = \(name) AND invalidated IS NULL") != nil {
                throw StoreError.conflict("you already have a device named \"\(name)\"")
            }
            try await db.run("""
                INSERT INTO devices(id, user_id, name, platform, recipient, token_hash, created, last_seen)
                VALUES (\(deviceID), \(userID), \(name), \(platform), \(recipient), \(tokenHash), \(now), \(now))
                """)
            try await StoreRows.audit(db, org: user.orgID, actor: user.email, action: "device.enroll",
                                      subject: deviceID, detail: name, now: now)
            return Device(id: deviceID, name: name, platform: platform, recipient: recipient, created: now, lastSeen: now)
        }
    }

    public func isRevoked(tokenHash: String) async throws -> Bool {
        try await sql.database.read { db in
            if try await db.one("SELECT 1 FROM devices WHERE token_hash = \(tokenHash) AND invalidated IS NOT NULL") != nil {
                return true
            }
            return try await db.one("SELECT 1 FROM removed_tokens WHERE token_hash = \(tokenHash)") != nil
        }
    }

    public func revokedDevice(tokenHash: String) async throws -> DeviceIdentity? {
        try await sql.database.read { db in
            try await db.one("""
                SELECT d.id, d.user_id, d.last_seen, u.org_id, u.email, u.role, s.device_id AS send_only_mark FROM devices d
                JOIN users u ON u.id = d.user_id LEFT JOIN send_only_devices s ON s.device_id = d.id
                WHERE d.token_hash = \(tokenHash) AND d.invalidated IS NOT NULL
                """).map(IdentityRow.init(row:))?.identity(admin: false)
        }
    }

    public func authenticate(tokenHash: String, now: Date) async throws -> DeviceIdentity? {
        let database = sql.database
        guard let row = try await database.read({ db in
            try await db.one("""
                SELECT d.id, d.user_id, d.last_seen, u.org_id, u.email, u.role, s.device_id AS send_only_mark FROM devices d
                JOIN users u ON u.id = d.user_id LEFT JOIN send_only_devices s ON s.device_id = d.id
                WHERE d.token_hash = \(tokenHash) AND d.invalidated IS NULL
                """).map(IdentityRow.init(row:))
        }) else { return nil }
        let identity = row.identity(admin: row.role == "admin"), lastSeen = row.lastSeen?.timeIntervalSince1970 ?? 0
        // Last seen to the minute: no write on every request.
        if now.timeIntervalSince1970 - lastSeen > 60 {
            try await database.write { db in
                try await db.run("UPDATE devices SET last_seen = \(now) WHERE id = \(identity.deviceID)")
            }
        }
        return identity
    }

    public func devices(user: Int64) async throws -> [Device] {
        try await sql.database.read { db in
            try await db.all("SELECT * FROM devices WHERE user_id = \(user) AND invalidated IS NULL ORDER BY created, id", as: Device.self)
        }
    }

    public func device(id: String, user: Int64) async throws -> Device {
        try await sql.database.read { db in try await StoreRows.ownedDevice(db, id: id, user: user).decode(Device.self) }
    }

    public func renameDevice(id: String, user: Int64, name: String, now: Date) async throws -> Device {
        try await sql.database.write { db in
            let row = try await StoreRows.ownedDevice(db, id: id, user: user)
            try await db.run("UPDATE devices SET name = \(name) WHERE id = \(id)")
            try await StoreRows.audit(db, org: nil, actor: id, action: "device.rename", subject: id, detail: name, now: now)
            var device = try row.decode(Device.self)
            device.name = name
            return device
        }
    }

    public func invalidateDevice(id: String, user: Int64, now: Date) async throws -> [String] {
        let sql = self.sql
        let released = try await sql.database.write { db in
            let waiting = try await db.all("""
                SELECT o.transfer_id, t.blob_id FROM outbox o JOIN transfers t ON t.id = o.transfer_id
                WHERE o.device_id = \(id) AND o.status IN ('unattended', 'initiated') ORDER BY t.blob_id, o.transfer_id
                """, as: WaitingCopy.self).map { (transfer: $0.transferID, blob: $0.blobID) }
            try await StoreRows.lockBlobs(db, Array(Set(waiting.map(\.blob))).sorted())
            guard try await db.one("""
                UPDATE devices SET invalidated = \(now) WHERE id = \(id) AND user_id = \(user) AND invalidated IS NULL RETURNING id
                """) != nil else { throw StoreError.notFound("no device \"\(id)\"") }
            try await db.run("DELETE FROM group_members WHERE device_id = \(id)")
            try await db.run("DELETE FROM enrolment_codes WHERE created_by = \(id) AND used IS NULL")
            try await StoreRows.insertEvents(db, kind: .logout, data: StoreRows.json(["device": id]), devices: [id], now: now)
            var released = [String]()
            for (transfer, blob) in waiting {
                // Only a copy still waiting gives its reference back (another instance may
                // have finished it since the SELECT).
                guard try await db.one("""
                    UPDATE outbox SET status = 'expired', updated = \(now)
                    WHERE transfer_id = \(transfer) AND device_id = \(id) AND status IN ('unattended', 'initiated')
                    RETURNING transfer_id
                    """) != nil else { continue }
                if try await StoreRows.release(db, blob: blob) { released.append(blob) }
            }
            try await StoreRows.audit(db, org: nil, actor: id, action: "device.invalidate", subject: id, now: now)
            return released
        }
        await sql.notify([id])
        return released
    }
}
