#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `POST /v1/admin/login-codes`: an administrator's device asks for a one-time code that
/// signs in to the relay's admin web page at `path` (under the relay's URL).
public struct AdminLoginCode: Codable, Sendable, Equatable {
    public var code: String
    public var path: String
    public var expires: Date
    public init(code: String, path: String, expires: Date) {
        self.code = code
        self.path = path
        self.expires = expires
    }
}

extension RelayPaths {
    public static let adminLoginCodes = "/v1/admin/login-codes"
    /// Where the admin web page lives on a relay.
    public static let adminPage = "/admin/"
}
