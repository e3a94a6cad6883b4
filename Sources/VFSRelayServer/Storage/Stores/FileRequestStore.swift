import Foundation
import VFSRelayProtocol

/// A file request's row (`file_requests`): its devices and recipients one per line.
struct FileRequestRow: Decodable {
    var id: String, userID: Int64, deviceID: String, orgID: Int64, devices: String, recipients: String
    var created: Date, expires: Date, maxUploads: Int64?, uploads: Int64, revoked: Date?

    var deviceList: [String] { devices.split(separator: "\n").map(String.init) }
    var recipientList: [String] { recipients.split(separator: "\n").map(String.init) }
}

/// One file accepted through a request (`file_request_uploads`).
struct FileRequestUploadRow: Decodable {
    var requestID: String, transferID: String, at: Date, size: Int64, address: String, name: String?
}

/// File requests (issue 51, item 4): each file accepted, counted in the UPDATE that lets
/// it in, becomes an external transfer to the request's devices, held by the requester's
/// quota like a transfer they sent.
extension SQLRelayStore {
    public func createFileRequest(id: String, owner: DeviceIdentity, devices: [String], recipients: [String], expires: Date,
                                  maxUploads: Int?, now: Date) async throws -> FileRequest {
        try await sql.database.write { db in
            guard !devices.isEmpty, devices.count == recipients.count else {
                throw StoreError.invalid("a request names at least one device, each with its recipient")
            }
            for (device, recipient) in zip(devices, recipients) {
                let row = try await StoreRows.ownedDevice(db, id: device, user: owner.userID).decode(Device.self)
                guard row.recipient == recipient else {
                    throw StoreError.invalid("\"\(Validate.shown(recipient))\" is not the recipient of device \"\(device)\"")
                }
                guard try await db.one("SELECT device_id FROM send_only_devices WHERE device_id = \(device)") == nil else {
                    throw StoreError.invalid("device \"\(device)\" is send-only: it receives nothing")
                }
            }
            guard Set(devices).count == devices.count else { throw StoreError.invalid("a device is named twice") }
            try await db.run("""
                INSERT INTO file_requests(id, user_id, device_id, org_id, devices, recipients, created, expires, max_uploads)
                VALUES (\(id), \(owner.userID), \(owner.deviceID), \(owner.orgID), \(devices.joined(separator: "\n")),
                        \(recipients.joined(separator: "\n")), \(now), \(expires), \(maxUploads.map(Int64.init)))
                """)
            try await StoreRows.audit(db, org: owner.orgID, actor: owner.deviceID, action: "request.create", subject: id,
                                      detail: "\(devices.count) device(s), \(maxUploads.map { "\($0) upload(s)" } ?? "no upload limit")",
                                      now: now)
            return FileRequest(id: id, recipients: recipients, devices: devices, created: now, expires: expires, maxUploads: maxUploads)
        }
    }

    public func fileRequests(user: Int64) async throws -> [FileRequest] {
        try await sql.database.read { db in
            let rows = try await db.all("SELECT * FROM file_requests WHERE user_id = \(user) ORDER BY created, id", as: FileRequestRow.self)
            guard !rows.isEmpty else { return [] }
            let uploads = try await db.all("""
                SELECT u.* FROM file_request_uploads u JOIN file_requests r ON r.id = u.request_id WHERE r.user_id = \(user) ORDER BY u.at
                """, as: FileRequestUploadRow.self)
            let byRequest = Dictionary(grouping: uploads, by: \.requestID)
            return rows.map { row in
                FileRequest(id: row.id, recipients: row.recipientList, devices: row.deviceList, created: row.created, expires: row.expires,
                            maxUploads: row.maxUploads.map(Int.init),
                            uploads: (byRequest[row.id] ?? []).map {
                                FileRequestUpload(transfer: $0.transferID, at: $0.at, size: $0.size, address: $0.address, name: $0.name)
                            },
                            revoked: row.revoked)
            }
        }
    }

    public func publicFileRequest(id: String, now: Date) async throws -> PublicFileRequest {
        try await sql.database.read { db in
            guard let row = try await db.one("SELECT * FROM file_requests WHERE id = \(id)", as: FileRequestRow.self) else {
                throw StoreError.notFound("no file request \"\(Validate.shown(id))\"")
            }
            return PublicFileRequest(row, now: now)
        }
    }

    public func deliverExternal(request id: String, upload: String, blobID: String, name: String?, address: String,
                                expires: Date, now: Date) async throws -> String? {
        let sql = self.sql
        let delivered = try await sql.database.write { db -> (String, [String])? in
            // The check and the count in one statement: of many uploads at once, exactly as
            // many as the request allows are accepted.
            guard let row = try await db.one("""
                UPDATE file_requests SET uploads = uploads + 1
                WHERE id = \(id) AND revoked IS NULL AND expires > \(now) AND (max_uploads IS NULL OR uploads < max_uploads)
                RETURNING *
                """, as: FileRequestRow.self) else { return nil }
            // Its devices still live (one revoked since is left out).
            var targets = [String]()
            for device in row.deviceList where try await db.one("""
                SELECT id FROM devices WHERE id = \(device) AND user_id = \(row.userID) AND invalidated IS NULL
                """) != nil {
                targets.append(device)
            }
            guard !targets.isEmpty else { return nil }
            let blob = try await StoreRows.consumeUpload(db, id: upload, user: row.userID, blobID: blobID, refs: targets.count, now: now)
            let transfer = Secrets.id()
            // The request's id stands for the sender: no device sent it.
            try await db.run("""
                INSERT INTO transfers(id, sender_device, sender_user, blob_id, size, sha256, created, expires, request_id, external_name)
                VALUES (\(transfer), \(row.id), \(row.userID), \(blob.id), \(blob.size), \(blob.sha256), \(now), \(expires), \(row.id), \(name))
                """)
            for target in targets {
                try await db.run("""
                    INSERT INTO outbox(transfer_id, device_id, status, updated) VALUES (\(transfer), \(target), 'unattended', \(now))
                    """)
            }
            try await db.run("""
                INSERT INTO file_request_uploads(request_id, transfer_id, at, size, address, name)
                VALUES (\(row.id), \(transfer), \(now), \(blob.size), \(address), \(name))
                """)
            try await StoreRows.insertEvents(db, kind: .transfer, data: StoreRows.json(["transfer": transfer]), devices: targets, now: now)
            try await StoreRows.audit(db, org: row.orgID, actor: "request:\(row.id)", action: "request.upload", subject: transfer,
                                      detail: "\(blob.size) bytes from \(address)", now: now)
            return (transfer, targets)
        }
        guard let (transfer, targets) = delivered else { return nil }
        await sql.notify(targets)
        return transfer
    }

    public func revokeFileRequest(id: String, user: Int64, now: Date) async throws {
        try await sql.database.write { db in
            guard let row = try await db.one("SELECT * FROM file_requests WHERE id = \(id) AND user_id = \(user)",
                                             as: FileRequestRow.self) else {
                throw StoreError.notFound("no file request \"\(Validate.shown(id))\"")
            }
            guard row.revoked == nil else { return }
            try await db.run("UPDATE file_requests SET revoked = \(now) WHERE id = \(id)")
            try await StoreRows.audit(db, org: row.orgID, actor: "user:\(user)", action: "request.revoke", subject: id, now: now)
        }
    }
}

/// A request as anyone holding its link sees it: the recipients a file must be for, its
/// expiry, and whether it takes one now.
public struct PublicFileRequest: Sendable, Equatable {
    public var id: String
    public var recipients: [String]
    public var expires: Date
    /// Files it still takes (nil: no limit).
    public var uploadsLeft: Int?
    /// It takes a file (not revoked, expired or used up).
    public var live: Bool
    /// Its owner, whose quota holds what is sent in, and the device that made it.
    public var userID: Int64, deviceID: String, orgID: Int64

    init(_ row: FileRequestRow, now: Date) {
        id = row.id
        (userID, deviceID, orgID) = (row.userID, row.deviceID, row.orgID)
        recipients = row.recipientList
        expires = row.expires
        uploadsLeft = row.maxUploads.map { Int(max(0, $0 - row.uploads)) }
        live = row.revoked == nil && row.expires > now && (uploadsLeft ?? 1) > 0
    }
}
