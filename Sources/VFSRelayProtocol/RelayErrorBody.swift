/// The machine-readable half of an error answer.
public enum RelayErrorCode: String, Codable, Sendable, CaseIterable {
    case badRequest = "bad_request"
    case unauthorized
    /// The token was valid, but the device has been logged out (revoked): its holder
    /// should erase what the device keeps, as on a `logout` event it missed.
    case revoked
    case forbidden
    case notFound = "not_found"
    case methodNotAllowed = "method_not_allowed"
    case conflict
    /// A cloud put named a `base` version that is no longer the file's head, or asked to
    /// create a file that another device made meanwhile (409): keep this one elsewhere.
    case versionConflict = "version_conflict"
    case preconditionFailed = "precondition_failed"
    case tooLarge = "too_large"
    case quotaExceeded = "quota_exceeded"
    case unsupportedMediaType = "unsupported_media_type"
    case rangeNotSatisfiable = "range_not_satisfiable"
    case tooManyRequests = "too_many_requests"
    /// The relay's disk is at its reserve (507): try again later; uploads resume.
    case insufficientStorage = "insufficient_storage"
    /// The user holds as many cloud files and folders as the relay allows (507): delete
    /// some first; waiting does not help.
    case tooManyEntries = "too_many_entries"
    /// The relay's blob store (an S3 bucket) does not answer now, or throttles it (503,
    /// with Retry-After): try again; uploads resume.
    case unavailable
    /// tus checksum extension (460): the PATCH body's digest is not its `Upload-Checksum`;
    /// its bytes were discarded, and the upload stays at its offset.
    case checksumMismatch = "checksum_mismatch"
    /// The client closed the connection before its request ended (logged 499; no client
    /// reads it).
    case clientClosed = "client_closed"
    /// A share link that was revoked, expired or used all its downloads (410).
    case gone
    /// A transfer the sender's organisation retains (`vfs-relay org set --min-retention`,
    /// 403): no device may cancel it before it is delivered or the retention ends; the
    /// relay's operator may remove it (`vfs-relay transfers rm`).
    case retained
    /// A share link or file request the organisation's link settings refuse (403: links
    /// are off, or the expiry, the downloads or the size is past the operator's limit;
    /// `vfs-relay org set --links`, `GET /v1/link-policy`).
    case linkPolicy = "link_policy"
    case internalError = "internal"
}

/// Every error answer's body: `{"error": "not_found", "message": "no such device"}`.
public struct RelayErrorBody: Codable, Sendable, Equatable {
    public var error: String
    public var message: String
    public init(error: String, message: String) {
        self.error = error
        self.message = message
    }
}
