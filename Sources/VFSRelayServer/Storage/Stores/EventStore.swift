import Foundation
import VFSRelayProtocol

extension StoreRows {
    /// Stores one event per device, in the change's transaction; the caller notifies the
    /// devices after the commit (`SQLHandle.notify`). The events lock (PostgreSQL) makes
    /// event ids visible in the order they were given: a stream reading "after N" never
    /// skips one.
    static func insertEvents(_ db: any SQLConnection, kind: RelayEventKind, data: String, devices: [String],
                             now: Date) async throws {
        guard !devices.isEmpty else { return }
        try await db.advisoryLock(PostgresMigrations.eventsKey)
        for device in devices {
            try await db.run("""
                INSERT INTO events(device_id, kind, data, created) VALUES (\(device), \(kind.rawValue), \(data), \(now))
                """)
        }
    }

    static func json(_ object: [String: String]) -> String {
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}

/// Events: stored per device, read by the device's stream after an id.
extension SQLRelayStore {
    public func appendEvent(kind: RelayEventKind, data: String, devices: [String], now: Date) async throws -> [String] {
        let sql = self.sql
        try await sql.database.write { db in try await StoreRows.insertEvents(db, kind: kind, data: data, devices: devices, now: now) }
        await sql.notify(devices)
        return devices
    }

    public func appendEventToOrganisation(kind: RelayEventKind, data: String, org: Int64, now: Date) async throws -> [String] {
        let sql = self.sql
        let devices = try await sql.database.write { db in
            let devices = try await db.values("""
                SELECT d.id FROM devices d JOIN users u ON u.id = d.user_id WHERE u.org_id = \(org) AND d.invalidated IS NULL
                ORDER BY d.id
                """, as: String.self)
            try await StoreRows.insertEvents(db, kind: kind, data: data, devices: devices, now: now)
            return devices
        }
        await sql.notify(devices)
        return devices
    }

    public func events(device: String, after: Int64, limit: Int) async throws -> [StoredEvent] {
        try await sql.database.read { db in
            try await db.all("""
                SELECT id, kind, data FROM events WHERE device_id = \(device) AND id > \(after) ORDER BY id LIMIT \(limit)
                """, as: EventRow.self).compactMap(\.event)
        }
    }

    public func lastEventID() async throws -> Int64 {
        try await sql.database.read { db in try await db.value("SELECT COALESCE(MAX(id), 0) FROM events", as: Int64.self) ?? 0 }
    }

    public func devicesWithEvents(after id: Int64) async throws -> [String] {
        try await sql.database.read { db in
            try await db.values("SELECT DISTINCT device_id FROM events WHERE id > \(id)", as: String.self)
        }
    }

    public func isDeviceLive(_ id: String) async throws -> Bool {
        try await sql.database.read { db in try await db.one("SELECT 1 FROM devices WHERE id = \(id) AND invalidated IS NULL") != nil }
    }
}
