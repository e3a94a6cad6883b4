import Foundation
import VFSPolicyModel
import VFSRelayProtocol

// The relay's storage as role repositories (docs/relay.md, "Repositories"): each aggregate's
// methods cut by what their callers do (reading a user's devices, logging one out, …), as
// tusd composes its store of small capabilities. Each controller, middleware and service
// is given only the roles it calls, every method of each (RepositoryShapeTests); the one
// store over the SQL seam (`SQLRelayStore`: SQLite and PostgreSQL) conforms to all of
// them. Every method that takes a user answers only about that user's rows: anything else
// is `notFound`. Methods that drop the last reference to a blob delete its row and return
// its id; the caller then removes the file (a crash in between leaves an orphan file that
// `collectGarbage` removes, never a row without a file). No protocol here has more than 15
// requirements (RepositoryShapeTests).

/// The operator's records, as `vfs-relay`'s admin commands keep them: organisations, users, their
/// enrolment codes, every device, counts and a backup.
/// Implemented in Stores/DeviceStore.swift, OrgGroupStore.swift and EventStore.swift (the backup by each engine's store).
public protocol OperatorRepository: Sendable {
    func createOrganisation(name: String, now: Date) async throws
    func createUser(email: String, organisation: String, admin: Bool, now: Date) async throws
    /// `createdBy`: the device that asked (POST /v1/invites); nil for the operator. A
    /// device's unused codes are deleted when it is invalidated.
    func createEnrolmentCode(email: String, codeHash: String, expires: Date, now: Date, createdBy: String?) async throws
    func users() async throws -> [UserSummary]
    func organisations() async throws -> [OrganisationSummary]
    /// Changes a user's role and/or standing (nil: unchanged). Disabling ends their admin
    /// web sessions; their devices are logged out by the caller, one `invalidateDevice` each.
    func setUser(email: String, admin: Bool?, disabled: Bool?, now: Date) async throws
    func allDevices() async throws -> [DeviceSummary]
    /// Device ids of every live device of the user with this email.
    func deviceIDs(ofUser email: String) async throws -> [String]
    /// Whether the device exists and is not logged out.
    func isDeviceLive(_ id: String) async throws -> Bool
    func organisationID(name: String) async throws -> Int64
    func stats() async throws -> RelayStats
    func backup(to path: String) async throws
}

/// A user's removal with everything of theirs (`vfs-relay user remove`).
/// Implemented in Stores/UserRemovalStore.swift.
public protocol UserRemovalRepository: Sendable {
    /// Removes the user and everything of theirs (devices, cloud, groups, uploads, codes);
    /// live devices get the logout event and their tokens stay answered "revoked".
    func removeUser(email: String, now: Date) async throws -> RemovedUser
}

/// The audit log's writer, for changes the other repositories do not record themselves.
/// Implemented in Stores/DeviceStore.swift.
public protocol AuditRepository: Sendable {
    /// One line of the audit log, for changes the other methods do not record themselves
    /// (uploads, operator alerts).
    func audit(org: Int64?, actor: String, action: String, subject: String, detail: String, now: Date) async throws
}

/// A device's enrolment with a one-time code (POST /v1/enroll).
/// Implemented in Stores/DeviceStore.swift.
public protocol EnrolmentRepository: Sendable {
    /// Uses the code (single use) and creates the device; nil when the code is unknown, used or expired.
    /// Refused (`LimitRefusal.devices`, the code left unused) when the user or the
    /// organisation already has as many live devices as `limits` allows.
    func enroll(codeHash: String, deviceID: String, tokenHash: String, name: String, platform: String,
                recipient: String, now: Date, limits: UsageLimits) async throws -> Device?
}

/// Enrolment codes a device asks for (POST /v1/invites), capped per user.
/// Implemented in Stores/DeviceStore.swift.
public protocol InviteRepository: Sendable {
    /// A code a device asked for, refused (`LimitRefusal.openInvites`) when its user's
    /// devices already hold `openLimit` unused, unexpired ones.
    func createEnrolmentCode(email: String, codeHash: String, expires: Date, now: Date, createdBy: String, openLimit: Int) async throws
}

/// Bearer tokens: whose device a token is, and whether it was logged out (AuthMiddleware).
/// Implemented in Stores/DeviceStore.swift.
public protocol TokenRepository: Sendable {
    func authenticate(tokenHash: String, now: Date) async throws -> DeviceIdentity?
    /// Whether `tokenHash` is the token of a device that has been logged out.
    func isRevoked(tokenHash: String) async throws -> Bool
    /// The logged-out device whose token this is (nil for any other token): it may still
    /// read its user's device chain, to learn whether its user removed it.
    func revokedDevice(tokenHash: String) async throws -> DeviceIdentity?
}

/// A user's own devices, listed.
/// Implemented in Stores/DeviceStore.swift (and so are the three below).
public protocol DeviceListRepository: Sendable {
    func devices(user: Int64) async throws -> [Device]
}

/// One device of the user (`notFound` for another user's).
public protocol DeviceLookupRepository: Sendable {
    func device(id: String, user: Int64) async throws -> Device
}

/// A device's new name.
public protocol DeviceRenameRepository: Sendable {
    func renameDevice(id: String, user: Int64, name: String, now: Date) async throws -> Device
}

/// A device logged out, by its user or an administrator.
public protocol DeviceLogoutRepository: Sendable {
    /// Logs the device out: its token stops working, a `logout` event is stored for it,
    /// and transfers waiting for it expire. Returns the blob ids to delete.
    func invalidateDevice(id: String, user: Int64, now: Date) async throws -> [String]
}

/// A user's own devices, every role (DeviceController's).
public typealias DeviceRepository = DeviceListRepository & DeviceLookupRepository & DeviceRenameRepository & DeviceLogoutRepository

/// A user's own device chain (issue 24), as the relay serves it and verifies against it.
/// Implemented in Stores/ChainStore.swift (and so are the two below).
public protocol ChainReadRepository: Sendable {
    /// The user's chain from the last checkpoint at or before statement `pinned` that the
    /// relay verified when it was appended (whole without one, or with `pinned` nil).
    func chain(user: Int64, pinned: Int64?) async throws -> [String]
}

/// A user's whole chain, as the operator's commands read it (`vfs-relay devices`, `user`).
public protocol OperatorChainRepository: Sendable {
    /// The user's chain statements (base64), in order, root to head; empty without a chain.
    func chain(user: Int64) async throws -> [String]
}

/// Device chains: stored in order; the relay verifies what is appended (ChainController)
/// and the clients verify all they are served. A colleague's chain, and a device's signing key.
public protocol ChainRepository: Sendable {
    /// The bytes of the user's whole chain (its statements decoded), root to head.
    func chainBytes(user: Int64) async throws -> Int
    /// The chain of the user with this email in organisation `org`, as `chain(user:pinned:)`;
    /// `notFound` for another organisation's.
    func chain(email: String, org: Int64, pinned: Int64?) async throws -> [String]
    /// Appends statement `sequence` if it is the chain's length and `previous` (hex) is
    /// the stored head's hash (64 zeros for the root); `conflict` otherwise. `checkpoint`:
    /// it is a checkpoint the caller verified after the chain (chains are served from
    /// those). Returns the chain from the last checkpoint before it.
    func appendChainStatement(user: Int64, sequence: Int64, previous: String, statement: String, hash: String,
                              checkpoint: Bool, device: String, now: Date) async throws -> [String]
    /// Deletes the user's statements from number `keeping` on, if the one before has hash
    /// `head` (hex; nil when `keeping` is 0): a tail that does not verify. `conflict` when
    /// the chain changed. Returns how many were deleted.
    func cutChain(user: Int64, keeping: Int64, head: String?, actor: String, now: Date) async throws -> Int
    /// Publishes the device's signing key (base64) once; `conflict` if it has another.
    func setSigningKey(device: String, user: Int64, key: String, now: Date) async throws -> Device
}

extension ChainRepository {
    /// The whole chain of the user with this email in organisation `org`.
    func chain(email: String, org: Int64) async throws -> [String] { try await chain(email: email, org: org, pinned: nil) }

    /// Appends a statement that is not a checkpoint (`appendChainStatement(…checkpoint:…)`).
    func appendChainStatement(user: Int64, sequence: Int64, previous: String, statement: String, hash: String,
                              device: String, now: Date) async throws -> [String] {
        try await appendChainStatement(user: user, sequence: sequence, previous: previous, statement: statement, hash: hash,
                                       checkpoint: false, device: device, now: now)
    }
}

/// A user's groups of their own devices.
/// Implemented in Stores/GroupStore.swift.
public protocol GroupRepository: Sendable {
    func groups(user: Int64) async throws -> [DeviceGroup]
    func group(name: String, user: Int64) async throws -> DeviceGroup
    func createGroup(name: String, members: [String], user: Int64, now: Date) async throws -> DeviceGroup
    func addGroupMember(group: String, device: String, user: Int64, now: Date) async throws -> DeviceGroup
    func removeGroupMember(group: String, device: String, user: Int64, now: Date) async throws -> DeviceGroup
    func deleteGroup(name: String, user: Int64, now: Date) async throws
}

/// Organisations' groups of people (issue 28): listed, made and changed (by a device or the admin page).
/// Implemented in Stores/OrgGroupStore.swift (and so is the one below).
public protocol OrgGroupRepository: Sendable {
    /// Every group of the organisation, or with `member` only those the user is in.
    func orgGroups(org: Int64, member: Int64?) async throws -> [OrgGroup]
    func createOrgGroup(org: Int64, name: String, actor: String, now: Date) async throws -> OrgGroup
    /// `email` must be a user of the organisation (`notFound` otherwise).
    func changeOrgGroupMember(org: Int64, group: String, email: String, add: Bool, actor: String, now: Date) async throws -> OrgGroup
}

/// What a device looks up in its organisation: its people's addresses and one group.
public protocol OrgLookupRepository: Sendable {
    /// The addresses of the organisation's users that are not disabled, sorted.
    func orgUsers(org: Int64) async throws -> [String]
    func orgGroup(org: Int64, name: String) async throws -> OrgGroup
}

/// The bytes a user holds, for the quota checks made before a request's body is read.
/// Implemented in Stores/UploadStore.swift.
public protocol UsageRepository: Sendable {
    /// Bytes the user holds: uploads (their full length, or their offset while it is deferred), live outgoing transfers and cloud files.
    func usage(user: Int64) async throws -> Int64
}

/// An upload's one writer at a time: the upload read and its offset moved under the
/// writer lock (a tus PATCH, a streaming transfer's end, the upload becoming a blob).
/// Implemented in Stores/UploadStore.swift (the writer lock by each engine's store).
public protocol UploadWriterRepository: Sendable {
    func upload(id: String, user: Int64) async throws -> UploadRecord
    func setUploadOffset(id: String, offset: Int64, sha256: String?) async throws
    /// Runs `body` as the one writer of upload `id` (a tus PATCH, or the upload becoming a
    /// blob), unless another request holds the upload now, through this process or any other
    /// on the same database: then nil. The lock goes with `body`'s end, however it ends.
    func withUploadWriteLock<T: Sendable>(_ id: String, _ body: () async throws -> T) async throws -> T?
}

/// tus uploads: made, kept alive, given their length, reserved for and deleted.
/// Implemented in Stores/UploadStore.swift.
public protocol UploadRepository: Sendable {
    /// Adds an upload unless it would take its user past `limits` (`UploadRefusal`),
    /// checked in the same transaction: creations at once cannot together pass them.
    func createUpload(_ upload: UploadRecord, limits: UploadLimits) async throws
    /// Moves an upload's expiry (it got bytes: the idle expiry starts again).
    func touchUpload(id: String, expires: Date) async throws
    /// Sets the length of an upload created with a deferred length, once: `conflict` if
    /// it already has one, `invalid` if `length` is below the upload's offset,
    /// `UploadRefusal.quota` if it takes the user past `quota` (checked in the same transaction).
    func setUploadLength(id: String, length: Int64, quota: Int64) async throws
    /// Before a PATCH of an upload whose length is deferred: how far it may go (up to
    /// `cap`, and the quota with every other holding of the user counted, reservations of
    /// PATCHes under way included), reserved in the usage until `releaseReservation`.
    func reserveDeferred(id: String, offset: Int64, cap: Int64, quota: Int64) async throws -> Int64
    func releaseReservation(id: String) async throws
    func deleteUpload(id: String, user: Int64) async throws
}

/// An upload kept as an S3 multipart upload (`S3BlobStore`).
/// Implemented in Stores/UploadStore.swift.
public protocol MultipartRepository: Sendable {
    /// An upload's state as an S3 multipart upload (`S3BlobStore`); `notFound` without the upload.
    func multipartState(upload: String) async throws -> MultipartState
    /// Records the id of the multipart upload that holds the upload's parts.
    func startMultipart(upload: String, multipartID: String) async throws
    /// Records a part uploaded and, in the same transaction, moves the upload's offset to
    /// its end: a part is counted exactly when the offset says its bytes are kept.
    func recordUploadPart(upload: String, part: UploadPart) async throws
    /// Records that the upload's object is whole (the multipart upload completed).
    func setAssembled(upload: String) async throws
}

/// Which uploads have a row: files and objects of any other upload are orphans.
/// Implemented in Stores/UploadStore.swift.
public protocol UploadListingRepository: Sendable {
    /// The ids of every upload row (files of other uploads are orphans).
    func uploadIDs() async throws -> Set<String>
}

/// Transfers between devices: made of a finished upload or of one still running, read
/// from the inbox, acknowledged, declined or withdrawn.
/// Implemented in Stores/TransferStore.swift.
public protocol TransferRepository: Sendable {
    /// Turns a finished upload into a blob with one outbox row per target device.
    /// `blobID` names the file the caller has already moved into the blob store.
    /// `users`: devices of other users of the sender's organisation (each a live device of
    /// that user; a disabled user, or one of another organisation, is `notFound`).
    func createTransfer(id: String, upload: String, blobID: String, sender: DeviceIdentity, devices: [String],
                        groups: [String], users: [UserTarget], expires: Date, now: Date) async throws -> OutboxEntry
    /// A transfer of an upload that has not ended (status `uploading` for its targets,
    /// told at once); `conflict` if the upload is finished (make it a transfer the
    /// ordinary way) or already is one. Checked under the upload row's lock.
    func createStreamingTransfer(id: String, upload: String, sender: DeviceIdentity, devices: [String],
                                 groups: [String], users: [UserTarget], expires: Date, now: Date) async throws -> OutboxEntry
    func inbox(device: String) async throws -> [InboxEntry]
    func outbox(device: String) async throws -> [OutboxEntry]
    /// The blob of a transfer waiting for this device, or its upload while that still
    /// runs; marks it initiated when `initiate` (a download starts; not for a HEAD).
    func openTransfer(id: String, device: String, now: Date, initiate: Bool) async throws -> TransferContent
    /// `delivered` or `declined`; returns the blob ids to delete.
    func finishTransfer(id: String, device: String, status: TransferStatus, now: Date) async throws -> [String]
    /// The sender withdraws a transfer: its waiting copies are cancelled; returns the blob
    /// ids to delete and, for a transfer still uploading, its upload, removed with it (its
    /// file to delete).
    func cancelTransfer(id: String, sender: String, now: Date) async throws -> (released: [String], upload: String?)
}

extension TransferRepository {
    /// A download's opening: the copy is marked initiated.
    func openTransfer(id: String, device: String, now: Date) async throws -> TransferContent {
        try await openTransfer(id: id, device: device, now: now, initiate: true)
    }
}

/// Transfers whose SHA-256 was deferred (`DeferredDigest`): the ones a device's inbox
/// lists without it. Implemented in Stores/TransferStore.swift (and so are the two below).
public protocol InboxDigestRepository: Sendable {
    /// The blobs of finished transfers waiting for this device that have no SHA-256 yet.
    func undigestedBlobs(device: String) async throws -> [BlobRef]
}

/// A transfer kept as a cloud file (`vfs-push --cloud`), which lists its SHA-256.
public protocol SentDigestRepository: Sendable {
    /// The blob of a transfer this device sent if it is held and has no SHA-256 yet.
    func undigestedBlob(transfer: String, sender: String) async throws -> BlobRef?
}

/// A deferred SHA-256, once worked out.
public protocol DigestRecordRepository: Sendable {
    /// Records a blob's SHA-256 in its row and its transfers' (only where there is none).
    func recordDigest(blob: String, sha256: String) async throws
}

/// A streaming transfer's upload: which transfer it is.
/// Implemented in Stores/TransferStore.swift (and so are the two below).
public protocol StreamingRepository: Sendable {
    /// The streaming transfer made of this upload, if there is one.
    func streamingTransfer(upload: String) async throws -> String?
}

/// Where a streaming transfer's reader stands (`UploadFollower`).
public protocol StreamStateRepository: Sendable {
    /// Where a streaming read of a transfer by this device stands.
    func streamState(transfer id: String, device: String) async throws -> StreamState
}

/// A streaming transfer's upload ending (`RelayServices`).
public protocol StreamingCompletionRepository: Sendable {
    /// The upload ended: it becomes the blob `blobID` (which the caller already put in
    /// the blob store) of its streaming transfer, one reference per copy still waiting.
    func completeStreamingTransfer(upload: String, blobID: String, now: Date) async throws -> StreamingCompletion
}

/// Each user's cloud tree (paths are lists of names from the root).
/// Implemented in Stores/CloudStore.swift.
public protocol CloudRepository: Sendable {
    func cloudList(path: [String], user: Int64) async throws -> (CloudEntry, [CloudEntry])
    /// A new entry (here and in the puts, unless it replaces a file) is refused with
    /// `CloudRefusal.tooManyEntries` when the user holds `maxEntries` files and folders.
    func cloudMakeFolder(path: [String], id: String, user: Int64, maxEntries: Int, now: Date) async throws -> CloudEntry
    /// Puts a finished upload at `path` (replacing a file there) as a new version by
    /// `device`, when `expecting` holds (else `CloudRefusal.notHead`, nothing changed);
    /// returns the entry and the blob ids to delete.
    func cloudPut(path: [String], id: String, upload: String, blobID: String, user: Int64, device: String,
                  expecting: CloudPut.Expectation, maxEntries: Int, now: Date) async throws -> (CloudEntry, [String])
    func cloudMove(from: [String], to: [String], user: Int64, now: Date) async throws -> CloudEntry
    func cloudDelete(path: [String], user: Int64, now: Date) async throws -> [String]
    func cloudFile(path: [String], user: Int64) async throws -> BlobRef
    /// Puts the blob of `transfer` (sent by device `sender`, still held for a target) at
    /// `path` as one more reference to it; returns the entry and the blob ids to delete.
    func cloudPutTransfer(path: [String], id: String, transfer: String, sender: String, user: Int64,
                          expecting: CloudPut.Expectation, maxEntries: Int, now: Date) async throws -> (CloudEntry, [String])
    /// Points the file at `path`, whose blob must still have SHA-256 `expected`
    /// (else `preconditionFailed`), to the new blob `blob` (one reference, its file
    /// already in the blob store); returns the entry and the blob ids to delete.
    func cloudReplaceBlob(path: [String], expected: String, with blob: BlobRef, user: Int64,
                          now: Date) async throws -> (CloudEntry, [String])
}

/// Each user's cloud history (issue 50): the versions a replaced, moved or removed file
/// keeps, and a file or a tree put back as it was. Implemented in Stores/CloudHistoryStore.swift.
public protocol CloudHistoryRepository: Sendable {
    /// The versions of the file at `path` now and of what was at `path` before, newest
    /// first; `notFound` when there is none.
    func cloudLog(path: [String], user: Int64) async throws -> [CloudVersion]
    /// The blob a version row (`CloudVersion.id`) of the user holds, or `notFound`.
    func cloudVersionBlob(id: String, user: Int64) async throws -> BlobRef
    /// Each removed file's last version, newest removal first.
    func cloudTrash(user: Int64) async throws -> [CloudVersion]
    /// Puts the file at `path` back as it was at `time` (with `recursive` the tree under
    /// it: files not there then are removed, keeping their versions) as new versions by
    /// `device`; returns what changed and the blob ids to delete.
    func cloudRestore(path: [String], at time: Date, recursive: Bool, user: Int64, device: String, maxEntries: Int,
                      now: Date) async throws -> (CloudRestored, [String])
}

/// A rekey's reach into the cloud's history (issue 50, item 4): the earlier versions whose
/// content is kept, and a new age header for one. Implemented in Stores/CloudHistoryStore.swift.
public protocol CloudVersionRekeyRepository: Sendable {
    /// Every earlier version (ended row) of the user whose content is kept, newest first.
    func cloudKeptVersions(user: Int64) async throws -> [CloudVersion]
    /// Puts `blob` (the version's content under a new header, whose row this makes) in
    /// place of the blob of the earlier version `id` whose SHA-256 is `expected` (else
    /// `preconditionFailed`), for every earlier version of the user that holds that blob;
    /// returns those versions and the blob ids to delete.
    func cloudReplaceVersionBlob(id: String, expected: String, with blob: BlobRef, user: Int64,
                                 now: Date) async throws -> ([CloudVersion], [String])
}

/// Each organisation's policy items, listed, read and changed (by a device or the admin page).
/// Implemented in Stores/ItemStore.swift (and so are the three below).
public protocol ItemRepository: Sendable {
    func items(org: Int64) async throws -> [VersionedItem]
    func item(id: String, org: Int64) async throws -> VersionedItem
    func createItem(_ draft: ItemDraft, id: String, actor: DeviceIdentity, now: Date) async throws -> VersionedItem
    func updateItem(id: String, _ draft: ItemDraft, ifVersion: Int64?, actor: DeviceIdentity, now: Date) async throws -> VersionedItem
    func deleteItem(id: String, ifVersion: Int64?, actor: DeviceIdentity, now: Date) async throws
}

/// The revision of an organisation's items (the list's ETag).
public protocol ItemRevisionRepository: Sendable {
    /// Goes up with every change to the organisation's items (in the change's transaction).
    func itemsRevision(org: Int64) async throws -> Int64
}

/// An organisation's offline grace for its policy, read.
public protocol PolicyGraceRepository: Sendable {
    /// The organisation's offline grace for its policy in seconds; nil is the relay's default.
    func policyGrace(org: Int64) async throws -> Int64?
}

/// An organisation's offline grace for its policy, set.
public protocol PolicyGraceWriteRepository: Sendable {
    /// Sets (nil: back to the default) the offline grace, audited as `policy.grace`, and
    /// bumps the items revision in the same transaction (the grace is served with the list).
    func setPolicyGrace(org: Int64, seconds: Int64?, actor: DeviceIdentity, now: Date) async throws
}

/// Each device's stored events, read by its streams.
/// Implemented in Stores/EventStore.swift (and so are the four below).
public protocol EventReadRepository: Sendable {
    func events(device: String, after: Int64, limit: Int) async throws -> [StoredEvent]
}

/// Events stored for devices (their devices woken after the commit, by the store alone).
public protocol DeviceEventRepository: Sendable {
    /// Stores one event for each device; returns the devices it was stored for.
    @discardableResult
    func appendEvent(kind: RelayEventKind, data: String, devices: [String], now: Date) async throws -> [String]
}

/// Events stored for every live device of an organisation (woken as `DeviceEventRepository`'s).
public protocol OrgEventRepository: Sendable {
    func appendEventToOrganisation(kind: RelayEventKind, data: String, org: Int64, now: Date) async throws -> [String]
}

/// Where the event log stands (the watcher's poll, and the health check's query).
public protocol EventPositionRepository: Sendable {
    func lastEventID() async throws -> Int64
}

/// Which devices have new events, for the watcher that polls the log.
public protocol EventWatchRepository: Sendable {
    /// Devices with events after `id`.
    func devicesWithEvents(after id: Int64) async throws -> [String]
}

/// The wake-ups of new events, for the listener (`EventListener`, given them by `buildRelay`).
/// Implemented by each engine's store.
public protocol EventNotificationRepository: Sendable {
    /// Wake-ups for the devices of new events, sent after the events' commit.
    var eventNotifications: any EventNotifications { get }
}

/// The admin web page's sign-in codes (kept as SHA-256 hashes), asked for by an
/// administrator's device or the operator.
/// Implemented in Stores/AdminWebStore.swift (and so is the one below).
public protocol AdminLoginCodeRepository: Sendable {
    /// A one-time sign-in code for an administrator; `invalid` for a user who is not one.
    func createLoginCode(email: String, codeHash: String, expires: Date, now: Date) async throws
}

/// The admin web page: sessions (kept as SHA-256 hashes) opened with a sign-in code, and
/// the organisation's overview pages.
public protocol AdminWebRepository: Sendable {
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
}

/// The sweeps over the whole database (`RelayMaintenance`, `vfs-relay gc`, `copy-blobs`).
/// Implemented in Stores/MaintenanceStore.swift, UploadStore.swift and TransferStore.swift (the locks by each engine's store).
public protocol MaintenanceRepository: Sendable {
    /// Runs `body` unless another process holds the maintenance lock (then nil): one
    /// sweep at a time over the whole database.
    func withMaintenanceLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T?
    /// Recounts every blob's references from the live rows, deletes blobs nobody uses
    /// and rows whose file is gone. `files` is the blob files on disk; returns the ids
    /// of blobs to delete and of files no row names.
    /// `fileExists` checks one blob file now (a blob made while gc runs is not an orphan).
    func collectGarbage(files: Set<String>, fileExists: @escaping @Sendable (String) -> Bool,
                        eventsBefore: Date, now: Date) async throws -> (report: GarbageReport, delete: [String])
    /// Every blob row with its reference count and the count of live rows using it.
    func referenceAudit() async throws -> [(id: String, refs: Int64, live: Int64)]
    /// Uploads past their expiry that never became a blob, except `sparing` (uploads
    /// being written now); their rows are deleted.
    func removeExpiredUploads(now: Date, sparing: Set<String>) async throws -> [String]
    /// Uploads this process is writing now (their writer lock held here).
    func uploadsBeingWritten() -> Set<String>
    func expireTransfers(now: Date) async throws -> [String]
}

/// Every blob row, for `vfs-relay copy-blobs`.
/// Implemented in Stores/MaintenanceStore.swift.
public protocol BlobListingRepository: Sendable {
    /// Every blob row (id, size, SHA-256), by id.
    func blobRows() async throws -> [BlobRef]
}

/// Wrong enrolment codes per address, shared by every instance on one database.
/// Implemented in Stores/EnrolmentThrottleStore.swift.
public protocol EnrolmentThrottleRepository: Sendable {
    /// Seconds this address must still wait before it may try an enrolment code, or nil.
    func enrolmentWait(address: String, now: Date) async throws -> Int?
    /// One more wrong code from `address`; at `limit` in a row it waits `lockout` seconds.
    func enrolmentFailed(address: String, limit: Int, lockout: TimeInterval, now: Date) async throws
    /// A right code: the address starts again from zero.
    func enrolmentSucceeded(address: String) async throws
}

/// Share links (issue 51): a finished upload (an age file its owner sealed to a key the
/// relay never sees) served to whoever holds the link, counted, logged, revoked.
/// Implemented in Stores/ShareStore.swift.
public protocol ShareRepository: Sendable {
    /// Makes the finished upload `upload` of `owner`'s user the blob `blobID` (already in
    /// the blob store) of a new link, holding one reference until it is revoked or expires.
    func createShare(id: String, upload: String, blobID: String, owner: DeviceIdentity, expires: Date, maxDownloads: Int?,
                     now: Date) async throws -> Share
    /// The user's links, oldest first, each with its downloads.
    func shares(user: Int64) async throws -> [Share]
    /// Any link by id (no owner: its holder asks); `notFound` for none.
    func publicShare(id: String, now: Date) async throws -> PublicShare
    /// Counts one download if the link allows one now, in one statement (of requests at
    /// once, exactly as many as its limit get through), logging it with `size(blob)` bytes
    /// and `address` and storing a `share` event for its user's live devices. `admitted`
    /// says whether it was counted. `resume`: the hash of the token that continues this
    /// download (`resumeShareDownload`).
    func countShareDownload(id: String, size: (BlobRef) -> Int64, address: String, resume: String?, now: Date) async throws -> PublicShare
    /// A download counted before, continued with its token's hash `resume`: `admitted`
    /// when the link is neither revoked nor expired and the download was counted less than
    /// `within` ago. It is not counted or logged again.
    func resumeShareDownload(id: String, resume: String, within: TimeInterval, now: Date) async throws -> PublicShare
    /// Revokes the user's link (again: nothing changes); returns the blob ids to delete.
    func revokeShare(id: String, user: Int64, now: Date) async throws -> [String]
}

/// File requests (issue 51, item 4): a link through which someone without a device sends
/// an age file in, delivered to the requester's devices as an external transfer.
/// Implemented in Stores/FileRequestStore.swift.
public protocol FileRequestRepository: Sendable {
    /// A new request of `owner`'s user for `devices` (each a live, receiving device of the
    /// user, with `recipients` its recipient, in order).
    func createFileRequest(id: String, owner: DeviceIdentity, devices: [String], recipients: [String], expires: Date,
                           maxUploads: Int?, now: Date) async throws -> FileRequest
    /// The user's requests, oldest first, each with the files it accepted.
    func fileRequests(user: Int64) async throws -> [FileRequest]
    /// Any request by id (no owner: whoever holds the link asks); `notFound` for none.
    func publicFileRequest(id: String, now: Date) async throws -> PublicFileRequest
    /// Counts one file if the request takes one now, in one statement (of uploads at once,
    /// exactly as many as its limit are accepted), and makes the finished upload `upload`
    /// of its user the blob `blobID` of an external transfer to its devices still live,
    /// logged with `address` and `name`. The transfer's id; nil when the request took no
    /// file (revoked, expired, used up, or none of its devices live).
    func deliverExternal(request: String, upload: String, blobID: String, name: String?, address: String,
                         expires: Date, now: Date) async throws -> String?
    /// Revokes the user's request (again: nothing changes).
    func revokeFileRequest(id: String, user: Int64, now: Date) async throws
}

/// The sweep's part of share links.
public protocol ShareExpiryRepository: Sendable {
    /// Links past their expiry give up their blob reference; returns the blob ids to delete.
    func expireShares(now: Date) async throws -> [String]
}

/// Which devices' tokens are send-only (issue 48; `authenticate` reads the same mark with the token's row for `TokenScopeMiddleware`): table
/// `send_only_devices`, migration `v18-send-only-devices`. Apart from the devices table
/// so that a device is marked before its enrolment makes it: no device exists, even for
/// a moment, without its mark (a mark whose enrolment failed names no device).
/// Implemented in Stores/TokenScopeStore.swift.
public protocol TokenScopeRepository: Sendable {
    /// Whether `device`'s token is send-only.
    func isSendOnly(device: String) async throws -> Bool
}

/// Enrolment's part of the send-only marks (the same table): marked before the device is made.
public protocol SendOnlyMarkRepository: Sendable {
    /// Marks `device` (an id about to be enrolled) send-only.
    func markSendOnly(device: String, now: Date) async throws
    /// Drops the mark of an id whose enrolment failed.
    func unmarkSendOnly(device: String) async throws
}

/// An organisation's minimum retention (issue 48, item 4; `vfs-relay org set
/// --min-retention`): table `org_retention`, migration `v19-min-retention`. A transfer made
/// under it is kept (table `retained_transfers`) until it is delivered or the retention
/// ends: its sender's cancel is refused (`RetentionRefusal`), and it expires no earlier.
/// Implemented in Stores/RetentionStore.swift (and so is the one below).
public protocol RetentionSettingRepository: Sendable {
    /// Sets it (nil: none) for transfers made from now on, with an audit entry
    /// `org.min-retention` by `operator`.
    func setMinRetention(org: Int64, seconds: Int64?, now: Date) async throws
}

/// What the transfers' controller reads of it: how long the blob of a transfer made now
/// is locked where the blob store can (S3 Object Lock).
public protocol RetentionLookupRepository: Sendable {
    /// The retention in seconds, nil when none is set.
    func minRetention(org: Int64) async throws -> Int64?
}

/// What an organisation allows its users' share links and file requests (issue 51, item 5;
/// table `org_link_settings`, migration `v24-link-settings`), as the link routes read it.
/// Implemented in Stores/LinkPolicyStore.swift (and so are the two below).
public protocol LinkPolicyRepository: Sendable {
    /// The organisation's settings; `LinkPolicy.open` when it sets none.
    func linkPolicy(org: Int64) async throws -> LinkPolicy
}

/// The operator's side of it (`vfs-relay org set --links …`).
public protocol LinkPolicySettingRepository: Sendable {
    /// Replaces the settings, with an audit entry `org.links` by `operator`.
    func setLinkPolicy(org: Int64, policy: LinkPolicy, now: Date) async throws
}

/// The organisation's links and file requests on the admin page, and their revocation
/// by an administrator.
public protocol LinkAdminRepository: Sendable {
    /// Every link and file request the organisation's users made, newest first.
    func organisationLinks(org: Int64, now: Date) async throws -> [LinkOverview]
    /// Revokes the organisation's link or file request `id` (an audit entry by `actor`);
    /// returns the blobs released with it.
    func adminRevokeLink(id: String, org: Int64, actor: String, now: Date) async throws -> [String]
}

/// Which earlier cloud versions an organisation keeps (issue 50, item 3; `vfs-relay org set
/// --cloud-versions`): table `org_cloud_retention`, migration `v26-cloud-retention`.
/// Implemented in Stores/CloudRetentionStore.swift (and so is the one below).
public protocol CloudRetentionSettingRepository: Sendable {
    /// The organisation's policy; `.staggered` when it sets none.
    func cloudVersionPolicy(org: Int64) async throws -> CloudVersionPolicy
    /// Sets it, with an audit entry `org.cloud-versions` by `operator`; the next sweep applies it.
    func setCloudVersionPolicy(org: Int64, policy: CloudVersionPolicy, now: Date) async throws
}

/// Each user's cloud history in numbers, for the admin page's Devices screen (issue 50).
/// Implemented in Stores/CloudRetentionStore.swift.
public protocol CloudHistorySummaryRepository: Sendable {
    /// For each user of the organisation (by id) who has an earlier version kept: how
    /// many, the bytes only they hold, and the removed files in the trash.
    func cloudHistorySummaries(org: Int64) async throws -> [Int64: CloudHistorySummary]
}

/// The sweep's part of the cloud's history.
public protocol CloudRetentionRepository: Sendable {
    /// Drops every earlier version (an ended row of `cloud_versions`) its user's
    /// organisation's policy no longer keeps at `now`, each giving up its blob reference;
    /// returns how many were dropped and the blob ids to delete.
    func pruneCloudVersions(now: Date) async throws -> (dropped: Int, released: [String])
    /// The earlier versions kept (ended rows holding a blob), and the bytes of the blobs
    /// that only such rows hold (no cloud file does), over every user: `/metrics`' gauges.
    func cloudVersionTotals() async throws -> (versions: Int, bytes: Int64)
}

/// The operator's removal of a transfer (`vfs-relay transfers rm`), retained or not.
public protocol TransferRemovalRepository: Sendable {
    /// Cancels its waiting copies whatever its retention, with an audit entry
    /// `transfer.remove` by `operator` in the sender's organisation.
    func removeTransfer(id: String, now: Date) async throws -> RemovedTransfer
}

/// What the operator's removal of a transfer did.
public struct RemovedTransfer: Sendable, Equatable {
    /// Blob ids no longer referenced (to delete), and the upload removed with a transfer
    /// that still uploaded (its file to delete).
    public var released: [String]
    public var upload: String?
    /// The copies that were waiting (now `cancelled`).
    public var cancelled: Int
    /// When its retention would have ended; nil when it had none (or it had passed).
    public var retainedUntil: Date?
}

/// Every repository: what the concrete store is, and what the composition root
/// (`buildRouter`, `buildRelay`) and the operator's commands hold.
public typealias RelayStore = OperatorRepository
    & UserRemovalRepository
    & AuditRepository
    & EnrolmentRepository
    & InviteRepository
    & TokenRepository
    & DeviceListRepository
    & DeviceLookupRepository
    & DeviceRenameRepository
    & DeviceLogoutRepository
    & ChainReadRepository
    & OperatorChainRepository
    & ChainRepository
    & GroupRepository
    & OrgGroupRepository
    & OrgLookupRepository
    & UsageRepository
    & UploadWriterRepository
    & UploadRepository
    & MultipartRepository
    & UploadListingRepository
    & TransferRepository
    & InboxDigestRepository
    & SentDigestRepository
    & DigestRecordRepository
    & StreamingRepository
    & StreamStateRepository
    & StreamingCompletionRepository
    & CloudRepository
    & CloudHistoryRepository
    & CloudVersionRekeyRepository
    & ItemRepository
    & ItemRevisionRepository
    & PolicyGraceRepository
    & PolicyGraceWriteRepository
    & EventReadRepository
    & DeviceEventRepository
    & OrgEventRepository
    & EventPositionRepository
    & EventWatchRepository
    & EventNotificationRepository
    & AdminLoginCodeRepository
    & AdminWebRepository
    & MaintenanceRepository
    & BlobListingRepository
    & EnrolmentThrottleRepository
    & ShareRepository
    & ShareExpiryRepository
    & FileRequestRepository
    & TokenScopeRepository
    & SendOnlyMarkRepository
    & RetentionSettingRepository
    & RetentionLookupRepository
    & TransferRemovalRepository
    & LinkPolicyRepository
    & LinkPolicySettingRepository
    & LinkAdminRepository
    & CloudRetentionSettingRepository
    & CloudRetentionRepository
    & CloudHistorySummaryRepository

extension MaintenanceRepository {
    /// Uploads past their expiry, every one.
    public func removeExpiredUploads(now: Date) async throws -> [String] {
        try await removeExpiredUploads(now: now, sparing: [])
    }
}

extension TransferRepository {
    /// A transfer to the sender's own devices and groups only.
    public func createTransfer(id: String, upload: String, blobID: String, sender: DeviceIdentity, devices: [String],
                               groups: [String], expires: Date, now: Date) async throws -> OutboxEntry {
        try await createTransfer(id: id, upload: upload, blobID: blobID, sender: sender, devices: devices, groups: groups,
                                 users: [], expires: expires, now: now)
    }
}

extension EnrolmentRepository {
    /// Enrolment without caps (the operator's tools and tests).
    public func enroll(codeHash: String, deviceID: String, tokenHash: String, name: String, platform: String,
                       recipient: String, now: Date) async throws -> Device? {
        var unlimited = UsageLimits()
        (unlimited.devices, unlimited.orgDevices) = (.max, .max)
        return try await enroll(codeHash: codeHash, deviceID: deviceID, tokenHash: tokenHash, name: name, platform: platform,
                                recipient: recipient, now: now, limits: unlimited)
    }
}

extension OperatorRepository {
    /// An operator's enrolment code (`vfs-relay user add`, `invite`): no device made it.
    public func createEnrolmentCode(email: String, codeHash: String, expires: Date, now: Date) async throws {
        try await createEnrolmentCode(email: email, codeHash: codeHash, expires: expires, now: now, createdBy: nil)
    }
}
