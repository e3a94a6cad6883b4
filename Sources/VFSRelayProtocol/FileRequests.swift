#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// File requests (issue 51, item 4): a link through which someone without a device sends
/// a file in, an age file to the requester's receiving devices (`age -r … | curl -T -
/// URL`, or the link's page, which encrypts in the browser). The relay delivers each one
/// accepted to the requester's inbox as an external transfer.
extension RelayPaths {
    /// `POST` makes a request, `GET` lists the user's requests with their uploads.
    public static let fileRequests = "/v1/requests"
    /// The public side: `PUT` an age file (no token), `GET` the page.
    public static let requestLinks = "/r"
    /// `DELETE`: the request is revoked.
    public static func fileRequest(_ id: String) -> String { "\(fileRequests)/\(id)" }
    public static func requestLink(_ id: String) -> String { "\(requestLinks)/\(id)" }
}

/// `POST /v1/requests`: the devices that receive what is sent in, each with its X25519
/// age recipient as this device pinned it (the relay checks each is that device's).
public struct FileRequestCreate: Codable, Sendable, Equatable {
    public var devices: [String]
    public var recipients: [String]
    /// When the request stops taking files; the relay's default transfer lifetime when absent.
    public var expires: Date?
    /// How many files it takes; unlimited until it expires when absent.
    public var uploads: Int?

    public init(devices: [String], recipients: [String], expires: Date? = nil, uploads: Int? = nil) {
        (self.devices, self.recipients, self.expires, self.uploads) = (devices, recipients, expires, uploads)
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case devices, recipients, expires, uploads }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        devices = try c.decode([String].self, forKey: .devices)
        recipients = try c.decode([String].self, forKey: .recipients)
        expires = try c.decodeIfPresent(Date.self, forKey: .expires)
        uploads = try c.decodeIfPresent(Int.self, forKey: .uploads)
    }
}

/// One file sent in through a request, as the relay saw it.
public struct FileRequestUpload: Codable, Sendable, Equatable {
    /// The external transfer it became (in the requester's inbox).
    public var transfer: String
    public var at: Date
    /// Bytes of the age file.
    public var size: Int64
    /// The sender's address as the relay sees it (behind a trusted proxy, the one it names).
    public var address: String
    /// The file name the sender gave (the link's path after the id), if any.
    public var name: String?

    public init(transfer: String, at: Date, size: Int64, address: String, name: String?) {
        (self.transfer, self.at, self.size, self.address, self.name) = (transfer, at, size, address, name)
    }
}

/// A request as its owner sees it (`GET /v1/requests`, `POST /v1/requests`).
public struct FileRequest: Codable, Sendable, Equatable {
    public var id: String
    /// The age recipients a file sent in must be encrypted to (one X25519 stanza each).
    public var recipients: [String]
    /// The devices that receive it.
    public var devices: [String]
    public var created: Date
    public var expires: Date
    /// The most files it takes; nil: no limit.
    public var maxUploads: Int?
    /// Each file accepted so far, oldest first.
    public var uploads: [FileRequestUpload]
    public var revoked: Date?

    public init(id: String, recipients: [String], devices: [String], created: Date, expires: Date, maxUploads: Int?,
                uploads: [FileRequestUpload] = [], revoked: Date? = nil) {
        (self.id, self.recipients, self.devices, self.created, self.expires) = (id, recipients, devices, created, expires)
        (self.maxUploads, self.uploads, self.revoked) = (maxUploads, uploads, revoked)
    }

    /// Whether it still takes a file at `now`.
    public func isLive(at now: Date) -> Bool {
        revoked == nil && expires > now && (maxUploads.map { uploads.count < $0 } ?? true)
    }
}

/// Where an external transfer came from: a file request of the receiving user, sent in by
/// someone without a device. Nothing signs it: no device of anyone vouches for it.
public struct ExternalOrigin: Codable, Sendable, Equatable {
    /// The file request it came through.
    public var request: String
    /// The file name its sender gave, if any (one path component; the receiver checks it again).
    public var name: String?

    public init(request: String, name: String?) {
        (self.request, self.name) = (request, name)
    }
}
