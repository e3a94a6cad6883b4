#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Share links (issue 51): an age file for someone without a device, served at
/// `GET /s/{id}` to whoever holds the link. The key is in the link's fragment, which no
/// HTTP client sends: the relay never holds it.
extension RelayPaths {
    /// `POST` makes a link of a finished upload, `GET` lists the user's links.
    public static let shares = "/v1/shares"
    /// The public side: the ciphertext (or, for a browser, the page) of a link.
    public static let shareLinks = "/s"
    /// `DELETE`: the link is revoked.
    public static func share(_ id: String) -> String { "\(shares)/\(id)" }
    public static func shareLink(_ id: String) -> String { "\(shareLinks)/\(id)" }
}

/// `POST /v1/shares`: a link to a finished tus upload (an age file the sender sealed).
public struct ShareCreate: Codable, Sendable, Equatable {
    /// The tus upload id (the last part of its `Location`).
    public var upload: String
    /// When the link stops working; the relay's default transfer lifetime when absent.
    public var expires: Date?
    /// How many downloads the link allows (each GET that is answered bytes counts);
    /// unlimited until it expires when absent.
    public var downloads: Int?

    public init(upload: String, expires: Date? = nil, downloads: Int? = nil) {
        (self.upload, self.expires, self.downloads) = (upload, expires, downloads)
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case upload, expires, downloads }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        upload = try c.decode(String.self, forKey: .upload)
        expires = try c.decodeIfPresent(Date.self, forKey: .expires)
        downloads = try c.decodeIfPresent(Int.self, forKey: .downloads)
    }
}

/// One download of a link, as the relay saw it.
public struct ShareDownload: Codable, Sendable, Equatable {
    public var at: Date
    /// Bytes of the answer (the whole file, or the range asked for).
    public var size: Int64
    /// The client's address as the relay sees it (behind a trusted proxy, the one it names).
    public var address: String

    public init(at: Date, size: Int64, address: String) {
        (self.at, self.size, self.address) = (at, size, address)
    }
}

/// A link as its owner sees it (`GET /v1/shares`, `POST /v1/shares`).
public struct Share: Codable, Sendable, Equatable {
    public var id: String
    /// Bytes of the ciphertext.
    public var size: Int64
    public var created: Date
    public var expires: Date
    /// The most downloads it allows; nil: no limit.
    public var maxDownloads: Int?
    /// Each download so far, oldest first.
    public var downloads: [ShareDownload]
    /// When its owner revoked it.
    public var revoked: Date?

    public init(id: String, size: Int64, created: Date, expires: Date, maxDownloads: Int?, downloads: [ShareDownload] = [],
                revoked: Date? = nil) {
        (self.id, self.size, self.created, self.expires) = (id, size, created, expires)
        (self.maxDownloads, self.downloads, self.revoked) = (maxDownloads, downloads, revoked)
    }

    /// Whether a GET of it may still get the file at `now`.
    public func isLive(at now: Date) -> Bool {
        revoked == nil && expires > now && (maxDownloads.map { downloads.count < $0 } ?? true)
    }
}

/// What an organisation allows its users' share links and file requests (issue 51,
/// item 5; `vfs-relay org set --links …`), as `GET /v1/link-policy` tells a device before it
/// uploads. A link past a limit is refused (403 `link_policy`); one that names no expiry
/// or download limit gets the organisation's longest.
public struct LinkPolicy: Codable, Sendable, Equatable {
    /// Whether the users may make new links and file requests at all.
    public var allowed: Bool
    /// The longest a link or file request may live, in seconds; nil: the relay's longest.
    public var maxExpiry: Int64?
    /// The most downloads a link may allow; nil: no limit.
    public var maxDownloads: Int?
    /// The largest file a link may hold or a file request may take, in bytes; nil: the
    /// relay's upload size cap.
    public var maxSize: Int64?

    public init(allowed: Bool = true, maxExpiry: Int64? = nil, maxDownloads: Int? = nil, maxSize: Int64? = nil) {
        (self.allowed, self.maxExpiry, self.maxDownloads, self.maxSize) = (allowed, maxExpiry, maxDownloads, maxSize)
    }

    /// The organisations that set nothing: links allowed, the relay's own limits.
    public static let open = LinkPolicy()
}

extension RelayPaths {
    /// `GET`: the device's organisation's `LinkPolicy`.
    public static let linkPolicy = "/v1/link-policy"
}
