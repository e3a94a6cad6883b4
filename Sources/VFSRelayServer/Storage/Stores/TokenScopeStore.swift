import Foundation

/// `TokenScopeRepository` (Storage/Repositories.swift): the send-only marks, table
/// `send_only_devices` (migration `v18-send-only-devices`).
extension SQLRelayStore {
    public func markSendOnly(device: String, now: Date) async throws {
        try await sql.database.write { db in
            try await db.run("INSERT INTO send_only_devices(device_id, created) VALUES (\(device), \(now))")
        }
    }

    public func unmarkSendOnly(device: String) async throws {
        try await sql.database.write { db in try await db.run("DELETE FROM send_only_devices WHERE device_id = \(device)") }
    }

    public func isSendOnly(device: String) async throws -> Bool {
        try await sql.database.read { db in
            try await db.value("SELECT 1 FROM send_only_devices WHERE device_id = \(device)", as: Int64.self) != nil
        }
    }
}
