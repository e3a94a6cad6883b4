import Foundation
import VFSRelayProtocol

extension StoreRows {
    /// The cloud version policy of `user`'s organisation: its row of `org_cloud_retention`,
    /// staggered without one.
    static func cloudVersionPolicy(_ db: any SQLConnection, user: Int64) async throws -> CloudVersionPolicy {
        let text = try await db.value("""
            SELECT r.policy FROM org_cloud_retention r JOIN users u ON u.org_id = r.org_id WHERE u.id = \(user)
            """, as: String.self)
        return text.flatMap(CloudVersionPolicy.init(text:)) ?? .staggered
    }
}

/// `CloudRetentionSettingRepository` and `CloudRetentionRepository` (Storage/Repositories.swift):
/// table `org_cloud_retention` (migration `v26-cloud-retention`), and the sweep's part of the
/// cloud's history, which drops the versions an organisation's policy no longer keeps.
extension SQLRelayStore {
    public func cloudVersionPolicy(org: Int64) async throws -> CloudVersionPolicy {
        try await sql.database.read { db in
            try await db.value("SELECT policy FROM org_cloud_retention WHERE org_id = \(org)", as: String.self)
                .flatMap(CloudVersionPolicy.init(text:)) ?? .staggered
        }
    }

    public func setCloudVersionPolicy(org: Int64, policy: CloudVersionPolicy, now: Date) async throws {
        try await sql.database.write { db in
            try await db.run("DELETE FROM org_cloud_retention WHERE org_id = \(org)")
            if policy != .staggered {
                try await db.run("INSERT INTO org_cloud_retention(org_id, policy) VALUES (\(org), \(policy.description))")
            }
            try await StoreRows.audit(db, org: org, actor: "operator", action: "org.cloud-versions", subject: "organisation",
                                      detail: policy.description, now: now)
        }
    }

    public func pruneCloudVersions(now: Date) async throws -> (dropped: Int, released: [String]) {
        let users = try await sql.database.read { db in
            try await db.values("SELECT DISTINCT user_id FROM cloud_versions WHERE until IS NOT NULL ORDER BY user_id", as: Int64.self)
        }
        var dropped = 0
        var released = [String]()
        // One user at a time, under the user's lock (the cloud's changes take it first, then their blobs').
        for user in users {
            let (count, blobs) = try await sql.database.write { db -> (Int, [String]) in
                try await CloudTree.lockUser(db, user)
                let policy = try await StoreRows.cloudVersionPolicy(db, user: user)
                if policy == .all { return (0, []) }
                let ended = try await db.all("SELECT * FROM cloud_versions WHERE user_id = \(user) AND until IS NOT NULL",
                                             as: CloudVersionRow.self)
                var drop = [CloudVersionRow]()
                for (_, versions) in Dictionary(grouping: ended, by: \.fileID) {
                    let kept = policy.kept(versions.compactMap { row in row.until.map { .init(id: row.id, until: $0) } }, now: now)
                    drop += versions.filter { !kept.contains($0.id) }
                }
                guard !drop.isEmpty else { return (0, []) }
                try await StoreRows.lockBlobs(db, Array(Set(drop.compactMap(\.blobID))).sorted())
                var blobs = [String]()
                for start in stride(from: 0, to: drop.count, by: 500) {
                    let chunk = drop[start..<min(start + 500, drop.count)]
                    try await db.run("DELETE FROM cloud_versions WHERE id IN \(list: chunk.map(\.id))")
                }
                for row in drop {
                    if let blob = row.blobID, try await StoreRows.release(db, blob: blob) { blobs.append(blob) }
                }
                return (drop.count, blobs)
            }
            dropped += count
            released += blobs
        }
        return (dropped, released)
    }

    public func cloudVersionTotals() async throws -> (versions: Int, bytes: Int64) {
        try await sql.database.read { db in
            let versions = try await db.value("SELECT COUNT(*) FROM cloud_versions WHERE until IS NOT NULL AND blob_id IS NOT NULL",
                                              as: Int.self) ?? 0
            let bytes = try await db.value("""
                SELECT COALESCE(SUM(b.size), 0) FROM blobs b
                WHERE EXISTS (SELECT 1 FROM cloud_versions v WHERE v.blob_id = b.id AND v.until IS NOT NULL)
                AND NOT EXISTS (SELECT 1 FROM cloud c WHERE c.blob_id = b.id)
                """, as: Int64.self) ?? 0
            return (versions, bytes)
        }
    }

    public func cloudHistorySummaries(org: Int64) async throws -> [Int64: CloudHistorySummary] {
        try await sql.database.read { db in
            var summaries = [Int64: CloudHistorySummary]()
            // The users with earlier versions kept, and how many, in one query for the organisation.
            for row in try await db.all("""
                SELECT v.user_id AS user_id, COUNT(*) AS versions FROM cloud_versions v JOIN users u ON u.id = v.user_id
                WHERE u.org_id = \(org) AND v.until IS NOT NULL AND v.blob_id IS NOT NULL GROUP BY v.user_id
                """) {
                let user = try row.get("user_id", as: Int64.self)
                let versions = Int(try row.get("versions", as: Int64.self))
                let bytes = try await db.value("SELECT \(StoreRows.versionOnlyBytes(user: user))", as: Int64.self) ?? 0
                // As the trash lists them: each removed file's last row.
                let trash = try await db.value("""
                    SELECT COUNT(*) FROM cloud_versions v WHERE v.user_id = \(user) AND v.until IS NOT NULL
                    AND NOT EXISTS (SELECT 1 FROM cloud c WHERE c.id = v.file_id)
                    AND NOT EXISTS (SELECT 1 FROM cloud_versions w WHERE w.file_id = v.file_id AND (w.until IS NULL OR w.until > v.until))
                    """, as: Int.self) ?? 0
                summaries[user] = CloudHistorySummary(versions: versions, bytes: bytes, trash: trash)
            }
            return summaries
        }
    }
}
