#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSPolicyModel

/// An item as a client writes it (`POST /v1/items`, `PUT /v1/items/{id}`): vfs-policy's
/// item without the fields the relay fills (`id`, `created`, `updated`).
public struct ItemDraft: Codable, Sendable, Equatable {
    public var app: String
    public var name: String
    public var groups: [String]
    public var types: [String]
    public var expires: Date?
    public var enabled: Bool

    public init(app: String, name: String = "", groups: [String] = [], types: [String] = [],
                expires: Date? = nil, enabled: Bool = true) {
        self.app = app
        self.name = name
        self.groups = groups
        self.types = types
        self.expires = expires
        self.enabled = enabled
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case app, name, groups, types, expires, enabled }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        app = try c.decode(String.self, forKey: .app)
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        groups = try c.decodeIfPresent([String].self, forKey: .groups) ?? []
        types = try c.decodeIfPresent([String].self, forKey: .types) ?? []
        expires = try c.decodeIfPresent(Date.self, forKey: .expires)
        enabled = try c.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
    }

    /// The first rule the draft breaks, in words; nil when it is a valid item.
    public var problem: String? {
        guard PolicyValueRules.isValidApp(app) else { return "invalid app \"\(app)\"" }
        for (n, group) in groups.enumerated() {
            guard PolicyValueRules.isValidGroup(group) else { return "invalid group \"\(group)\"" }
            if groups[..<n].contains(group) { return "group \"\(group)\" is listed twice" }
        }
        for (n, type) in types.enumerated() {
            guard PolicyValueRules.isValidType(type) else { return "invalid file type \"\(type)\"" }
            if types[..<n].contains(type) { return "type \"\(type)\" is listed twice" }
        }
        return nil
    }

    /// The stored item this draft becomes.
    public func item(id: String, created: Date, updated: Date) -> PolicyItem {
        PolicyItem(id: id, app: app, name: name, groups: groups, types: types, expires: expires,
                   enabled: enabled, created: created, updated: updated)
    }
}

/// `GET/PUT /v1/policy/settings`: the organisation's settings for its policy. Its admins
/// set them; every device gets them with the list (`GET /v1/items` headers).
public struct PolicySettings: Codable, Sendable, Equatable {
    /// How long (seconds) a device may decide from its cached copy of the list after its
    /// last successful sync; past it, every check denies (`policy-stale`).
    public var graceSeconds: Int64

    /// 72 hours, the relay's default.
    public static let defaultGraceSeconds: Int64 = 72 * 3600
    /// From one minute to a year.
    public static let graceRange: ClosedRange<Int64> = 60...(366 * 86400)

    public init(graceSeconds: Int64) { self.graceSeconds = graceSeconds }

    enum CodingKeys: String, CodingKey, CaseIterable { case graceSeconds }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        graceSeconds = try decoder.container(keyedBy: CodingKeys.self).decode(Int64.self, forKey: .graceSeconds)
    }
}

/// The headers of `GET /v1/items` that say which list a device holds.
public enum PolicyListHeaders {
    /// The organisation's items revision, `"r<N>"`: it changes with every item and
    /// settings change.
    public static let revision = "ETag"
    /// `PolicySettings.graceSeconds`, in seconds.
    public static let grace = "VFS-Policy-Grace"
}
