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

    public func chain(email: String, org: Int64) async throws -> [String] {
        try await sql.database.read { db in
            guard let user = try await db.value("SELECT id FROM users WHERE email = \(email) AND org_id = \(org)", as: Int64.self) else {
                throw StoreError.notFound("no user \"\(email)\"")
            }
            return try await db.values("SELECT statement FROM device_chains WHERE user_id = \(user) ORDER BY sequence", as: String.self)
        }
    }

    public func appendChainStatement(user: Int64, sequence: Int64, previous: String, statement: String, hash: String,
                                     device: String, now: Date) async throws -> [String] {
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
                INSERT INTO device_chains(user_id, sequence, statement, hash, created)
                VALUES (\(user), \(sequence), \(statement), \(hash), \(now))
                """)
            try await StoreRows.audit(db, org: nil, actor: device, action: "chain.append", subject: "user:\(user)",
                                      detail: "\(sequence)", now: now)
            return try await db.values("SELECT statement FROM device_chains WHERE user_id = \(user) ORDER BY sequence", as: String.self)
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
