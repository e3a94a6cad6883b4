#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An organisation's group of people (issue 28), kept by its administrators: what
/// `vfs-push --to-group NAME` sends to, each member through their own device chain.
public struct OrgGroup: Codable, Sendable, Equatable {
    public var name: String
    /// The members' email addresses, sorted.
    public var members: [String]
    public init(name: String, members: [String]) {
        self.name = name
        self.members = members
    }
}

/// `POST /v1/org/groups` (an administrator): a new, empty group of people, named as a
/// device is renamed (`{"name": …}`, nothing else).
public typealias OrgGroupCreate = DeviceRename

extension RelayPaths {
    /// `GET`: the organisation's groups of people (every group for an administrator, the
    /// caller's own for a member); `POST`: a new one (administrators).
    public static let orgGroups = "/v1/org/groups"
    public static func orgGroup(_ name: String) -> String { "\(orgGroups)/\(name)" }
    static func orgGroupMember(_ name: String, _ email: String) -> String { "\(orgGroups)/\(name)/members/\(email)" }
}

/// A user of the caller's organisation, as `GET /v1/org/users` lists them: whom
/// `vfs-push --to` can reach (a disabled user is not listed).
public struct OrgUser: Codable, Sendable, Equatable {
    public var email: String
    public init(email: String) { self.email = email }
}

extension RelayPaths {
    /// `GET`: the users of the caller's organisation, by address (`prefix`, `limit`).
    public static let orgUsers = "/v1/org/users"
    /// The most `GET /v1/org/users` lists at once (and its default `limit`).
    public static let orgUsersLimit = 1000
}
