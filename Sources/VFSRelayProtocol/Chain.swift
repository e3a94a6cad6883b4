#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A user's device chain as the relay stores and serves it, without reading it
/// (docs/device-chain.md, "Wire form"): base64 of each signed statement, in order.
public struct ChainDocument: Codable, Sendable, Equatable {
    public static let currentVersion = 1
    public var version: Int
    /// The chain's user (their email address); clients check every statement names it.
    public var user: String
    public var statements: [String]
    public init(user: String, statements: [String]) {
        version = Self.currentVersion
        self.user = user
        self.statements = statements
    }
}

/// `POST /v1/chain`: one more statement of the caller's user's chain, signed by the caller.
public struct ChainAppend: Codable, Sendable, Equatable {
    /// Base64 of the signed statement's canonical bytes.
    public var statement: String
    public init(statement: String) { self.statement = statement }
    enum CodingKeys: String, CodingKey, CaseIterable { case statement }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        statement = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .statement)
    }
}

/// `PUT /v1/devices/{id}/signing-key`: the caller publishes its own Ed25519 public key,
/// once, so its user's other devices can show its fingerprint and approve it.
public struct SigningKeyUpdate: Codable, Sendable, Equatable {
    /// Base64 of the 32-byte Ed25519 public key.
    public var signingKey: String
    public init(signingKey: String) { self.signingKey = signingKey }
    enum CodingKeys: String, CodingKey, CaseIterable { case signingKey }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        signingKey = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .signingKey)
    }
}

extension RelayPaths {
    /// `GET`: the caller's user's chain (empty before its root); `POST`: append a statement.
    public static let chain = "/v1/chain"
    public static let users = "/v1/users"
    /// `GET`: a user's chain (any device of the same organisation).
    public static func userChain(_ email: String) -> String { "\(users)/\(email)/chain" }
    public static func deviceSigningKey(_ id: String) -> String { "\(devices)/\(id)/signing-key" }
    /// A chain's path (`chain`, `userChain`) asking for it from the last checkpoint at or
    /// before statement `pinned`, the head the client verified (`?pinned=N`); the whole
    /// chain, from its root, without one.
    public static func chain(_ path: String, pinned: UInt64?) -> String {
        pinned.map { "\(path)?\(pinnedQuery)=\($0)" } ?? path
    }
    public static let pinnedQuery = "pinned"
}
