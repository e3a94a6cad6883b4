#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `POST /v1/transfers`: send a finished tus upload to some of the user's devices, and
/// to devices of other users of the same organisation (`users`).
public struct TransferCreate: Codable, Sendable, Equatable {
    /// The tus upload id (the last part of its `Location`).
    public var upload: String
    public var devices: [String]
    public var groups: [String]
    /// Other users' devices: the ones the sender's client found approved in each user's
    /// verified device chain (the relay only checks they are that user's live devices).
    public var users: [UserTarget]
    /// When undelivered copies expire; the relay's default (7 days) when absent.
    public var expires: Date?
    /// `true`: the upload may still be running; the transfer exists at once (its copies
    /// `uploading`) and its content follows the upload until it ends. Absent or false: the
    /// upload must be finished (409 otherwise).
    public var streaming: Bool?

    public init(upload: String, devices: [String] = [], groups: [String] = [], users: [UserTarget] = [], expires: Date? = nil,
                streaming: Bool? = nil) {
        self.upload = upload
        self.devices = devices
        self.groups = groups
        self.users = users
        self.expires = expires
        self.streaming = streaming
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case upload, devices, groups, users, expires, streaming }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        upload = try c.decode(String.self, forKey: .upload)
        devices = try c.decodeIfPresent([String].self, forKey: .devices) ?? []
        groups = try c.decodeIfPresent([String].self, forKey: .groups) ?? []
        users = try c.decodeIfPresent([UserTarget].self, forKey: .users) ?? []
        expires = try c.decodeIfPresent(Date.self, forKey: .expires)
        streaming = try c.decodeIfPresent(Bool.self, forKey: .streaming)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(upload, forKey: .upload)
        try c.encode(devices, forKey: .devices)
        try c.encode(groups, forKey: .groups)
        // Left out when empty, so a relay of before version 28 still takes the body.
        if !users.isEmpty { try c.encode(users, forKey: .users) }
        try c.encodeIfPresent(expires, forKey: .expires)
        try c.encodeIfPresent(streaming, forKey: .streaming)
    }
}

/// Some devices of one user of the sender's organisation, a transfer's targets.
public struct UserTarget: Codable, Sendable, Equatable {
    /// The user's email address.
    public var user: String
    /// Device ids, each in the user's verified device chain.
    public var devices: [String]
    public init(user: String, devices: [String]) {
        self.user = user
        self.devices = devices
    }
    enum CodingKeys: String, CodingKey, CaseIterable { case user, devices }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        user = try c.decode(String.self, forKey: .user)
        devices = try c.decode([String].self, forKey: .devices)
    }
}

/// Where one copy of a transfer stands.
public enum TransferStatus: String, Codable, Sendable, CaseIterable {
    /// `cancelled`: the sender withdrew it while this copy waited (`expired` before
    /// version 27's relays; rows written then stay so). `uploading`: waiting, and its
    /// upload still runs (its size and SHA-256 are known once it ends); its content
    /// streams as the bytes arrive.
    case unattended, initiated, delivered, declined, expired, cancelled, uploading

    /// Still waiting for its device: holds a reference to the blob (or will, once uploaded).
    public var isLive: Bool { self == .unattended || self == .initiated || self == .uploading }
}

/// One copy of a transfer, as its sender sees it.
public struct TransferRecipient: Codable, Sendable, Equatable {
    public var device: String
    /// The email address of the device's user (absent from relays before version 28).
    public var user: String?
    public var status: TransferStatus
    public var updated: Date
    public init(device: String, user: String? = nil, status: TransferStatus, updated: Date) {
        self.device = device
        self.user = user
        self.status = status
        self.updated = updated
    }
}

/// A transfer in the sender's outbox (`GET /v1/outbox`, and the answer to `POST /v1/transfers`).
public struct OutboxEntry: Codable, Sendable, Equatable {
    public var id: String
    public var size: Int64
    public var sha256: String
    public var created: Date
    public var expires: Date
    public var recipients: [TransferRecipient]
    public init(id: String, size: Int64, sha256: String, created: Date, expires: Date, recipients: [TransferRecipient]) {
        self.id = id
        self.size = size
        self.sha256 = sha256
        self.created = created
        self.expires = expires
        self.recipients = recipients
    }
}

/// A transfer waiting for this device (`GET /v1/inbox`).
public struct InboxEntry: Codable, Sendable, Equatable {
    public var id: String
    /// The sending device's id.
    public var sender: String
    /// The email address of the sending device's user, as the relay knows it (absent
    /// from relays before version 28); the bundle's signature is what verifies it.
    public var senderUser: String?
    public var size: Int64
    public var sha256: String
    public var created: Date
    public var expires: Date
    public var status: TransferStatus
    /// Set for an external transfer: a file sent in through one of the receiving user's
    /// file requests by someone without a device (`sender` is then the request's id and
    /// `senderUser` the receiving user). It carries no signature; absent from relays before
    /// file requests.
    public var external: ExternalOrigin?
    public init(id: String, sender: String, senderUser: String? = nil, size: Int64, sha256: String, created: Date, expires: Date,
                status: TransferStatus, external: ExternalOrigin? = nil) {
        self.id = id
        self.sender = sender
        self.senderUser = senderUser
        self.size = size
        self.sha256 = sha256
        self.created = created
        self.expires = expires
        self.status = status
        self.external = external
    }
}
