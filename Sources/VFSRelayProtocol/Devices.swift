#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `POST /v1/enroll`: a one-time code and the new device's public facts.
public struct EnrollRequest: Codable, Sendable, Equatable {
    public var code: String
    public var name: String
    public var platform: String
    /// The device's age recipient (`age1…`): senders encrypt to it.
    public var recipient: String
    /// `vfs-device enroll --send-only` (issue 48): the device's token may only push (and
    /// read what a push needs); nil for an ordinary device.
    public var sendOnly: Bool?

    public init(code: String, name: String, platform: String, recipient: String, sendOnly: Bool? = nil) {
        self.code = code
        self.name = name
        self.platform = platform
        self.recipient = recipient
        self.sendOnly = sendOnly
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case code, name, platform, recipient, sendOnly }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        code = try c.decode(String.self, forKey: .code)
        name = try c.decode(String.self, forKey: .name)
        platform = try c.decode(String.self, forKey: .platform)
        recipient = try c.decode(String.self, forKey: .recipient)
        sendOnly = try c.decodeIfPresent(Bool.self, forKey: .sendOnly)
    }
}

/// The answer to an enrolment: the device and its bearer token, shown only this once.
public struct EnrollResponse: Codable, Sendable, Equatable {
    public var device: Device
    public var token: String
    public init(device: Device, token: String) {
        self.device = device
        self.token = token
    }
}

/// A device as the API shows it (never its token).
public struct Device: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var platform: String
    public var recipient: String
    public var created: Date
    public var lastSeen: Date?
    /// When the device was logged out; its token no longer works.
    public var invalidated: Date?
    /// Base64 of the device's Ed25519 public key, once the device published it (its
    /// fingerprint is computed from it and the recipient; clients never trust it unseen).
    public var signingKey: String?

    public init(id: String, name: String, platform: String, recipient: String, created: Date,
                lastSeen: Date? = nil, invalidated: Date? = nil, signingKey: String? = nil) {
        self.id = id
        self.name = name
        self.platform = platform
        self.recipient = recipient
        self.created = created
        self.lastSeen = lastSeen
        self.invalidated = invalidated
        self.signingKey = signingKey
    }
}

/// `PATCH /v1/devices/{id}`.
public struct DeviceRename: Codable, Sendable, Equatable {
    public var name: String
    public init(name: String) { self.name = name }
    enum CodingKeys: String, CodingKey, CaseIterable { case name }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
    }
}

/// A named set of one user's devices.
public struct DeviceGroup: Codable, Sendable, Equatable {
    public var id: String { name }
    public var name: String
    public var members: [String]
    public init(name: String, members: [String]) {
        self.name = name
        self.members = members
    }
    enum CodingKeys: String, CodingKey { case id, name, members }
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        members = try c.decode([String].self, forKey: .members)
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(members, forKey: .members)
    }
}

/// `POST /v1/groups`: a name and, optionally, the first members.
public struct GroupCreate: Codable, Sendable, Equatable {
    public var name: String
    public var members: [String]
    public init(name: String, members: [String] = []) {
        self.name = name
        self.members = members
    }
    enum CodingKeys: String, CodingKey, CaseIterable { case name, members }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        members = try c.decodeIfPresent([String].self, forKey: .members) ?? []
    }
}
