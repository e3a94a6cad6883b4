import Foundation
import VFSRelayProtocol

/// An organisation's link settings' row (`org_link_settings`).
struct LinkSettingsRow: Decodable {
    var orgID: Int64, allowed: Int64, maxExpiry: Int64?, maxDownloads: Int64?, maxSize: Int64?

    var policy: LinkPolicy {
        LinkPolicy(allowed: allowed != 0, maxExpiry: maxExpiry, maxDownloads: maxDownloads.map(Int.init), maxSize: maxSize)
    }
}

/// `LinkPolicyRepository`, `LinkPolicySettingRepository` and `LinkAdminRepository`
/// (Storage/Repositories.swift): table `org_link_settings` (migration `v24-link-settings`),
/// and the organisation's links and file requests as its administrators see them.
extension SQLRelayStore {
    public func linkPolicy(org: Int64) async throws -> LinkPolicy {
        try await sql.database.read { db in
            try await db.one("SELECT * FROM org_link_settings WHERE org_id = \(org)", as: LinkSettingsRow.self)?.policy ?? .open
        }
    }

    public func setLinkPolicy(org: Int64, policy: LinkPolicy, now: Date) async throws {
        try await sql.database.write { db in
            try await db.run("DELETE FROM org_link_settings WHERE org_id = \(org)")
            if policy != .open {
                try await db.run("""
                    INSERT INTO org_link_settings(org_id, allowed, max_expiry, max_downloads, max_size)
                    VALUES (\(org), \(Int64(policy.allowed ? 1 : 0)), \(policy.maxExpiry), \(policy.maxDownloads.map(Int64.init)),
                            \(policy.maxSize))
                    """)
            }
            try await StoreRows.audit(db, org: org, actor: "operator", action: "org.links", subject: "organisation",
                                      detail: LinkPolicyText.describe(policy), now: now)
        }
    }

    public func organisationLinks(org: Int64, now: Date) async throws -> [LinkOverview] {
        try await sql.database.read { db in
            let emails = Dictionary(try await db.all("SELECT * FROM users WHERE org_id = \(org)", as: UserRow.self).map { ($0.id, $0.email) },
                                    uniquingKeysWith: { first, _ in first })
            var links = [LinkOverview]()
            for row in try await db.all("SELECT * FROM shares WHERE org_id = \(org) ORDER BY created DESC, id", as: ShareRow.self) {
                let state = row.revoked != nil ? "revoked" : (row.released != nil || row.expires <= now) ? "expired"
                    : PublicShare(row, now: now).live ? "live" : "used"
                links.append(LinkOverview(kind: .share, id: row.id, owner: emails[row.userID] ?? "user \(row.userID)", device: row.deviceID,
                                          size: row.size, created: row.created, expires: row.expires, used: Int(row.downloads),
                                          limit: row.maxDownloads.map(Int.init), state: state))
            }
            // What each request has taken, in one query for the whole organisation.
            var taken = [String: Int64]()
            for row in try await db.all("""
                SELECT u.request_id AS request_id, COALESCE(SUM(u.size), 0) AS size FROM file_request_uploads u
                JOIN file_requests r ON r.id = u.request_id WHERE r.org_id = \(org) GROUP BY u.request_id
                """) {
                taken[try row.get("request_id", as: String.self)] = try row.get("size", as: Int64.self)
            }
            for row in try await db.all("SELECT * FROM file_requests WHERE org_id = \(org) ORDER BY created DESC, id",
                                        as: FileRequestRow.self) {
                let state = row.revoked != nil ? "revoked" : row.expires <= now ? "expired" : PublicFileRequest(row, now: now).live ? "live" : "used"
                let size = taken[row.id] ?? 0
                links.append(LinkOverview(kind: .request, id: row.id, owner: emails[row.userID] ?? "user \(row.userID)", device: row.deviceID,
                                          size: size, created: row.created, expires: row.expires, used: Int(row.uploads),
                                          limit: row.maxUploads.map(Int.init), state: state))
            }
            return links.sorted { ($0.created, $0.id) > ($1.created, $1.id) }
        }
    }

    public func adminRevokeLink(id: String, org: Int64, actor: String, now: Date) async throws -> [String] {
        try await sql.database.write { db in
            if let row = try await db.one("SELECT * FROM shares WHERE id = \(id) AND org_id = \(org)", as: ShareRow.self) {
                if row.revoked == nil {
                    try await db.run("UPDATE shares SET revoked = \(now) WHERE id = \(id)")
                    try await StoreRows.audit(db, org: org, actor: actor, action: "share.revoke", subject: id,
                                              detail: "by an administrator", now: now)
                }
                return try await StoreRows.releaseShares(db, "id = \(id)", now: now)
            }
            guard let row = try await db.one("SELECT * FROM file_requests WHERE id = \(id) AND org_id = \(org)", as: FileRequestRow.self)
            else { throw StoreError.notFound("no link or file request \"\(Validate.shown(id))\" in the organisation") }
            if row.revoked == nil {
                try await db.run("UPDATE file_requests SET revoked = \(now) WHERE id = \(id)")
                try await StoreRows.audit(db, org: org, actor: actor, action: "request.revoke", subject: id,
                                          detail: "by an administrator", now: now)
            }
            return []
        }
    }
}

/// A share link or a file request of an organisation, as its administrators see it: who
/// made it, its size (what a request took so far), its times and its use.
public struct LinkOverview: Sendable, Equatable {
    public enum Kind: String, Sendable { case share = "link", request = "file request" }
    public var kind: Kind
    public var id: String
    public var owner: String
    public var device: String
    public var size: Int64
    public var created: Date
    public var expires: Date
    /// Downloads of a link, files taken by a request; and the most it allows (nil: no limit).
    public var used: Int
    public var limit: Int?
    /// live, used, expired or revoked.
    public var state: String
}

/// A `LinkPolicy` in words, as the audit log and `vfs-relay org show` give it.
public enum LinkPolicyText {
    public static func describe(_ policy: LinkPolicy) -> String {
        guard policy.allowed else { return "links off" }
        var parts = ["links on"]
        if let seconds = policy.maxExpiry { parts.append("longest expiry \(seconds) s") }
        if let downloads = policy.maxDownloads { parts.append("at most \(downloads) download(s)") }
        if let size = policy.maxSize { parts.append("at most \(size) bytes") }
        return parts.joined(separator: ", ")
    }
}
