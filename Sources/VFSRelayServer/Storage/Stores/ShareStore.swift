import Foundation
import VFSRelayProtocol

/// A share link's row (`shares`).
struct ShareRow: Decodable {
    var id: String, userID: Int64, deviceID: String, orgID: Int64, blobID: String, size: Int64, sha256: String
    var created: Date, expires: Date, maxDownloads: Int64?, downloads: Int64, revoked: Date?, released: Date?
    var blob: BlobRef { BlobRef(id: blobID, size: size, sha256: sha256) }
}

/// One logged download of a link (`share_downloads`).
struct ShareDownloadRow: Decodable {
    var shareID: String, at: Date, size: Int64, address: String
}

/// Share links (issue 51): one blob reference per link until it is revoked or expires;
/// downloads counted in the UPDATE that lets them through.
extension SQLRelayStore {
    public func createShare(id: String, upload: String, blobID: String, owner: DeviceIdentity, expires: Date, maxDownloads: Int?,
                            now: Date) async throws -> Share {
        try await sql.database.write { db in
            let blob = try await StoreRows.consumeUpload(db, id: upload, user: owner.userID, blobID: blobID, refs: 1, now: now)
            try await db.run("""
                INSERT INTO shares(id, user_id, device_id, org_id, blob_id, size, sha256, created, expires, max_downloads)
                VALUES (\(id), \(owner.userID), \(owner.deviceID), \(owner.orgID), \(blob.id), \(blob.size), \(blob.sha256), \(now),
                        \(expires), \(maxDownloads.map(Int64.init)))
                """)
            try await StoreRows.audit(db, org: owner.orgID, actor: owner.deviceID, action: "share.create", subject: id,
                                      detail: "\(blob.size) bytes, \(maxDownloads.map { "\($0) download(s)" } ?? "no download limit")",
                                      now: now)
            return Share(id: id, size: blob.size, created: now, expires: expires, maxDownloads: maxDownloads)
        }
    }

    public func shares(user: Int64) async throws -> [Share] {
        try await sql.database.read { db in
            let rows = try await db.all("SELECT * FROM shares WHERE user_id = \(user) ORDER BY created, id", as: ShareRow.self)
            guard !rows.isEmpty else { return [] }
            let downloads = try await db.all("""
                SELECT d.* FROM share_downloads d JOIN shares s ON s.id = d.share_id WHERE s.user_id = \(user) ORDER BY d.at
                """, as: ShareDownloadRow.self)
            let byShare = Dictionary(grouping: downloads, by: \.shareID)
            return rows.map { row in
                Share(id: row.id, size: row.size, created: row.created, expires: row.expires, maxDownloads: row.maxDownloads.map(Int.init),
                      downloads: (byShare[row.id] ?? []).map { ShareDownload(at: $0.at, size: $0.size, address: $0.address) },
                      revoked: row.revoked)
            }
        }
    }

    public func publicShare(id: String, now: Date) async throws -> PublicShare {
        try await sql.database.read { db in
            guard let row = try await db.one("SELECT * FROM shares WHERE id = \(id)", as: ShareRow.self) else {
                throw StoreError.notFound("no link \"\(Validate.shown(id))\"")
            }
            return PublicShare(row, now: now)
        }
    }

    public func countShareDownload(id: String, size: (BlobRef) -> Int64, address: String, resume: String? = nil,
                                   now: Date) async throws -> PublicShare {
        let sql = self.sql
        let (share, devices) = try await sql.database.write { db -> (PublicShare, [String]) in
            // The check and the count in one statement: of many GETs at once, exactly as
            // many as the limit allows get through, on either engine.
            guard let row = try await db.one("""
                UPDATE shares SET downloads = downloads + 1
                WHERE id = \(id) AND revoked IS NULL AND released IS NULL AND expires > \(now)
                  AND (max_downloads IS NULL OR downloads < max_downloads)
                RETURNING *
                """, as: ShareRow.self) else {
                guard let row = try await db.one("SELECT * FROM shares WHERE id = \(id)", as: ShareRow.self) else {
                    throw StoreError.notFound("no link \"\(Validate.shown(id))\"")
                }
                return (PublicShare(row, now: now), [])
            }
            let bytes = size(row.blob)
            try await db.run("""
                INSERT INTO share_downloads(share_id, at, size, address, resume) VALUES (\(id), \(now), \(bytes), \(address), \(resume))
                """)
            let devices = try await db.values("""
                SELECT id FROM devices WHERE user_id = \(row.userID) AND invalidated IS NULL ORDER BY id
                """, as: String.self)
            let data = try JSONSerialization.data(withJSONObject: ["share": id, "size": bytes, "address": address] as [String: Any],
                                                  options: [.sortedKeys, .withoutEscapingSlashes])
            try await StoreRows.insertEvents(db, kind: .share, data: String(decoding: data, as: UTF8.self), devices: devices, now: now)
            var counted = PublicShare(row, now: now)
            counted.admitted = true
            return (counted, devices)
        }
        await sql.notify(devices)
        return share
    }

    public func resumeShareDownload(id: String, resume: String, within: TimeInterval, now: Date) async throws -> PublicShare {
        try await sql.database.read { db in
            guard let row = try await db.one("SELECT * FROM shares WHERE id = \(id)", as: ShareRow.self) else {
                throw StoreError.notFound("no link \"\(Validate.shown(id))\"")
            }
            var share = PublicShare(row, now: now)
            guard row.revoked == nil, row.released == nil, row.expires > now,
                  try await db.value("""
                      SELECT COUNT(*) FROM share_downloads
                      WHERE share_id = \(id) AND resume = \(resume) AND at > \(now.addingTimeInterval(-within))
                      """, as: Int64.self) == 1 else { return share }
            share.admitted = true
            return share
        }
    }

    public func revokeShare(id: String, user: Int64, now: Date) async throws -> [String] {
        try await sql.database.write { db in
            guard let row = try await db.one("SELECT * FROM shares WHERE id = \(id) AND user_id = \(user)", as: ShareRow.self) else {
                throw StoreError.notFound("no link \"\(Validate.shown(id))\"")
            }
            if row.revoked == nil {
                try await db.run("UPDATE shares SET revoked = \(now) WHERE id = \(id)")
                try await StoreRows.audit(db, org: row.orgID, actor: "user:\(user)", action: "share.revoke", subject: id, now: now)
            }
            return try await StoreRows.releaseShares(db, "id = \(id)", now: now)
        }
    }

    public func expireShares(now: Date) async throws -> [String] {
        try await sql.database.write { db in
            try await StoreRows.releaseShares(db, "expires <= \(now)", now: now)
        }
    }
}

extension StoreRows {
    /// Drops the blob reference of every link matching `condition` that still holds one;
    /// returns the blobs that went with it.
    static func releaseShares(_ db: any SQLConnection, _ condition: SQL, now: Date) async throws -> [String] {
        let blobs = try await db.values("SELECT blob_id FROM shares WHERE released IS NULL AND \(condition) ORDER BY blob_id",
                                        as: String.self)
        guard !blobs.isEmpty else { return [] }
        try await lockBlobs(db, Array(Set(blobs)).sorted())
        try await db.run("UPDATE shares SET released = \(now) WHERE released IS NULL AND \(condition)")
        var released = [String]()
        for blob in blobs where try await release(db, blob: blob) { released.append(blob) }
        return released
    }
}

/// A link as anyone holding it sees it: its size and expiry, and whether a GET gets it.
public struct PublicShare: Sendable, Equatable {
    public var id: String
    public var blob: BlobRef
    public var expires: Date
    /// Downloads it still allows (nil: no limit), this request's counted.
    public var downloadsLeft: Int?
    /// It can be downloaded (not revoked, expired or used up).
    public var live: Bool
    /// This request was counted as one of its downloads.
    public var admitted = false

    init(_ row: ShareRow, now: Date) {
        id = row.id
        blob = row.blob
        expires = row.expires
        downloadsLeft = row.maxDownloads.map { Int(max(0, $0 - row.downloads)) }
        live = row.revoked == nil && row.released == nil && row.expires > now && (downloadsLeft ?? 1) > 0
    }
}
