import Foundation
import VFSRelayProtocol

/// What `removeUser` let go of: the caller deletes these files after the commit.
public struct RemovedUser: Sendable, Equatable {
    /// Blobs whose last reference went with the user (cloud files, transfers waiting for them).
    public var blobs: [String]
    /// The user's unfinished uploads.
    public var uploads: [String]
    /// Devices that were live and got the logout event.
    public var loggedOut: [String]
    /// Cloud files removed.
    public var cloudFiles: Int
}

/// `vfs-relay user remove`: the user, their devices, cloud, groups, uploads and codes go in
/// one transaction. Transfers waiting for their devices expire (their references given
/// back, as a logout does); each live device gets a `logout` event, which outlives the
/// device row so that an open event stream still hears it.
extension SQLRelayStore {
    public func removeUser(email: String, now: Date) async throws -> RemovedUser {
        let sql = self.sql
        let removed = try await sql.database.write { db -> RemovedUser in
            guard let user = try await db.one("SELECT * FROM users WHERE email = \(email)\(SQL.forUpdate)", as: UserRow.self) else {
                throw StoreError.notFound("no user \"\(email)\"")
            }
            let id = user.id, org = user.orgID
            let devices = try await db.all("SELECT * FROM devices WHERE user_id = \(id) ORDER BY id", as: Device.self)
            let deviceIDs = devices.map(\.id)
            let live = devices.filter { $0.invalidated == nil }.map(\.id)
            let waiting = deviceIDs.isEmpty ? [] : try await db.values("""
                SELECT t.blob_id FROM outbox o JOIN transfers t ON t.id = o.transfer_id
                WHERE o.device_id IN \(list: deviceIDs) AND o.status IN ('unattended', 'initiated')
                """, as: String.self)
            let files = try await db.values("SELECT blob_id FROM cloud WHERE user_id = \(id) AND blob_id IS NOT NULL", as: String.self)
            // The versions kept of them (issue 50), each one reference.
            let versions = try await db.values("SELECT blob_id FROM cloud_versions WHERE user_id = \(id) AND blob_id IS NOT NULL",
                                               as: String.self)
            // The store's lock order: blob rows first, by id.
            try await StoreRows.lockBlobs(db, Array(Set(waiting + files + versions)).sorted())
            var released = [String]()
            for blob in waiting + files + versions where try await StoreRows.release(db, blob: blob) { released.append(blob) }
            released += try await StoreRows.releaseShares(db, "user_id = \(id)", now: now)
            try await db.run("DELETE FROM shares WHERE user_id = \(id)")
            try await db.run("DELETE FROM file_requests WHERE user_id = \(id)")
            try await db.run("DELETE FROM cloud WHERE user_id = \(id)")
            try await db.run("DELETE FROM cloud_versions WHERE user_id = \(id)")
            let uploads = try await db.values("DELETE FROM uploads WHERE user_id = \(id) RETURNING id", as: String.self)
            if !deviceIDs.isEmpty {
                try await db.run("DELETE FROM outbox WHERE device_id IN \(list: deviceIDs)")
                try await db.run("DELETE FROM group_members WHERE device_id IN \(list: deviceIDs)")
            }
            // What they sent and nobody else still waits for (its retention row first).
            try await db.run("""
                DELETE FROM retained_transfers WHERE transfer_id IN (SELECT t.id FROM transfers t WHERE t.sender_user = \(id)
                AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.transfer_id = t.id))
                """)
            try await db.run("""
                DELETE FROM transfers WHERE sender_user = \(id)
                AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.transfer_id = transfers.id)
                """)
            try await db.run("DELETE FROM device_groups WHERE user_id = \(id)")
            try await db.run("DELETE FROM org_group_members WHERE user_id = \(id)")
            try await db.run("DELETE FROM enrolment_codes WHERE user_id = \(id)")
            try await db.run("DELETE FROM login_codes WHERE user_id = \(id)")
            try await db.run("DELETE FROM admin_sessions WHERE user_id = \(id)")
            for device in live {
                try await StoreRows.insertEvents(db, kind: .logout, data: StoreRows.json(["device": device]), devices: [device], now: now)
            }
            try await db.run("""
                INSERT INTO removed_tokens(token_hash, removed) SELECT token_hash, \(now) FROM devices WHERE user_id = \(id)
                ON CONFLICT (token_hash) DO NOTHING
                """)
            try await db.run("DELETE FROM device_chains WHERE user_id = \(id)")
            try await db.run("DELETE FROM devices WHERE user_id = \(id)")
            try await db.run("DELETE FROM users WHERE id = \(id)")
            try await StoreRows.audit(db, org: org, actor: "operator", action: "user.remove", subject: email,
                                      detail: "\(deviceIDs.count) device(s), \(files.count) cloud file(s)", now: now)
            return RemovedUser(blobs: released, uploads: uploads, loggedOut: live, cloudFiles: files.count)
        }
        await sql.notify(removed.loggedOut)
        return removed
    }
}
