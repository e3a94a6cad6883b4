import Foundation
import VFSPolicyModel
import VFSRelayProtocol

/// Who is calling: the device a bearer token belongs to.
public struct DeviceIdentity: Sendable, Equatable {
    var deviceID: String
    public var userID: Int64
    var orgID: Int64
    public var email: String
    public var isAdmin: Bool
    /// Enrolled with --send-only (issue 48): its token is held to `SendOnlyScope`. Read with
    /// the token's row (`authenticate`), so the scope costs no query of its own.
    var sendOnly = false
}

/// A user as the admin commands list them.
public struct UserSummary: Codable, Sendable, Equatable {
    public var id: Int64
    public var email: String
    public var org: String
    public var role: String
    public var devices: Int
    public var created: Date
    /// When an operator disabled the user; nil for a user in good standing.
    public var disabled: Date?
}

/// An organisation as `vfs-relay org list` shows it.
public struct OrganisationSummary: Codable, Sendable, Equatable {
    public var name: String
    public var users: Int
    public var created: Date
}

/// A device as the admin commands list them.
public struct DeviceSummary: Codable, Sendable, Equatable {
    public var user: String
    public var device: Device
}

/// Counts for `vfs-relay stats`.
public struct RelayStats: Codable, Sendable, Equatable {
    public var organisations: Int
    public var users: Int
    public var devices: Int
    public var activeDevices: Int
    public var groups: Int
    public var uploads: Int
    public var blobs: Int
    public var blobBytes: Int64
    public var liveTransfers: Int
    public var cloudFiles: Int
    public var items: Int
    public var events: Int
}

/// A tus upload in progress (or finished, waiting to be used).
public struct UploadRecord: Sendable, Equatable {
    public var id: String
    public var userID: Int64
    var deviceID: String
    /// nil while the length is deferred (tus creation-defer-length): a PATCH sets it once.
    public var length: Int64?
    public var offset: Int64
    var metadata: String
    public var created: Date
    public var expires: Date
    /// The SHA-256 of the whole content, set when the last byte arrived; "" then for an
    /// upload whose digest is deferred (`defersDigest`).
    public var sha256: String?

    /// Created with `DeferredDigest`'s metadata: not hashed as it arrives, its digest
    /// worked out only when a client asks for it.
    var defersDigest: Bool { DeferredDigest.isDeferred(metadata: metadata) }
}

/// One part of an upload kept as an S3 multipart upload.
public struct UploadPart: Sendable, Equatable {
    public var number: Int
    public var etag: String
    /// Where its bytes begin in the upload.
    public var start: Int64
    public var size: Int64
    public var end: Int64 { start + size }

    public init(number: Int, etag: String, start: Int64, size: Int64) {
        self.number = number
        self.etag = etag
        self.start = start
        self.size = size
    }
}

/// An upload as an S3 multipart upload: the bytes below `offset` are the parts, in
/// order from the start, then a tail (`offset` minus the parts' end) kept in an object
/// of its own.
public struct MultipartState: Sendable, Equatable {
    public var offset: Int64
    public var length: Int64?
    /// nil until the first part is cut.
    var multipartID: String?
    public var parts: [UploadPart]
    /// The upload's object is whole (completed, or put at once when it had no part).
    var assembled: Bool
    var partsEnd: Int64 { parts.last?.end ?? 0 }
}

/// What the server needs to serve a blob.
public struct BlobRef: Sendable, Equatable {
    public var id: String
    public var size: Int64
    public var sha256: String
}

/// What the content of a transfer is read from.
public enum TransferContent: Sendable, Equatable {
    case blob(BlobRef)
    /// Its upload still runs: the content follows it.
    case uploading(upload: String)
}

/// A streaming transfer's upload ended.
public enum StreamingCompletion: Sendable, Equatable {
    /// No transfer was made of the upload (it stays an upload).
    case noTransfer
    /// It is the transfer's blob now.
    case blob(BlobRef)
    /// No copy waits any more: the upload was consumed and no blob made (delete its file).
    case unwanted
}

/// Where a streaming read stands.
public enum StreamState: Sendable, Equatable {
    /// The relay holds the first `offset` bytes (synced) of the upload, which goes on.
    case uploading(offset: Int64)
    /// The upload ended and is this blob.
    case finished(BlobRef)
    /// The copy is no longer waiting (cancelled, declined, expired) or the upload was
    /// abandoned before it ended.
    case gone
}

/// A policy item and its version (the number behind its ETag).
public struct VersionedItem: Sendable, Equatable {
    public var item: PolicyItem
    public var version: Int64
}

/// An event as stored, ready to be sent.
public struct StoredEvent: Sendable, Equatable {
    public var id: Int64
    public var kind: RelayEventKind
    public var data: String
}

/// What `gc` found and did.
public struct GarbageReport: Codable, Sendable, Equatable {
    public var expiredUploads = 0
    public var releasedBlobs = 0
    public var orphanFiles = 0
    public var orphanRows = 0
    public var fixedReferenceCounts = 0
    public var prunedEvents = 0
    /// Earlier cloud versions dropped by the organisations' policies (their blobs released
    /// with them when nothing else holds them are in `releasedBlobs`).
    public var droppedVersions = 0
    public init() {}
}

/// A failure the routes turn into a status; the store never knows about HTTP.
/// A cap of `UsageLimits` reached.
public enum LimitRefusal: Error, Equatable {
    /// The user (`organisation` false) or the organisation has `limit` live devices.
    case devices(limit: Int, organisation: Bool)
    case openInvites(limit: Int)
}

/// A device's cancel of a transfer its organisation retains until `until` (issue 48,
/// item 4): answered 403 `retained`.
public enum RetentionRefusal: Error, Equatable {
    case retained(until: Date)
}

public enum StoreError: Error, Equatable {
    case notFound(String)
    case conflict(String)
    case invalid(String)
    case preconditionFailed(String)
}
