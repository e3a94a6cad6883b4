#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One approved app: who may receive files, of which groups and types, until when.
///
/// Stored as a JSON object with the keys below; `groups` and `types` empty mean
/// "any group" and "any file type". An item is expired at and after its `expires`
/// instant (`date >= expires`), so `expires` is the first moment it no longer approves.
public struct PolicyItem: Codable, Sendable, Equatable {
    /// Short random lowercase hex (8 digits), unique in the policy; never equal to an app.
    public var id: String
    /// A command name (`evince`) or a reverse-DNS id (`com.example.viewer`), unique in the policy.
    public var app: String
    /// A display name for people; may be empty.
    public var name: String
    /// The groups whose files the app may receive; empty means any group (or none).
    public var groups: [String]
    /// The file types (lowercase extensions, no dot) the app may receive; empty means any.
    public var types: [String]
    /// The first instant at which the approval no longer holds; nil never expires.
    public var expires: Date?
    public var enabled: Bool
    public var created: Date
    public var updated: Date

    public init(id: String, app: String, name: String = "", groups: [String] = [], types: [String] = [],
                expires: Date? = nil, enabled: Bool = true, created: Date, updated: Date) {
        self.id = id
        self.app = app
        self.name = name
        self.groups = groups
        self.types = types
        self.expires = expires
        self.enabled = enabled
        self.created = created
        self.updated = updated
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case id, app, name, groups, types, expires, enabled, created, updated
    }

    /// Strict: unknown keys are rejected (a typo such as "group" would otherwise widen
    /// what the item approves); name, groups, types and enabled may be left out.
    public init(from decoder: Decoder) throws {
        try AnyKey.rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let k = try decoder.container(keyedBy: CodingKeys.self)
        id = try k.decode(String.self, forKey: .id)
        app = try k.decode(String.self, forKey: .app)
        name = try k.decodeIfPresent(String.self, forKey: .name) ?? ""
        groups = try k.decodeIfPresent([String].self, forKey: .groups) ?? []
        types = try k.decodeIfPresent([String].self, forKey: .types) ?? []
        expires = try k.decodeIfPresent(Date.self, forKey: .expires)
        enabled = try k.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
        created = try k.decode(Date.self, forKey: .created)
        updated = try k.decode(Date.self, forKey: .updated)
    }

    /// Whether the approval has run out at `date` (expired at and after `expires`).
    public func isExpired(at date: Date) -> Bool {
        guard let expires else { return false }
        return date >= expires
    }

    /// "active", "disabled" or "expired", for listings.
    public func status(at date: Date) -> String {
        if !enabled { return "disabled" }
        return isExpired(at: date) ? "expired" : "active"
    }
}

/// The whole policy file: a format version and the items, kept sorted by app so a
/// change shows up in a review or `git diff` as the lines of the items it touched.
public struct PolicyDocument: Codable, Sendable, Equatable {
    public static let currentVersion = 1

    public var version: Int
    public var items: [PolicyItem]

    public init(items: [PolicyItem] = []) {
        version = Self.currentVersion
        self.items = items
    }

    package enum CodingKeys: String, CodingKey, CaseIterable { case version, items }

    public init(from decoder: Decoder) throws {
        try AnyKey.rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let k = try decoder.container(keyedBy: CodingKeys.self)
        version = try k.decode(Int.self, forKey: .version)
        guard version == Self.currentVersion else {
            throw DecodingError.dataCorruptedError(forKey: .version, in: k,
                debugDescription: "unsupported policy format version \(version) (this vfs-policy reads version \(Self.currentVersion))")
        }
        items = try k.decode([PolicyItem].self, forKey: .items)
    }

    /// The item for `app`, if any.
    public func item(forApp app: String) -> PolicyItem? {
        items.first { $0.app == app }
    }

    /// The item whose app or id is `reference`. Apps and ids never collide (add, import
    /// and validation keep it so), so at most one item matches.
    public func item(matching reference: String) -> PolicyItem? {
        index(matching: reference).map { items[$0] }
    }

    package func index(matching reference: String) -> Int? {
        items.firstIndex { $0.app == reference } ?? items.firstIndex { $0.id == reference }
    }

    /// Items in the stored order: by app, then id.
    package mutating func sort() {
        items.sort { ($0.app, $0.id) < ($1.app, $1.id) }
    }
}

/// A coding key for any string, to see every key of an object.
package struct AnyKey: CodingKey {
    package var stringValue: String
    package var intValue: Int? { nil }
    package init(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { return nil }

    /// Throws for a key of the object being decoded that `known` does not list.
    package static func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(in decoder: Decoder, known: Keys.Type) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        let names = Set(Keys.allCases.map(\.stringValue))
        // The decoder lists keys in its dictionary's order, which changes from run to
        // run: name the first unknown one in alphabetical order, so the error is stable.
        if let unknown = c.allKeys.filter({ !names.contains($0.stringValue) }).min(by: { $0.stringValue < $1.stringValue }) {
            throw DecodingError.dataCorruptedError(forKey: unknown, in: c, debugDescription: "unknown key \"\(unknown.stringValue)\"")
        }
    }
}
