import Foundation
import VFSRelayProtocol

/// The records and the few statements every area of the store shares, written once over
/// the seam.
enum StoreRows {
    /// One line of the audit log, in the change's transaction.
    static func audit(_ db: any SQLConnection, org: Int64?, actor: String, action: String, subject: String,
                      detail: String = "", now: Date) async throws {
        try await db.run("""
            INSERT INTO audit(at, org_id, actor, action, subject, detail)
            VALUES (\(now), \(org), \(actor), \(action), \(subject), \(detail))
            """)
    }

    static func group(_ db: any SQLConnection, name: String, user: Int64) async throws -> DeviceGroup {
        guard let id = try await db.value("SELECT id FROM device_groups WHERE user_id = \(user) AND name = \(name)",
                                          as: Int64.self) else {
            throw StoreError.notFound("no group \"\(name)\"")
        }
        let members = try await db.values("SELECT device_id FROM group_members WHERE group_id = \(id) ORDER BY device_id",
                                          as: String.self)
        return DeviceGroup(name: name, members: members)
    }

    /// A transfer row with its copies.
    static func outboxEntry(_ db: any SQLConnection, transfer row: TransferRow) async throws -> OutboxEntry {
        let recipients = try await db.all("""
            SELECT o.*, u.email FROM outbox o LEFT JOIN devices d ON d.id = o.device_id LEFT JOIN users u ON u.id = d.user_id
            WHERE o.transfer_id = \(row.id) ORDER BY u.email, o.device_id
            """, as: CopyRow.self).map {
            let status = TransferStatus(rawValue: $0.status) ?? .expired
            return TransferRecipient(device: $0.deviceID, user: $0.email,
                                     status: row.uploadID != nil && status.isLive ? .uploading : status, updated: $0.updated)
        }
        return OutboxEntry(id: row.id, size: row.size, sha256: row.sha256, created: row.created, expires: row.expires,
                           recipients: recipients)
    }

    /// Locks blob rows in id order (PostgreSQL; SQLite's write transaction holds them all).
    /// The lock order of the whole store: a transaction that changes reference counts locks
    /// its blob rows first (all of them, by id, as gc does with every row), and only then the
    /// outbox, transfer and cloud rows that use them; two transactions never wait for each
    /// other in a circle (SQLSTATE 40P01).
    static func lockBlobs(_ db: any SQLConnection, _ ids: [String]) async throws {
        guard !ids.isEmpty, db.dialect == .postgres else { return }
        try await db.run("SELECT id FROM blobs WHERE id IN \(list: ids) ORDER BY id\(SQL.forUpdate)")
    }

    /// Drops one reference under the row's lock; deletes the blob row at zero and reports it.
    static func release(_ db: any SQLConnection, blob: String) async throws -> Bool {
        guard let refs = try await db.value("UPDATE blobs SET refs = refs - 1 WHERE id = \(blob) RETURNING refs", as: Int64.self),
              refs <= 0 else { return false }
        try await db.run("DELETE FROM blobs WHERE id = \(blob)")
        return true
    }
}

/// Rows of the relay's tables as the store reads them (`SQLRow.decode`): each property is
/// a column of the same name, so a new column is a property here (and its migration).
/// Records whose fields are columns already (`Device`, `UserSummary`, `AuditEntry`, …)
/// are decoded as they are.
struct UserRow: Decodable {
    var id: Int64, orgID: Int64, email: String, role: String, disabled: Date?

    /// A user's email beside another table's row.
    struct Email: Decodable { var email: String }
}

struct TransferRow: Decodable {
    var id: String, senderDevice: String, senderUser: Int64, blobID: String, size: Int64, sha256: String
    var created: Date, expires: Date, uploadID: String?
    /// An external transfer's file request and the name its sender gave (file requests).
    var requestID: String?, externalName: String?
    var blob: BlobRef { BlobRef(id: blobID, size: size, sha256: sha256) }
    var external: ExternalOrigin? { requestID.map { ExternalOrigin(request: $0, name: externalName) } }
}

/// A waiting copy in a device's inbox, beside its transfer's row.
struct InboxRow: Decodable {
    var status: String, senderEmail: String?
}

/// A streaming transfer's upload, where it stands (nil once the upload is gone).
struct StreamRow: Decodable {
    var uploadOffset: Int64?
}

/// A waiting copy and its transfer's blob.
struct WaitingCopy: Decodable {
    var transferID: String, blobID: String
}

/// A copy of a transfer (a row of outbox) with its device's user (nil once removed).
struct CopyRow: Decodable {
    var deviceID: String, status: String, updated: Date, email: String?
}

struct UploadRow: Decodable {
    var id: String, userID: Int64, deviceID: String, length: Int64?, offset: Int64, metadata: String
    var created: Date, expires: Date, sha256: String?, reserved: Int64?

    var record: UploadRecord {
        UploadRecord(id: id, userID: userID, deviceID: deviceID, length: length, offset: offset, metadata: metadata,
                     created: created, expires: expires, sha256: sha256)
    }
}

/// Where an upload kept as an S3 multipart upload stands.
struct MultipartRow: Decodable {
    var offset: Int64, length: Int64?, multipart: String?, assembled: Int64?
}

struct UploadPartRow: Decodable {
    var number: Int, etag: String, startOffset: Int64, size: Int64
    var part: UploadPart { UploadPart(number: number, etag: etag, start: startOffset, size: size) }
}

struct BlobRow: Decodable {
    var id: String, size: Int64, sha256: String
    var ref: BlobRef { BlobRef(id: id, size: size, sha256: sha256) }
}

struct CloudRow: Decodable {
    var id: String, parent: String, name: String, kind: String, blobID: String?, size: Int64?, sha256: String?, created: Date, updated: Date

    /// A file's content (a folder has none).
    var blob: BlobRef {
        get throws {
            guard let blobID, let size, let sha256 else { throw SQLColumnMismatch(column: "blob_id", value: .null, expected: "a file's blob") }
            return BlobRef(id: blobID, size: size, sha256: sha256)
        }
    }

    func entry(path: String) -> CloudEntry {
        let kind = CloudEntryKind(rawValue: kind) ?? .file
        return CloudEntry(id: id, name: name, path: path, kind: kind, size: kind == .file ? size : nil,
                          sha256: kind == .file ? sha256 : nil, created: created, updated: updated)
    }
}

/// A device with its user, as a token names it. Read by hand, not as `Decodable`: every
/// authenticated request reads one, and the typed decoding (each column's name worked out
/// from the property's, a dynamic cast per value) was 3.8% of the relay's CPU under wrk
/// (docs/speed.md). A new property fails to compile until `init(row:)` reads it.
struct IdentityRow {
    var id: String, userID: Int64, orgID: Int64, email: String, role: String, lastSeen: Date?, sendOnly: Bool

    init(row: SQLRow) throws {
        id = try row.get("id")
        sendOnly = try row.get("send_only_mark", as: String?.self) != nil
        userID = try row.get("user_id")
        orgID = try row.get("org_id")
        email = try row.get("email")
        role = try row.get("role")
        lastSeen = try row.get("last_seen")
    }

    func identity(admin: Bool) -> DeviceIdentity {
        DeviceIdentity(deviceID: id, userID: userID, orgID: orgID, email: email, isAdmin: admin, sendOnly: sendOnly)
    }
}

struct EventRow: Decodable {
    var id: Int64, kind: String, data: String

    /// nil for a kind this relay does not know (left by a newer one).
    var event: StoredEvent? { RelayEventKind(rawValue: kind).map { StoredEvent(id: id, kind: $0, data: data) } }
}

struct ItemRow: Decodable {
    var body: String, version: Int64
}

/// The last statement of a user's device chain.
struct ChainHead: Decodable {
    var sequence: Int64, hash: String
}

/// A blob's reference count beside the references its live rows hold (`StoreRows.referenceCounts`).
struct ReferenceCount: Decodable {
    var id: String, refs: Int64, live: Int64
}
