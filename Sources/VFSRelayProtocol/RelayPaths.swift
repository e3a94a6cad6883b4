/// The relay's routes, so clients and scripts agree with the server on every path.
public enum RelayPaths {
    public static let health = "/v1/health"
    public static let enroll = "/v1/enroll"
    public static let devices = "/v1/devices"
    public static let groups = "/v1/groups"
    public static let uploads = "/v1/uploads"
    public static let transfers = "/v1/transfers"
    public static let inbox = "/v1/inbox"
    public static let outbox = "/v1/outbox"
    public static let cloud = "/v1/cloud"
    public static let cloudHeader = "/v1/cloud-header"
    public static let cloudUsage = "/v1/cloud-usage"
    /// A cloud path's versions (`/v1/cloud-log/{path}`), one version's content
    /// (`/v1/cloud-version/{id}`), the removed files, a restore (`/v1/cloud-restore/{path}`).
    public static let cloudLog = "/v1/cloud-log"
    public static let cloudVersion = "/v1/cloud-version"
    public static let cloudTrash = "/v1/cloud-trash"
    public static let cloudRestore = "/v1/cloud-restore"
    /// Every earlier version whose content is kept (`GET`), and the age header of one
    /// (`PUT /v1/cloud-version-header/{id}`): a rekey's reach into the history (issue 50).
    public static let cloudVersions = "/v1/cloud-versions"
    public static let cloudVersionHeader = "/v1/cloud-version-header"
    public static let items = "/v1/items"
    /// The file-vault seed's paths, kept as aliases of `/v1/items`.
    public static let legacyItems = "/items"
    public static let events = "/v1/events"
    /// The organisation's policy settings (the offline grace).
    public static let policySettings = "/v1/policy/settings"

    public static func device(_ id: String) -> String { "\(devices)/\(id)" }
    public static func group(_ name: String) -> String { "\(groups)/\(name)" }
    public static func groupMember(_ name: String, _ device: String) -> String { "\(groups)/\(name)/members/\(device)" }
    public static func upload(_ id: String) -> String { "\(uploads)/\(id)" }
    /// `DELETE`: the sender cancels the transfer.
    public static func transfer(_ id: String) -> String { "\(transfers)/\(id)" }
    public static func transferContent(_ id: String) -> String { "\(transfers)/\(id)/content" }
    public static func transferAck(_ id: String) -> String { "\(transfers)/\(id)/ack" }
    public static func transferDecline(_ id: String) -> String { "\(transfers)/\(id)/decline" }
    public static func item(_ id: String) -> String { "\(items)/\(id)" }
    /// `path` is a folder or file path such as `/photos/2026`; `/` or empty is the root.
    public static func cloud(_ path: String) -> String {
        let trimmed = path.drop { $0 == "/" }
        return trimmed.isEmpty ? cloud : "\(cloud)/\(trimmed)"
    }
    public static func cloudHeader(_ path: String) -> String { "\(cloudHeader)/\(path.drop { $0 == "/" })" }
}

/// The tus 1.0 headers and values the relay speaks.
public enum TusProtocol {
    public static let version = "1.0.0"
    public static let extensions = "creation,creation-defer-length,termination,expiration,checksum"
    public static let offsetContentType = "application/offset+octet-stream"
}

/// The relay's SHA-256 of an upload is worked out only when a client needs it (issue 46).
///
/// An upload created with `Upload-Metadata: vfs-sha256 ZGVmZXJyZWQ=` (the key `vfs-sha256`,
/// the value "deferred" in base64) is not hashed as it arrives: its transfers are listed
/// with `"sha256": ""` until a client asks for the digest. A listing of the inbox sent with
/// `VFS-SHA256: optional` leaves them so; one without it (every client before issue 46) has
/// the relay work out the digest of each finished transfer it lists that has none (reading
/// the blob once) and keep it.
public enum DeferredDigest {
    /// The `Upload-Metadata` pair of an upload whose digest is deferred.
    public static let metadataKey = "vfs-sha256"
    public static let metadataValue = "ZGVmZXJyZWQ="
    public static var metadata: String { "\(metadataKey) \(metadataValue)" }
    /// The request header of a listing whose client does without the relay's digest.
    public static let header = "VFS-SHA256"
    public static let optional = "optional"

    /// Whether tus `Upload-Metadata` (comma-separated `key base64value` pairs) defers the digest.
    public static func isDeferred(metadata: String) -> Bool {
        metadata.split(separator: ",").contains { pair in
            let parts = pair.split(separator: " ", omittingEmptySubsequences: true)
            return parts.count == 2 && parts[0] == metadataKey && parts[1] == metadataValue
        }
    }
}
