import Foundation
import VFSRelayProtocol

/// Each user's device chain (docs/device-chain.md), stored as the signed statements'
/// base64, and each device's published signing key. The controller verifies what is
/// appended (ChainController); the store keeps the chain in order under a lock of the
/// user's row, so that two devices appending at once cannot fork it.
extension SQLRelayStore {
    public func chain(user: Int64) async throws -> [String] {
        try await sql.database.read { db in
            try await db.values("SELECT statement FROM device_chains WHERE user_id = \(user) ORDER BY sequence", as: String.self)
        }
    }

    public func chain(user: Int64, pinned: Int64?) async throws -> [String] {
        try await sql.database.read { db in try await Self.segment(db, user: user, pinned: pinned) }
    }

    public func chainBytes(user: Int64) async throws -> Int {
        // Base64 without padding's 4 characters hold 3 bytes; padding makes this an upper bound.
        let characters = try await sql.database.read { db in
            try await db.value("SELECT SUM(LENGTH(statement)) FROM device_chains WHERE user_id = \(user)", as: Int64.self)
        }
        return Int(characters ?? 0) / 4 * 3
    }

    public func chain(email: String, org: Int64, pinned: Int64?) async throws -> [String] {
        try await sql.database.read { db in
            guard let user = try await db.value("SELECT id FROM users WHERE email = \(email) AND org_id = \(org)", as: Int64.self) else {
                throw StoreError.notFound("no user \"\(email)\"")
            }
            return try await Self.segment(db, user: user, pinned: pinned)
        }
    }

    /// The statements from the last checkpoint marked (verified when appended) at or
    /// before `pinned`; all of them without one.
    static func segment(_ db: any SQLConnection, user: Int64, pinned: Int64?) async throws -> [String] {
        var start: Int64?
        if let pinned {
            start = try await db.value("""
                SELECT MAX(sequence) FROM device_chains WHERE user_id = \(user) AND checkpoint = 1 AND sequence <= \(pinned)
                """, as: Int64.self)
        }
        return try await db.values("""
            SELECT statement FROM device_chains WHERE user_id = \(user) AND sequence >= \(start ?? 0) ORDER BY sequence
            """, as: String.self)
    }

    public func appendChainStatement(user: Int64, sequence: Int64, previous: String, statement: String, hash: String,
                                     checkpoint: Bool, device: String, now: Date) async throws -> [String] {
        try await sql.database.write { db in
            // The user's row, locked: appends of one user's devices take turns.
            _ = try await db.one("SELECT id FROM users WHERE id = \(user)\(SQL.forUpdate)")
            let head = try await db.one("""
                SELECT sequence, hash FROM device_chains WHERE user_id = \(user) ORDER BY sequence DESC LIMIT 1
                """, as: ChainHead.self)
            let length = head.map { $0.sequence + 1 } ?? 0
            guard sequence == length else {
                throw StoreError.conflict("the chain has \(length) statements: the next is number \(length), not \(sequence)")
            }
            let headHash = head?.hash ?? String(repeating: "0", count: 64)
            guard previous == headHash else {
                throw StoreError.conflict("the statement does not follow the chain's last statement")
            }
            try await db.run("""
                INSERT INTO device_chains(user_id, sequence, statement, hash, created, checkpoint)
                VALUES (\(user), \(sequence), \(statement), \(hash), \(now), \(checkpoint ? 1 : 0))
                """)
            try await StoreRows.audit(db, org: nil, actor: device, action: checkpoint ? "chain.checkpoint" : "chain.append",
                                      subject: "user:\(user)", detail: "\(sequence)", now: now)
            return try await Self.segment(db, user: user, pinned: sequence - 1)
        }
    }

    public func cutChain(user: Int64, keeping: Int64, head: String?, actor: String, now: Date) async throws -> Int {
        try await sql.database.write { db in
            _ = try await db.one("SELECT id FROM users WHERE id = \(user)\(SQL.forUpdate)")
            let kept = try await db.value("""
                SELECT hash FROM device_chains WHERE user_id = \(user) AND sequence = \(keeping - 1)
                """, as: String.self)
            guard kept == head else { throw StoreError.conflict("the chain changed: its statement \(keeping - 1) is not the one verified") }
            let dropped = try await db.value("""
                SELECT COUNT(*) FROM device_chains WHERE user_id = \(user) AND sequence >= \(keeping)
                """, as: Int64.self) ?? 0
            guard dropped > 0 else { return 0 }
            try await db.run("DELETE FROM device_chains WHERE user_id = \(user) AND sequence >= \(keeping)")
            try await StoreRows.audit(db, org: nil, actor: actor, action: "chain.cut", subject: "user:\(user)",
                                      detail: "kept \(keeping), dropped \(dropped)", now: now)
            return Int(dropped)
        }
    }

    public func setSigningKey(device id: String, user: Int64, key: String, now: Date) async throws -> Device {
        try await sql.database.write { db in
            let row = try await StoreRows.ownedDevice(db, id: id, user: user)
            var device = try row.decode(Device.self)
            if let existing = device.signingKey {
                guard existing == key else { throw StoreError.conflict("device \"\(device.name)\" already published another signing key") }
                return device
            }
            try await db.run("UPDATE devices SET signing_key = \(key) WHERE id = \(id)")
            try await StoreRows.audit(db, org: nil, actor: id, action: "device.signing-key", subject: id, now: now)
            device.signingKey = key
            return device
        }
    }
}
