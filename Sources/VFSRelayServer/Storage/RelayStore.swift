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
    /// The SHA-256 of the whole content, set when the last byte arrived.
    public var sha256: String?
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
    public init() {}
}

/// A failure the routes turn into a status; the store never knows about HTTP.
/// A cap of `UsageLimits` reached.
public enum LimitRefusal: Error, Equatable {
    /// The user (`organisation` false) or the organisation has `limit` live devices.
    case devices(limit: Int, organisation: Bool)
    case openInvites(limit: Int)
}

public enum StoreError: Error, Equatable {
    case notFound(String)
    case conflict(String)
    case invalid(String)
    case preconditionFailed(String)
}

/// Everything the relay keeps, behind one protocol so that another database (PostgreSQL,
/// for several instances) can follow without touching a route. Every method that
/// takes a user answers only about that user's rows: anything else is `notFound`.
/// Methods that drop the last reference to a blob delete its row and return its id;
/// the caller then removes the file (a crash in between leaves an orphan file that
/// `collectGarbage` removes, never a row without a file).
public protocol RelayStore: Sendable {
    // Operator
    func createOrganisation(name: String, now: Date) async throws
    func createUser(email: String, organisation: String, admin: Bool, now: Date) async throws
    /// `createdBy`: the device that asked (POST /v1/invites); nil for the operator. A
    /// device's unused codes are deleted when it is invalidated.
    func createEnrolmentCode(email: String, codeHash: String, expires: Date, now: Date, createdBy: String?) async throws
    /// A code a device asked for, refused (`LimitRefusal.openInvites`) when its user's
    /// devices already hold `openLimit` unused, unexpired ones.
    func createEnrolmentCode(email: String, codeHash: String, expires: Date, now: Date, createdBy: String, openLimit: Int) async throws
    func users() async throws -> [UserSummary]
    func organisations() async throws -> [OrganisationSummary]
    /// Changes a user's role and/or standing (nil: unchanged). Disabling ends their admin
    /// web sessions; their devices are logged out by the caller, one `invalidateDevice` each.
    func setUser(email: String, admin: Bool?, disabled: Bool?, now: Date) async throws
    func allDevices() async throws -> [DeviceSummary]
    func stats() async throws -> RelayStats
    func backup(to path: String) async throws
    /// One line of the audit log, for changes the other methods do not record themselves
    /// (uploads, operator alerts).
    func audit(org: Int64?, actor: String, action: String, subject: String, detail: String, now: Date) async throws
    /// Removes the user and everything of theirs (devices, cloud, groups, uploads, codes);
    /// live devices get the logout event and their tokens stay answered "revoked".
    func removeUser(email: String, now: Date) async throws -> RemovedUser
    /// Device ids of every live device of the user with this email.
    func deviceIDs(ofUser email: String) async throws -> [String]

    // Enrolment and authentication
    /// Uses the code (single use) and creates the device; nil when the code is unknown, used or expired.
    /// Refused (`LimitRefusal.devices`, the code left unused) when the user or the
    /// organisation already has as many live devices as `limits` allows.
    func enroll(codeHash: String, deviceID: String, tokenHash: String, name: String, platform: String,
                recipient: String, now: Date, limits: UsageLimits) async throws -> Device?
    func authenticate(tokenHash: String, now: Date) async throws -> DeviceIdentity?
    /// Whether `tokenHash` is the token of a device that has been logged out.
    func isRevoked(tokenHash: String) async throws -> Bool
    /// The logged-out device whose token this is (nil for any other token): it may still
    /// read its user's device chain, to learn whether its user removed it.
    func revokedDevice(tokenHash: String) async throws -> DeviceIdentity?

    // Devices and groups
    func devices(user: Int64) async throws -> [Device]
    func device(id: String, user: Int64) async throws -> Device
    func renameDevice(id: String, user: Int64, name: String, now: Date) async throws -> Device
    /// Logs the device out: its token stops working, a `logout` event is stored for it,
    /// and transfers waiting for it expire. Returns the blob ids to delete.
    func invalidateDevice(id: String, user: Int64, now: Date) async throws -> [String]
    func groups(user: Int64) async throws -> [DeviceGroup]
    func group(name: String, user: Int64) async throws -> DeviceGroup
    func createGroup(name: String, members: [String], user: Int64, now: Date) async throws -> DeviceGroup
    func addGroupMember(group: String, device: String, user: Int64, now: Date) async throws -> DeviceGroup
    func removeGroupMember(group: String, device: String, user: Int64, now: Date) async throws -> DeviceGroup
    func deleteGroup(name: String, user: Int64, now: Date) async throws

    // Device chains (issue 24): stored in order, never trusted by the relay
    /// The user's chain statements (base64), in order; empty without a chain.
    func chain(user: Int64) async throws -> [String]
    /// The chain of the user with this email in organisation `org`; `notFound` for another organisation's.
    func chain(email: String, org: Int64) async throws -> [String]
    /// Appends statement `sequence` if it is the chain's length and `previous` (hex) is
    /// the stored head's hash (64 zeros for the root); `conflict` otherwise. Returns the chain.
    func appendChainStatement(user: Int64, sequence: Int64, previous: String, statement: String, hash: String,
                              device: String, now: Date) async throws -> [String]
    /// Deletes the user's statements from number `keeping` on, if the one before has hash
    /// `head` (hex; nil when `keeping` is 0): a tail that does not verify. `conflict` when
    /// the chain changed. Returns how many were deleted.
    func cutChain(user: Int64, keeping: Int64, head: String?, actor: String, now: Date) async throws -> Int
    /// Publishes the device's signing key (base64) once; `conflict` if it has another.
    func setSigningKey(device: String, user: Int64, key: String, now: Date) async throws -> Device

    // Uploads (tus)
    /// Bytes the user holds: uploads (their full length, or their offset while it is deferred), live outgoing transfers and cloud files.
    func usage(user: Int64) async throws -> Int64
    /// Adds an upload unless it would take its user past `limits` (`UploadRefusal`),
    /// checked in the same transaction: creations at once cannot together pass them.
    /// Before a PATCH of an upload whose length is deferred: how far it may go (up to
    /// `cap`, and the quota with every other holding of the user counted, reservations of
    /// PATCHes under way included), reserved in the usage until `releaseReservation`.
    func reserveDeferred(id: String, offset: Int64, cap: Int64, quota: Int64) async throws -> Int64
    func releaseReservation(id: String) async throws
    func createUpload(_ upload: UploadRecord, limits: UploadLimits) async throws
    func upload(id: String, user: Int64) async throws -> UploadRecord
    func setUploadOffset(id: String, offset: Int64, sha256: String?) async throws
    /// Moves an upload's expiry (it got bytes: the idle expiry starts again).
    func touchUpload(id: String, expires: Date) async throws
    /// Sets the length of an upload created with a deferred length, once: `conflict` if
    /// it already has one, `invalid` if `length` is below the upload's offset,
    /// `UploadRefusal.quota` if it takes the user past `quota` (checked in the same transaction).
    func setUploadLength(id: String, length: Int64, quota: Int64) async throws
    func deleteUpload(id: String, user: Int64) async throws
    /// Uploads past their expiry that never became a blob, except `sparing` (uploads
    /// being written now); their rows are deleted.
    func removeExpiredUploads(now: Date, sparing: Set<String>) async throws -> [String]
    /// Uploads this process is writing now (their writer lock held here).
    func uploadsBeingWritten() -> Set<String>
    /// An upload's state as an S3 multipart upload (`S3BlobStore`); `notFound` without the upload.
    func multipartState(upload: String) async throws -> MultipartState
    /// Records the id of the multipart upload that holds the upload's parts.
    func startMultipart(upload: String, multipartID: String) async throws
    /// Records a part uploaded and, in the same transaction, moves the upload's offset to
    /// its end: a part is counted exactly when the offset says its bytes are kept.
    func recordUploadPart(upload: String, part: UploadPart) async throws
    /// Records that the upload's object is whole (the multipart upload completed).
    func setAssembled(upload: String) async throws

    // Transfers
    /// Turns a finished upload into a blob with one outbox row per target device.
    /// `blobID` names the file the caller has already moved into the blob store.
    /// `users`: devices of other users of the sender's organisation (each a live device of
    /// that user; a disabled user, or one of another organisation, is `notFound`).
    func createTransfer(id: String, upload: String, blobID: String, sender: DeviceIdentity, devices: [String],
                        groups: [String], users: [UserTarget], expires: Date, now: Date) async throws -> OutboxEntry
    func inbox(device: String) async throws -> [InboxEntry]

    // Organisations' groups of people (issue 28)
    func organisationID(name: String) async throws -> Int64
    /// The addresses of the organisation's users that are not disabled, sorted.
    func orgUsers(org: Int64) async throws -> [String]
    /// Every group of the organisation, or with `member` only those the user is in.
    func orgGroups(org: Int64, member: Int64?) async throws -> [OrgGroup]
    func orgGroup(org: Int64, name: String) async throws -> OrgGroup
    func createOrgGroup(org: Int64, name: String, actor: String, now: Date) async throws -> OrgGroup
    /// `email` must be a user of the organisation (`notFound` otherwise).
    func changeOrgGroupMember(org: Int64, group: String, email: String, add: Bool, actor: String, now: Date) async throws -> OrgGroup
    func outbox(device: String) async throws -> [OutboxEntry]
    /// The blob of a transfer waiting for this device, or its upload while that still
    /// runs; marks it initiated.
    func openTransfer(id: String, device: String, now: Date) async throws -> TransferContent
    /// A transfer of an upload that has not ended (status `uploading` for its targets,
    /// told at once); `conflict` if the upload is finished (make it a transfer the
    /// ordinary way) or already is one. Checked under the upload row's lock.
    func createStreamingTransfer(id: String, upload: String, sender: DeviceIdentity, devices: [String],
                                 groups: [String], users: [UserTarget], expires: Date, now: Date) async throws -> OutboxEntry
    /// The streaming transfer made of this upload, if there is one.
    func streamingTransfer(upload: String) async throws -> String?
    /// The upload ended: it becomes the blob `blobID` (which the caller already put in
    /// the blob store) of its streaming transfer, one reference per copy still waiting.
    func completeStreamingTransfer(upload: String, blobID: String, now: Date) async throws -> StreamingCompletion
    /// Where a streaming read of a transfer by this device stands.
    func streamState(transfer id: String, device: String) async throws -> StreamState
    /// `delivered` or `declined`; returns the blob ids to delete.
    func finishTransfer(id: String, device: String, status: TransferStatus, now: Date) async throws -> [String]
    func expireTransfers(now: Date) async throws -> [String]
    /// The sender withdraws a transfer: its waiting copies are cancelled; returns the blob
    /// ids to delete and, for a transfer still uploading, its upload, removed with it (its
    /// file to delete).
    func cancelTransfer(id: String, sender: String, now: Date) async throws -> (released: [String], upload: String?)

    // Events
    /// Stores one event for each device; returns the devices it was stored for.
    @discardableResult
    func appendEvent(kind: RelayEventKind, data: String, devices: [String], now: Date) async throws -> [String]
    func appendEventToOrganisation(kind: RelayEventKind, data: String, org: Int64, now: Date) async throws -> [String]
    func events(device: String, after: Int64, limit: Int) async throws -> [StoredEvent]
    func lastEventID() async throws -> Int64
    /// Devices with events after `id`.
    func devicesWithEvents(after id: Int64) async throws -> [String]
    func isDeviceLive(_ id: String) async throws -> Bool

    // Policy items
    func items(org: Int64) async throws -> [VersionedItem]
    /// Goes up with every change to the organisation's items (in the change's transaction).
    func itemsRevision(org: Int64) async throws -> Int64
    func item(id: String, org: Int64) async throws -> VersionedItem
    func createItem(_ draft: ItemDraft, id: String, actor: DeviceIdentity, now: Date) async throws -> VersionedItem
    func updateItem(id: String, _ draft: ItemDraft, ifVersion: Int64?, actor: DeviceIdentity, now: Date) async throws -> VersionedItem
    func deleteItem(id: String, ifVersion: Int64?, actor: DeviceIdentity, now: Date) async throws
    /// The organisation's offline grace for its policy in seconds; nil is the relay's default.
    func policyGrace(org: Int64) async throws -> Int64?
    /// Sets (nil: back to the default) the offline grace, audited as `policy.grace`, and
    /// bumps the items revision in the same transaction (the grace is served with the list).
    func setPolicyGrace(org: Int64, seconds: Int64?, actor: DeviceIdentity, now: Date) async throws

    // The admin web page (sign-in codes and sessions are stored as SHA-256 hashes)
    /// A one-time sign-in code for an administrator; `invalid` for a user who is not one.
    func createLoginCode(email: String, codeHash: String, expires: Date, now: Date) async throws
    /// Uses the code (single use) and opens a session for its user, if the code is live and
    /// the user is still an administrator; nil otherwise.
    func signIn(codeHash: String, sessionHash: String, expires: Date, now: Date) async throws -> AdminSession?
    /// The live session with this hash, while its user is still an administrator.
    func adminSession(hash: String, now: Date) async throws -> AdminSession?
    func signOut(sessionHash: String, now: Date) async throws
    /// Every user of the organisation with their devices and groups.
    func organisationMembers(org: Int64) async throws -> [OrganisationMember]
    /// Transfers sent by the organisation's devices with a copy still waiting.
    func organisationTransfers(org: Int64) async throws -> [TransferOverview]
    /// The organisation's audit lines, newest first: those recorded with the organisation
    /// and those of its users' devices and groups; `matching` filters on any field.
    func auditLog(org: Int64, matching: String?, limit: Int) async throws -> [AuditEntry]

    // Cloud tree (paths are lists of names from the root)
    func cloudList(path: [String], user: Int64) async throws -> (CloudEntry, [CloudEntry])
    /// A new entry (here and in the puts, unless it replaces a file) is refused with
    /// `CloudRefusal.tooManyEntries` when the user holds `maxEntries` files and folders.
    func cloudMakeFolder(path: [String], id: String, user: Int64, maxEntries: Int, now: Date) async throws -> CloudEntry
    /// Puts a finished upload at `path` (replacing a file there); returns the entry and the blob ids to delete.
    func cloudPut(path: [String], id: String, upload: String, blobID: String, user: Int64, maxEntries: Int,
                  now: Date) async throws -> (CloudEntry, [String])
    func cloudMove(from: [String], to: [String], user: Int64, now: Date) async throws -> CloudEntry
    func cloudDelete(path: [String], user: Int64, now: Date) async throws -> [String]
    func cloudFile(path: [String], user: Int64) async throws -> BlobRef
    /// Puts the blob of `transfer` (sent by device `sender`, still held for a target) at
    /// `path` as one more reference to it; returns the entry and the blob ids to delete.
    func cloudPutTransfer(path: [String], id: String, transfer: String, sender: String, user: Int64, maxEntries: Int,
                          now: Date) async throws -> (CloudEntry, [String])
    /// Points the file at `path`, whose blob must still have SHA-256 `expected`
    /// (else `preconditionFailed`), to the new blob `blob` (one reference, its file
    /// already in the blob store); returns the entry and the blob ids to delete.
    func cloudReplaceBlob(path: [String], expected: String, with blob: BlobRef, user: Int64,
                          now: Date) async throws -> (CloudEntry, [String])

    // Maintenance
    /// Recounts every blob's references from the live rows, deletes blobs nobody uses
    /// and rows whose file is gone. `files` is the blob files on disk; returns the ids
    /// of blobs to delete and of files no row names.
    /// `fileExists` checks one blob file now (a blob made while gc runs is not an orphan).
    func collectGarbage(files: Set<String>, fileExists: @escaping @Sendable (String) -> Bool,
                        eventsBefore: Date, now: Date) async throws -> (report: GarbageReport, delete: [String])
    /// The ids of every upload row (files of other uploads are orphans).
    func uploadIDs() async throws -> Set<String>
    /// Every blob row with its reference count and the count of live rows using it.
    func referenceAudit() async throws -> [(id: String, refs: Int64, live: Int64)]
    /// Every blob row (id, size, SHA-256), by id.
    func blobRows() async throws -> [BlobRef]

    // Shared by every instance on one database
    /// Seconds this address must still wait before it may try an enrolment code, or nil.
    func enrolmentWait(address: String, now: Date) async throws -> Int?
    /// One more wrong code from `address`; at `limit` in a row it waits `lockout` seconds.
    func enrolmentFailed(address: String, limit: Int, lockout: TimeInterval, now: Date) async throws
    /// A right code: the address starts again from zero.
    func enrolmentSucceeded(address: String) async throws
    /// Runs `body` unless another process holds the maintenance lock (then nil): one
    /// sweep at a time over the whole database.
    func withMaintenanceLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T?
    /// Runs `body` as the one writer of upload `id` (a tus PATCH, or the upload becoming a
    /// blob), unless another request holds the upload now, through this process or any other
    /// on the same database: then nil. The lock goes with `body`'s end, however it ends.
    func withUploadWriteLock<T: Sendable>(_ id: String, _ body: () async throws -> T) async throws -> T?
    /// Wake-ups for the devices of new events, sent after the events' commit.
    var eventNotifications: any EventNotifications { get }
}

extension RelayStore {
    /// Uploads past their expiry, every one.
    public func removeExpiredUploads(now: Date) async throws -> [String] {
        try await removeExpiredUploads(now: now, sparing: [])
    }

    /// A transfer to the sender's own devices and groups only.
    public func createTransfer(id: String, upload: String, blobID: String, sender: DeviceIdentity, devices: [String],
                               groups: [String], expires: Date, now: Date) async throws -> OutboxEntry {
        try await createTransfer(id: id, upload: upload, blobID: blobID, sender: sender, devices: devices, groups: groups,
                                 users: [], expires: expires, now: now)
    }

    /// Enrolment without caps (the operator's tools and tests).
    public func enroll(codeHash: String, deviceID: String, tokenHash: String, name: String, platform: String,
                       recipient: String, now: Date) async throws -> Device? {
        var unlimited = UsageLimits()
        (unlimited.devices, unlimited.orgDevices) = (.max, .max)
        return try await enroll(codeHash: codeHash, deviceID: deviceID, tokenHash: tokenHash, name: name, platform: platform,
                                recipient: recipient, now: now, limits: unlimited)
    }

    /// An operator's enrolment code (`vfs-relay user add`, `invite`): no device made it.
    public func createEnrolmentCode(email: String, codeHash: String, expires: Date, now: Date) async throws {
        try await createEnrolmentCode(email: email, codeHash: codeHash, expires: expires, now: now, createdBy: nil)
    }
}
