#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `POST /v1/invites`: a one-time enrolment code for another device of the caller's user.
public struct Invite: Codable, Sendable, Equatable {
    public var code: String
    public var expires: Date
    public init(code: String, expires: Date) {
        self.code = code
        self.expires = expires
    }
}

extension RelayPaths {
    public static let invites = "/v1/invites"
}
