import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing
import VFSRelayProtocol
import VFSTestSupport
@testable import VFSRelayServer

/// The two stores behind the RelayStore protocol. Every test of the suite runs once per
/// backend: the embedded SQLite file, and a fresh database in the private PostgreSQL
/// cluster the tests start (PostgresCluster).
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

/// A store of one backend, in its own temp folder or database.
final class StoreFixture: @unchecked Sendable {
    let store: any RelayStore
    let folder: URL
    let database: String?

    static func make(_ backend: Backend) async throws -> StoreFixture {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        switch backend {
        case .sqlite:
            return StoreFixture(store: try SQLiteRelayStore(path: folder.appendingPathComponent("relay.sqlite").path), folder: folder,
                                database: nil)
        case .postgres:
            let url = try await offPool { try PostgresCluster.start().newDatabase() }
            var logger = Logger(label: "store-test")
            logger.logLevel = .critical
            let location = try #require(PostgresLocation(url: url))
            // The store gives the database 10 s to answer; a fully loaded test run can leave
            // the pool's task waiting that long for a thread, so a timeout is tried again.
            var attempt = 0
            while true {
                do {
                    let store = try await PostgresRelayStore(location: location, logger: logger)
                    return StoreFixture(store: store, folder: folder, database: url)
                } catch is PostgresRelayStore.Timeout where attempt < 2 {
                    attempt += 1
                }
            }
        }
    }

    /// Runs blocking work (initdb, createdb) on its own thread, not on one of the few
    /// threads every test's async code shares.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    init(store: any RelayStore, folder: URL, database: String?) {
        self.store = store
        self.folder = folder
        self.database = database
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// An organisation, a user and `devices` enrolled devices; returns their identities.
    func user(_ email: String, org: String = "acme", admin: Bool = false, devices: Int = 1) async throws -> [DeviceIdentity] {
        if try await !store.users().contains(where: { $0.org == org }) {
            try await store.createOrganisation(name: org, now: Date())
        }
        try await store.createUser(email: email, organisation: org, admin: admin, now: Date())
        var identities = [DeviceIdentity]()
        for n in 0..<devices {
            identities.append(try await device(of: email, name: "device\(n)"))
        }
        return identities
    }

    func device(of email: String, name: String) async throws -> DeviceIdentity {
        let code = "code-\(UUID().uuidString)"
        try await store.createEnrolmentCode(email: email, codeHash: code, expires: Date().addingTimeInterval(600), now: Date())
        let token = "token-\(UUID().uuidString)"
        let device = try await store.enroll(codeHash: code, deviceID: "dev-\(UUID().uuidString.prefix(8))", tokenHash: token, name: name,
                                            platform: "linux", recipient: "age1\(name)", now: Date())
        #expect(device != nil)
        return try #require(try await store.authenticate(tokenHash: token, now: Date()))
    }

    /// A finished upload of `length` bytes.
    func finishedUpload(_ identity: DeviceIdentity, length: Int64 = 10) async throws -> String {
        let id = "up-\(UUID().uuidString)"
        let now = Date()
        try await store.createUpload(UploadRecord(id: id, userID: identity.userID, deviceID: identity.deviceID, length: length,
                                                  offset: 0, metadata: "", created: now, expires: now.addingTimeInterval(3600)), limits: .unlimited)
        try await store.setUploadOffset(id: id, offset: length, sha256: String(repeating: "a", count: 64))
        return id
    }

    /// Every blob's reference count equals its live rows.
    func referencesHold() async throws -> Bool {
        try await store.referenceAudit().allSatisfy { $0.refs == $0.live }
    }
}

/// Runs `attempt(0..<count)` all at once: for each, nil when it went through, or the
/// refusal of type `R` it threw (any other error fails the whole).
func attemptAtOnce<R: Error>(_ count: Int, refused: R.Type,
                             _ attempt: @escaping @Sendable (Int) async throws -> Void) async throws -> [R?] {
    try await withThrowingTaskGroup(of: R?.self) { group in
        for n in 0..<count {
            group.addTask {
                do {
                    try await attempt(n)
                    return nil
                } catch let refusal as R {
                    return refusal
                }
            }
        }
        return try await group.reduce(into: [R?]()) { $0.append($1) }
    }
}

extension UploadLimits {
    /// No quota and no cap (the tests of other rules).
    static let unlimited = UploadLimits(quota: .max, openUploads: .max)
}

/// Device ids heard, from other tasks.
final class HeardDevices: Sendable {
    private let devices = NIOLockedValueBox([String]())
    func append(_ device: String) { devices.withLockedValue { $0.append(device) } }
    func contains(_ device: String) -> Bool { devices.withLockedValue { $0.contains(device) } }
}

/// A flag set once, read from other tasks.
final class ManagedAtomicFlag: Sendable {
    private let flag = NIOLockedValueBox(false)
    var isSet: Bool { flag.withLockedValue { $0 } }
    func set() { flag.withLockedValue { $0 = true } }
}

@Suite("relay store (SQLite and PostgreSQL)", .serialized)
struct StoreTests {
    @Test("operator: organisations, users, codes; conflicts and unknown names", arguments: Backend.allCases)
    func operatorRows(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        try await store.createOrganisation(name: "acme", now: Date())
        await #expect(throws: StoreError.conflict("organisation \"acme\" already exists")) {
            try await store.createOrganisation(name: "acme", now: Date())
        }
        try await store.createUser(email: "alice@acme.example", organisation: "acme", admin: true, now: Date())
        await #expect(throws: StoreError.notFound("no organisation \"other\"")) {
            try await store.createUser(email: "bob@acme.example", organisation: "other", admin: false, now: Date())
        }
        await #expect(throws: StoreError.conflict("user \"alice@acme.example\" already exists")) {
            try await store.createUser(email: "alice@acme.example", organisation: "acme", admin: false, now: Date())
        }
        await #expect(throws: StoreError.notFound("no user \"nobody@acme.example\"")) {
            try await store.createEnrolmentCode(email: "nobody@acme.example", codeHash: "x", expires: Date(), now: Date())
        }
        let users = try await store.users()
        #expect(users.map(\.email) == ["alice@acme.example"])
        #expect(users.first?.role == "admin")
        let stats = try await store.stats()
        #expect(stats.organisations == 1 && stats.users == 1 && stats.devices == 0)
    }

    @Test("enrolment: a code works once and not after it expired; tokens authenticate until logout", arguments: Backend.allCases)
    func enrolment(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        _ = try await fixture.user("alice@acme.example", devices: 0)
        try await store.createEnrolmentCode(email: "alice@acme.example", codeHash: "c1", expires: Date().addingTimeInterval(60), now: Date())
        try await store.createEnrolmentCode(email: "alice@acme.example", codeHash: "old", expires: Date().addingTimeInterval(-1), now: Date())
        let device = try await store.enroll(codeHash: "c1", deviceID: "d1", tokenHash: "t1", name: "laptop", platform: "linux",
                                            recipient: "age1x", now: Date())
        #expect(device?.id == "d1")
        #expect(try await store.enroll(codeHash: "c1", deviceID: "d2", tokenHash: "t2", name: "x", platform: "linux",
                                       recipient: "age1x", now: Date()) == nil)
        #expect(try await store.enroll(codeHash: "old", deviceID: "d3", tokenHash: "t3", name: "x", platform: "linux",
                                       recipient: "age1x", now: Date()) == nil)
        let identity = try #require(try await store.authenticate(tokenHash: "t1", now: Date()))
        #expect(identity.deviceID == "d1" && identity.email == "alice@acme.example" && !identity.isAdmin)
        #expect(try await store.authenticate(tokenHash: "t2", now: Date()) == nil)
        #expect(try await store.deviceIDs(ofUser: "alice@acme.example") == ["d1"])
        let renamed = try await store.renameDevice(id: "d1", user: identity.userID, name: "work", now: Date())
        #expect(renamed.name == "work")
        #expect(try await store.device(id: "d1", user: identity.userID).name == "work")
        _ = try await store.invalidateDevice(id: "d1", user: identity.userID, now: Date())
        #expect(try await store.authenticate(tokenHash: "t1", now: Date()) == nil)
        #expect(try await store.isRevoked(tokenHash: "t1"))
        #expect(try await !store.isRevoked(tokenHash: "t2"))
        #expect(try await !store.isDeviceLive("d1"))
        let logout = try await store.events(device: "d1", after: 0, limit: 10)
        #expect(logout.map(\.kind) == [.logout])
        await #expect(throws: StoreError.notFound("no device \"d1\"")) {
            try await store.invalidateDevice(id: "d1", user: identity.userID, now: Date())
        }
    }

    @Test("groups: create, add, remove, delete; only the user's own devices", arguments: Backend.allCases)
    func groups(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example", devices: 3)
        let bob = try await fixture.user("bob@acme.example", devices: 1)
        let user = alice[0].userID
        let group = try await store.createGroup(name: "home", members: [alice[0].deviceID, alice[1].deviceID], user: user, now: Date())
        #expect(group.members == [alice[0].deviceID, alice[1].deviceID].sorted())
        await #expect(throws: StoreError.conflict("group \"home\" already exists")) {
            try await store.createGroup(name: "home", members: [], user: user, now: Date())
        }
        await #expect(throws: StoreError.notFound("no device \"\(bob[0].deviceID)\"")) {
            try await store.createGroup(name: "x", members: [bob[0].deviceID], user: user, now: Date())
        }
        await #expect(throws: StoreError.invalid("device \"\(alice[2].deviceID)\" is listed twice")) {
            try await store.createGroup(name: "y", members: [alice[2].deviceID, alice[2].deviceID], user: user, now: Date())
        }
        let added = try await store.addGroupMember(group: "home", device: alice[2].deviceID, user: user, now: Date())
        #expect(added.members.count == 3)
        #expect(try await store.addGroupMember(group: "home", device: alice[2].deviceID, user: user, now: Date()).members.count == 3)
        let removed = try await store.removeGroupMember(group: "home", device: alice[0].deviceID, user: user, now: Date())
        #expect(!removed.members.contains(alice[0].deviceID))
        await #expect(throws: StoreError.notFound("no device \"\(alice[0].deviceID)\" in group \"home\"")) {
            try await store.removeGroupMember(group: "home", device: alice[0].deviceID, user: user, now: Date())
        }
        #expect(try await store.groups(user: bob[0].userID).isEmpty)
        #expect(try await store.groups(user: user).map(\.name) == ["home"])
        try await store.deleteGroup(name: "home", user: user, now: Date())
        await #expect(throws: StoreError.notFound("no group \"home\"")) { try await store.deleteGroup(name: "home", user: user, now: Date()) }
    }

    @Test("transfers: an upload becomes one blob with a reference per device; each finish releases one", arguments: Backend.allCases)
    func transfers(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example", devices: 3)
        let sender = alice[0]
        _ = try await store.createGroup(name: "others", members: [alice[1].deviceID, alice[2].deviceID], user: sender.userID, now: Date())
        let unfinished = "up-unfinished"
        try await store.createUpload(UploadRecord(id: unfinished, userID: sender.userID, deviceID: sender.deviceID, length: 10,
                                                  offset: 0, metadata: "m", created: Date(), expires: Date().addingTimeInterval(60)), limits: .unlimited)
        await #expect(throws: StoreError.conflict("upload \"\(unfinished)\" is not finished (0 of 10 bytes)")) {
            try await store.createTransfer(id: "t0", upload: unfinished, blobID: "b0", sender: sender, devices: [alice[1].deviceID],
                                           groups: [], expires: Date().addingTimeInterval(60), now: Date())
        }
        #expect(try await store.upload(id: unfinished, user: sender.userID).metadata == "m")
        #expect(try await store.usage(user: sender.userID) == 10)
        let upload = try await fixture.finishedUpload(sender, length: 20)
        let entry = try await store.createTransfer(id: "t1", upload: upload, blobID: "b1", sender: sender, devices: [alice[1].deviceID],
                                                   groups: ["others"], expires: Date().addingTimeInterval(60), now: Date())
        #expect(entry.recipients.map(\.device) == [alice[1].deviceID, alice[2].deviceID].sorted())
        await #expect(throws: StoreError.notFound("no upload \"\(upload)\"")) { try await store.upload(id: upload, user: sender.userID) }
        #expect(try await store.referenceAudit().map(\.refs) == [2])
        #expect(try await store.inbox(device: alice[1].deviceID).map(\.id) == ["t1"])
        #expect(try await store.outbox(device: sender.deviceID).map(\.id) == ["t1"])
        #expect(try await store.usage(user: sender.userID) == 30)
        let blob = try await store.openTransfer(id: "t1", device: alice[1].deviceID, now: Date())
        #expect(blob == .blob(BlobRef(id: "b1", size: 20, sha256: String(repeating: "a", count: 64))))
        #expect(try await store.inbox(device: alice[1].deviceID).first?.status == .initiated)
        #expect(try await store.finishTransfer(id: "t1", device: alice[1].deviceID, status: .delivered, now: Date()).isEmpty)
        await #expect(throws: StoreError.notFound("no transfer \"t1\"")) {
            try await store.finishTransfer(id: "t1", device: alice[1].deviceID, status: .delivered, now: Date())
        }
        #expect(try await store.finishTransfer(id: "t1", device: alice[2].deviceID, status: .declined, now: Date()) == ["b1"])
        #expect(try await store.referenceAudit().isEmpty)
        // Cancel and expiry release what is still waiting.
        let second = try await fixture.finishedUpload(sender)
        _ = try await store.createTransfer(id: "t2", upload: second, blobID: "b2", sender: sender, devices: [],
                                           groups: ["others"], expires: Date().addingTimeInterval(60), now: Date())
        await #expect(throws: StoreError.notFound("no transfer \"t2\"")) {
            try await store.cancelTransfer(id: "t2", sender: alice[1].deviceID, now: Date())
        }
        #expect(try await store.cancelTransfer(id: "t2", sender: sender.deviceID, now: Date()).released == ["b2"])
        let cancelled = try await store.outbox(device: sender.deviceID).first { $0.id == "t2" }?.recipients.map(\.status)
        #expect(cancelled?.isEmpty == false && cancelled?.allSatisfy { $0 == .cancelled } == true, "\(cancelled ?? [])")
        let third = try await fixture.finishedUpload(sender)
        _ = try await store.createTransfer(id: "t3", upload: third, blobID: "b3", sender: sender, devices: [alice[1].deviceID],
                                           groups: [], expires: Date().addingTimeInterval(10), now: Date())
        #expect(try await store.expireTransfers(now: Date()).isEmpty)
        #expect(try await store.expireTransfers(now: Date().addingTimeInterval(11)) == ["b3"])
        #expect(try await store.outbox(device: sender.deviceID).first { $0.id == "t3" }?.recipients.map(\.status) == [.expired])
        #expect(try await store.removeExpiredUploads(now: Date().addingTimeInterval(61)) == [unfinished])
        #expect(try await store.uploadIDs().isEmpty)
        #expect(try await store.referenceAudit().isEmpty)
    }

    @Test("deferred upload length: NULL until set, once and not below the offset; counted by its offset; not finished until set",
          arguments: Backend.allCases)
    func deferredUploadLength(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example", devices: 2)
        let (sender, phone) = (alice[0], alice[1])
        let id = "up-deferred"
        try await store.createUpload(UploadRecord(id: id, userID: sender.userID, deviceID: sender.deviceID, length: nil,
                                                  offset: 0, metadata: "", created: Date(), expires: Date().addingTimeInterval(60)), limits: .unlimited)
        #expect(try await store.upload(id: id, user: sender.userID).length == nil)
        try await store.setUploadOffset(id: id, offset: 25, sha256: nil)
        #expect(try await store.usage(user: sender.userID) == 25)
        func send(_ transfer: String) async throws -> OutboxEntry {
            try await store.createTransfer(id: transfer, upload: id, blobID: "b-\(transfer)", sender: sender, devices: [phone.deviceID],
                                           groups: [], expires: Date().addingTimeInterval(60), now: Date())
        }
        await #expect(throws: StoreError.conflict("upload \"\(id)\" is not finished (25 of a length not yet declared)")) { try await send("t0") }
        #expect(try await store.inbox(device: phone.deviceID).isEmpty)
        await #expect(throws: StoreError.invalid("upload \"\(id)\" already has 25 bytes, more than 24")) {
            try await store.setUploadLength(id: id, length: 24, quota: .max)
        }
        #expect(try await store.upload(id: id, user: sender.userID).length == nil)
        try await store.setUploadLength(id: id, length: 30, quota: .max)
        #expect(try await store.upload(id: id, user: sender.userID).length == 30)
        #expect(try await store.usage(user: sender.userID) == 30)
        for again: Int64 in [30, 40] {
            await #expect(throws: StoreError.conflict("upload \"\(id)\" already has its length (30 bytes)")) {
                try await store.setUploadLength(id: id, length: again, quota: .max)
            }
        }
        await #expect(throws: StoreError.notFound("no upload \"nope\"")) { try await store.setUploadLength(id: "nope", length: 1, quota: .max) }
        await #expect(throws: StoreError.conflict("upload \"\(id)\" is not finished (25 of 30 bytes)")) { try await send("t1") }
        try await store.setUploadOffset(id: id, offset: 30, sha256: String(repeating: "b", count: 64))
        _ = try await send("t2")
        #expect(try await store.inbox(device: phone.deviceID).map(\.size) == [30])
    }

    @Test("upload creation: the quota and the cap on a user's uploads are checked in the transaction that adds one; 20 at once never pass them",
          arguments: Backend.allCases)
    func uploadLimits(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example")[0]
        let bob = try await fixture.user("bob@acme.example")[0]
        @Sendable func record(_ identity: DeviceIdentity, _ length: Int64?) -> UploadRecord {
            UploadRecord(id: "up-\(UUID().uuidString)", userID: identity.userID, deviceID: identity.deviceID, length: length,
                         offset: 0, metadata: "", created: Date(), expires: Date().addingTimeInterval(60))
        }
        let limits = UploadLimits(quota: 1000, openUploads: 3)
        // 20 creations of 400 bytes at once under 1000: two fit, the others are refused by the quota.
        let refusals = try await attemptAtOnce(20, refused: UploadRefusal.self) { _ in
            try await store.createUpload(record(alice, 400), limits: limits)
        }
        #expect(refusals.filter { $0 == nil }.count == 2)
        #expect(refusals.compactMap { $0 } == Array(repeating: .quota(used: 800, quota: 1000), count: 18))
        #expect(try await store.usage(user: alice.userID) == 800)
        // A zero-byte upload is free of the quota, not of the cap: the third fits, a fourth (deferred) is refused.
        let empty = record(alice, 0)
        try await store.createUpload(empty, limits: limits)
        await #expect(throws: UploadRefusal.tooManyOpen(3)) { try await store.createUpload(record(alice, nil), limits: limits) }
        // A deleted upload frees its place; Bob has a quota and a cap of his own.
        try await store.deleteUpload(id: empty.id, user: alice.userID)
        try await store.createUpload(record(alice, nil), limits: limits)
        try await store.createUpload(record(bob, 1000), limits: limits)
        await #expect(throws: UploadRefusal.quota(used: 1000, quota: 1000)) { try await store.createUpload(record(bob, 1), limits: limits) }

        // Lengths declared later, 20 at once: 400 bytes each (5 already held) under 1000, two fit.
        let carol = try await fixture.user("carol@acme.example")[0]
        var deferred = [String]()
        for _ in 0..<20 {
            let upload = record(carol, nil)
            try await store.createUpload(upload, limits: .unlimited)
            try await store.setUploadOffset(id: upload.id, offset: 5, sha256: nil)
            deferred.append(upload.id)
        }
        let declared = try await withThrowingTaskGroup(of: Bool.self) { group in
            for id in deferred {
                group.addTask {
                    do {
                        try await store.setUploadLength(id: id, length: 400, quota: 1000)
                        return true
                    } catch UploadRefusal.quota {
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(declared.filter { $0 }.count == 2)
        #expect(try await store.usage(user: carol.userID) == 800 + 18 * 5)
    }

    @Test("streaming transfers (issue 26): made of a running upload, uploading until it ends, then its blob with a reference per waiting copy",
          arguments: Backend.allCases)
    func streamingTransfers(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example", devices: 3)
        let (sender, phone, tablet) = (alice[0], alice[1].deviceID, alice[2].deviceID)
        func running(_ id: String, length: Int64?) async throws {
            try await store.createUpload(UploadRecord(id: id, userID: sender.userID, deviceID: sender.deviceID, length: length, offset: 0,
                                                      metadata: "", created: Date(), expires: Date().addingTimeInterval(60)), limits: .unlimited)
        }
        let upload = "up-running"
        try await running(upload, length: nil)
        try await store.setUploadOffset(id: upload, offset: 5, sha256: nil)
        let entry = try await store.createStreamingTransfer(id: "t1", upload: upload, sender: sender, devices: [phone, tablet], groups: [], users: [],
                                                            expires: Date().addingTimeInterval(60), now: Date())
        #expect(entry.recipients.map(\.status) == [.uploading, .uploading])
        #expect(try await store.inbox(device: phone).map(\.status) == [.uploading])
        #expect(try await store.events(device: phone, after: 0, limit: 10).count == 1)
        #expect(try await store.streamingTransfer(upload: upload) == "t1")
        // One transfer per upload.
        await #expect(throws: StoreError.conflict("upload \"\(upload)\" already is a transfer")) {
            try await store.createStreamingTransfer(id: "t2", upload: upload, sender: sender, devices: [phone], groups: [], users: [],
                                                    expires: Date().addingTimeInterval(60), now: Date())
        }
        #expect(try await store.openTransfer(id: "t1", device: phone, now: Date()) == .uploading(upload: upload))
        #expect(try await store.streamState(transfer: "t1", device: phone) == .uploading(offset: 5))
        // Its size is the upload's while it runs (counted once).
        #expect(try await store.usage(user: sender.userID) == 5)
        // A copy declined meanwhile holds no reference, and its device's reads end.
        #expect(try await store.finishTransfer(id: "t1", device: tablet, status: .declined, now: Date()).isEmpty)
        #expect(try await store.streamState(transfer: "t1", device: tablet) == .gone)
        try await store.setUploadLength(id: upload, length: 8, quota: .max)
        try await store.setUploadOffset(id: upload, offset: 8, sha256: String(repeating: "b", count: 64))
        let blob = BlobRef(id: "b1", size: 8, sha256: String(repeating: "b", count: 64))
        #expect(try await store.completeStreamingTransfer(upload: upload, blobID: "b1", now: Date()) == .blob(blob))
        #expect(try await store.streamState(transfer: "t1", device: phone) == .finished(blob))
        #expect(try await store.inbox(device: phone).map(\.status) == [.initiated])
        #expect(try await store.inbox(device: phone).map(\.size) == [8])
        #expect(try await store.referenceAudit().map(\.refs) == [1])
        #expect(try await store.completeStreamingTransfer(upload: upload, blobID: "b2", now: Date()) == .noTransfer)
        #expect(try await store.finishTransfer(id: "t1", device: phone, status: .delivered, now: Date()) == ["b1"])
        #expect(try await store.usage(user: sender.userID) == 0)

        // Cancelled while it uploads: its copies go, its readers see it gone, and the end makes no blob.
        let second = "up-second"
        try await running(second, length: 4)
        _ = try await store.createStreamingTransfer(id: "t3", upload: second, sender: sender, devices: [phone], groups: [], users: [],
                                                    expires: Date().addingTimeInterval(60), now: Date())
        // Its upload goes with it: its bytes and quota are freed at once (issue 44).
        let cancelled = try await store.cancelTransfer(id: "t3", sender: sender.deviceID, now: Date())
        #expect(cancelled.released.isEmpty && cancelled.upload == second)
        #expect(try await store.streamState(transfer: "t3", device: phone) == .gone)
        #expect(try await store.usage(user: sender.userID) == 0)
        #expect(try await store.referenceAudit().isEmpty)
        await #expect(throws: StoreError.notFound("no upload \"\(second)\"")) { try await store.upload(id: second, user: sender.userID) }

        // A finished upload is not made a streaming transfer (the ordinary way takes it).
        let finished = try await fixture.finishedUpload(sender)
        await #expect(throws: StoreError.conflict("upload \"\(finished)\" is finished")) {
            try await store.createStreamingTransfer(id: "t4", upload: finished, sender: sender, devices: [phone], groups: [], users: [],
                                                    expires: Date().addingTimeInterval(60), now: Date())
        }
        // An upload abandoned (terminated) before it ended: its readers see it gone.
        let third = "up-third"
        try await running(third, length: nil)
        _ = try await store.createStreamingTransfer(id: "t5", upload: third, sender: sender, devices: [phone], groups: [], users: [],
                                                    expires: Date().addingTimeInterval(60), now: Date())
        try await store.deleteUpload(id: third, user: sender.userID)
        #expect(try await store.streamState(transfer: "t5", device: phone) == .gone)
        #expect(try await store.inbox(device: phone).isEmpty)
        #expect(try await store.outbox(device: sender.deviceID).first { $0.id == "t5" }?.recipients.map(\.status) == [.cancelled])
        #expect(try await fixture.referencesHold())
    }

    @Test("two racing finishes of one copy: exactly one wins, the reference count stays right", arguments: Backend.allCases)
    func racingFinishes(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example", devices: 3)
        for n in 0..<10 {
            let upload = try await fixture.finishedUpload(alice[0])
            _ = try await store.createTransfer(id: "t\(n)", upload: upload, blobID: "b\(n)", sender: alice[0],
                                               devices: [alice[1].deviceID, alice[2].deviceID], groups: [],
                                               expires: Date().addingTimeInterval(60), now: Date())
        }
        let wins = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for n in 0..<10 {
                for _ in 0..<4 {
                    group.addTask {
                        do {
                            _ = try await store.finishTransfer(id: "t\(n)", device: alice[1].deviceID, status: .delivered, now: Date())
                            return (n, true)
                        } catch StoreError.notFound { return (n, false) }
                    }
                }
                group.addTask {
                    _ = try await store.cancelTransfer(id: "t\(n)", sender: alice[0].deviceID, now: Date())
                    return (n, false)
                }
            }
            return try await group.reduce(into: [Int: Int]()) { $0[$1.0, default: 0] += $1.1 ? 1 : 0 }
        }
        // A copy is finished once at most (the cancel may have expired it first).
        #expect(wins.values.allSatisfy { $0 <= 1 })
        #expect(try await fixture.referencesHold())
        #expect(try await store.referenceAudit().isEmpty)
    }

    @Test("events: per device, in order, after an id; organisation-wide to live devices", arguments: Backend.allCases)
    func events(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example", devices: 2)
        let start = try await store.lastEventID()
        try await store.appendEvent(kind: .alert, data: "{\"n\":1}", devices: [alice[0].deviceID], now: Date())
        try await store.appendEvent(kind: .alert, data: "{\"n\":2}", devices: [alice[0].deviceID, alice[1].deviceID], now: Date())
        let org = try await store.appendEventToOrganisation(kind: .alert, data: "{\"n\":3}", org: alice[0].orgID, now: Date())
        #expect(Set(org) == Set(alice.map(\.deviceID)))
        let first = try await store.events(device: alice[0].deviceID, after: start, limit: 10)
        #expect(first.map(\.data) == ["{\"n\":1}", "{\"n\":2}", "{\"n\":3}"])
        #expect(first.map(\.id) == first.map(\.id).sorted())
        #expect(try await store.events(device: alice[0].deviceID, after: first[0].id, limit: 1).map(\.data) == ["{\"n\":2}"])
        #expect(Set(try await store.devicesWithEvents(after: first[1].id)) == Set(alice.map(\.deviceID)))
        #expect(try await store.lastEventID() >= first[2].id)
    }

    @Test("event notifications: a listener (on PostgreSQL one of another store on the database) hears the devices of stored events, of a transfer and of a logout, whose events are readable by then",
          arguments: Backend.allCases)
    func eventNotifications(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example", devices: 3)
        var other: PostgresRelayStore?
        if let url = fixture.database {
            var logger = Logger(label: "store-test")
            logger.logLevel = .critical
            other = try await PostgresRelayStore(location: try #require(PostgresLocation(url: url)), migrate: false, logger: logger)
        }
        let listening: any RelayStore = other ?? store
        let heard = HeardDevices()
        let listener = Task {
            try await listening.eventNotifications.listenForEvents { device in heard.append(device) }
        }
        defer { listener.cancel() }
        func wait(for device: String, storing: () async throws -> Void) async throws {
            let deadline = Date().addingTimeInterval(60)
            // The listener may not be listening yet: store again until it hears one.
            while !heard.contains(device) {
                #expect(Date() < deadline, "no notification for \(device)")
                guard Date() < deadline else { return }
                try await storing()
                for _ in 0..<20 where !heard.contains(device) { try await Task.sleep(for: .milliseconds(25)) }
            }
        }
        try await wait(for: alice[0].deviceID) {
            try await store.appendEvent(kind: .alert, data: "{}", devices: [alice[0].deviceID], now: Date())
        }
        // Events are readable by the time anyone is woken for them.
        #expect(try await !listening.events(device: alice[0].deviceID, after: 0, limit: 1).isEmpty)
        let upload = try await fixture.finishedUpload(alice[0])
        _ = try await store.createTransfer(id: "t1", upload: upload, blobID: "b1", sender: alice[0], devices: [alice[2].deviceID],
                                           groups: [], expires: Date().addingTimeInterval(600), now: Date())
        try await wait(for: alice[2].deviceID) {}
        _ = try await store.invalidateDevice(id: alice[1].deviceID, user: alice[1].userID, now: Date())
        try await wait(for: alice[1].deviceID) {}
        #expect(try await store.events(device: alice[1].deviceID, after: 0, limit: 10).map(\.kind) == [.logout])
        listener.cancel()
        _ = await listener.result
        await other?.shutdown()
    }

    @Test("policy items: versions, revision, conflicts, preconditions", arguments: Backend.allCases)
    func items(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let admin = try await fixture.user("alice@acme.example", admin: true)[0]
        let revision = try await store.itemsRevision(org: admin.orgID)
        let created = try await store.createItem(ItemDraft(app: "okular"), id: "i1", actor: admin, now: Date())
        #expect(created.version == 1)
        await #expect(throws: StoreError.conflict("app \"okular\" already has an item (i1)")) {
            try await store.createItem(ItemDraft(app: "okular"), id: "i2", actor: admin, now: Date())
        }
        await #expect(throws: StoreError.preconditionFailed("item \"i1\" changed since (now version 1)")) {
            try await store.updateItem(id: "i1", ItemDraft(app: "okular", name: "x"), ifVersion: 7, actor: admin, now: Date())
        }
        let updated = try await store.updateItem(id: "i1", ItemDraft(app: "okular", name: "Okular"), ifVersion: 1, actor: admin, now: Date())
        #expect(updated.version == 2 && updated.item.name == "Okular")
        let read = try await store.item(id: "i1", org: admin.orgID)
        #expect(read.version == 2 && read.item.name == "Okular" && read.item.app == "okular")
        #expect(try await store.items(org: admin.orgID).map(\.item.app) == ["okular"])
        try await store.deleteItem(id: "i1", ifVersion: 2, actor: admin, now: Date())
        await #expect(throws: StoreError.notFound("no item \"i1\"")) { try await store.item(id: "i1", org: admin.orgID) }
        #expect(try await store.itemsRevision(org: admin.orgID) == revision + 3)
    }

    @Test("cloud: folders, files, replace, move, recursive delete; the replaced and removed files' versions keep their blobs (issue 50)", arguments: Backend.allCases)
    func cloud(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example")[0]
        let user = alice.userID
        _ = try await store.cloudMakeFolder(path: ["docs"], id: "f1", user: user, maxEntries: 100, now: Date())
        await #expect(throws: StoreError.conflict("\"/docs\" already exists")) {
            try await store.cloudMakeFolder(path: ["docs"], id: "f2", user: user, maxEntries: 100, now: Date())
        }
        let (file, released) = try await store.cloudPut(path: ["docs", "a.age"], id: "c1", upload: try await fixture.finishedUpload(alice),
                                                        blobID: "b1", user: user, device: "dev", expecting: .any, maxEntries: 100, now: Date())
        #expect(file.path == "/docs/a.age" && released.isEmpty)
        let (again, replaced) = try await store.cloudPut(path: ["docs", "a.age"], id: "c2", upload: try await fixture.finishedUpload(alice),
                                                         blobID: "b2", user: user, device: "dev", expecting: .any, maxEntries: 100, now: Date())
        #expect(again.id == "c1" && replaced.isEmpty)
        #expect(try await store.cloudFile(path: ["docs", "a.age"], user: user).id == "b2")
        let (here, children) = try await store.cloudList(path: ["docs"], user: user)
        #expect(here.kind == .folder && children.map(\.name) == ["a.age"])
        await #expect(throws: StoreError.conflict("cannot move a folder into itself")) {
            try await store.cloudMove(from: ["docs"], to: ["docs", "inner"], user: user, now: Date())
        }
        let moved = try await store.cloudMove(from: ["docs"], to: ["papers"], user: user, now: Date())
        #expect(moved.path == "/papers")
        #expect(try await store.cloudFile(path: ["papers", "a.age"], user: user).id == "b2")
        // The file's 10 bytes, and the 10 of the version it replaced (b1, which only that version holds).
        #expect(try await store.usage(user: user) == 20)
        #expect(try await store.cloudDelete(path: ["papers"], user: user, now: Date()).isEmpty)
        #expect(try await store.cloudList(path: [], user: user).1.isEmpty)
        #expect(try await store.referenceAudit().map(\.id) == ["b1", "b2"])
        #expect(try await fixture.referencesHold())
    }

    @Test("cloud versions (issue 50): a put names what it replaces; of 10 puts at once based on the same version exactly one passes, the others are refused notHead and change nothing; create refuses a file that is there; a move and a rekey keep the version, a delete ends it",
          arguments: Backend.allCases)
    func cloudVersionCompareAndSet(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example")[0]
        let user = alice.userID, device = alice.deviceID
        let (first, _) = try await store.cloudPut(path: ["a.age"], id: "c1", upload: try await fixture.finishedUpload(alice), blobID: "b1",
                                                  user: user, device: device, expecting: .absent, maxEntries: 100, now: Date())
        let v1 = try #require(first.version)
        #expect(try await store.cloudList(path: [], user: user).1.map(\.version) == [v1])
        #expect(try await store.cloudList(path: ["a.age"], user: user).0.version == v1)
        let late = try await fixture.finishedUpload(alice)
        await #expect(throws: CloudRefusal.notHead(path: "/a.age", head: v1)) {
            try await store.cloudPut(path: ["a.age"], id: "c2", upload: late, blobID: "b2", user: user, device: device,
                                     expecting: .absent, maxEntries: 100, now: Date())
        }
        var uploads = [String]()
        for _ in 0..<10 { uploads.append(try await fixture.finishedUpload(alice)) }
        let racing = uploads
        let refusals = try await attemptAtOnce(10, refused: CloudRefusal.self) { n in
            _ = try await store.cloudPut(path: ["a.age"], id: "x\(n)", upload: racing[n], blobID: "n\(n)", user: user, device: device,
                                         expecting: .version(v1), maxEntries: 100, now: Date())
        }
        #expect(refusals.filter { $0 == nil }.count == 1)
        let v2 = try #require(try await store.cloudList(path: [], user: user).1.first?.version)
        #expect(v2 != v1)
        #expect(refusals.compactMap { $0 } == Array(repeating: .notHead(path: "/a.age", head: v2), count: 9))
        // The refused puts changed nothing: one file, its blob the winner's, every reference counted.
        let winner = try await store.cloudFile(path: ["a.age"], user: user).id
        #expect(winner.hasPrefix("n") && winner != "b1")
        #expect(try await fixture.referencesHold())
        // A move and a rekey keep the version; a put based on it then passes.
        let moved = try await store.cloudMove(from: ["a.age"], to: ["b.age"], user: user, now: Date())
        #expect(moved.version == v2)
        let (rekeyed, _) = try await store.cloudReplaceBlob(path: ["b.age"], expected: try await store.cloudFile(path: ["b.age"], user: user).sha256,
                                                            with: BlobRef(id: "r1", size: 5, sha256: "abc"), user: user, now: Date())
        #expect(rekeyed.version == v2)
        let (third, _) = try await store.cloudPut(path: ["b.age"], id: "c3", upload: late, blobID: "b3", user: user, device: device,
                                                  expecting: .version(v2), maxEntries: 100, now: Date())
        let v3 = try #require(third.version)
        #expect(third.id == first.id && v3 != v2)
        // Removed: a put based on its last version is refused (no file there), -f's .any is not.
        _ = try await store.cloudDelete(path: ["b.age"], user: user, now: Date())
        let after = try await fixture.finishedUpload(alice)
        await #expect(throws: CloudRefusal.notHead(path: "/b.age", head: nil)) {
            try await store.cloudPut(path: ["b.age"], id: "c4", upload: after, blobID: "b4", user: user, device: device,
                                     expecting: .version(v3), maxEntries: 100, now: Date())
        }
        let (fresh, _) = try await store.cloudPut(path: ["b.age"], id: "c4", upload: after, blobID: "b4", user: user, device: device,
                                                  expecting: .any, maxEntries: 100, now: Date())
        #expect(fresh.version != nil && fresh.version != v3)
        #expect(try await fixture.referencesHold())
    }

    @Test("cloud history (issue 50): a replaced, moved or removed file keeps its versions, each holding its blob; the log, the trash and a restore of the tree as it was read them; a file stored before versions were kept keeps its content too; every reference counted",
          arguments: Backend.allCases)
    func cloudHistory(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example")[0]
        let user = alice.userID, device = alice.deviceID
        func put(_ path: [String], _ blob: String, expecting: CloudPut.Expectation = .any) async throws -> (CloudEntry, [String]) {
            try await store.cloudPut(path: path, id: Secrets.id(), upload: try await fixture.finishedUpload(alice), blobID: blob, user: user,
                                     device: device, expecting: expecting, maxEntries: 100, now: Date())
        }
        _ = try await store.cloudMakeFolder(path: ["p"], id: Secrets.id(), user: user, maxEntries: 100, now: Date())
        let (a1, _) = try await put(["p", "a"], "a1")
        _ = try await put(["p", "b"], "b1")
        // A file stored before versions were kept: no row in cloud_versions.
        let (old, _) = try await put(["p", "old"], "o1")
        try await #require(store as? any SQLRelayStore).sql.database.write { db in
            try await db.run("DELETE FROM cloud_versions WHERE file_id = \(old.id)")
            try await db.run("UPDATE blobs SET refs = refs - 1 WHERE id = 'o1'")
        }
        #expect(try await fixture.referencesHold())
        let t1 = Date()

        // Replaced, removed, moved: nothing released, every blob still referenced.
        let (a2, released) = try await put(["p", "a"], "a2", expecting: .version(try #require(a1.version)))
        #expect(released.isEmpty && a2.version != a1.version && a2.id == a1.id)
        #expect(try await store.cloudDelete(path: ["p", "b"], user: user, now: Date()).isEmpty)
        #expect(try await store.cloudDelete(path: ["p", "old"], user: user, now: Date()).isEmpty)
        _ = try await store.cloudMove(from: ["p", "a"], to: ["p", "c"], user: user, now: Date())
        #expect(try await fixture.referencesHold())
        #expect(Set(try await store.referenceAudit().map(\.id)) == ["a1", "a2", "b1", "o1"])
        let t2 = Date()

        // The log of the moved file: its row under the new path, then its two versions at the old one.
        let logC = try await store.cloudLog(path: ["p", "c"], user: user)
        #expect(logC.map(\.path) == ["/p/c", "/p/a", "/p/a"])
        #expect(logC.map(\.version) == [a2.version, a2.version, a1.version].compactMap { $0 })
        #expect(logC.allSatisfy { $0.device == device } && logC.first?.until == nil && logC.dropFirst().allSatisfy { $0.until != nil })
        // What was at /p/a (nothing is there now).
        #expect(try await store.cloudLog(path: ["p", "a"], user: user).map(\.version) == [a2.version, a1.version].compactMap { $0 })
        await #expect(throws: StoreError.self) { try await store.cloudLog(path: ["p", "never"], user: user) }
        let trash = try await store.cloudTrash(user: user)
        #expect(trash.map(\.path).sorted() == ["/p/b", "/p/old"])
        #expect(trash.first { $0.path == "/p/old" }?.version == old.id)
        let first = try #require(logC.last)
        #expect(try await store.cloudVersionBlob(id: first.id, user: user).id == "a1")
        await #expect(throws: StoreError.self) { try await store.cloudVersionBlob(id: "none", user: user) }
        let bob = try await fixture.user("bob@acme.example")[0]
        await #expect(throws: StoreError.self) { try await store.cloudVersionBlob(id: first.id, user: bob.userID) }
        await #expect(throws: StoreError.self) { try await store.cloudLog(path: ["p", "c"], user: bob.userID) }
        #expect(try await store.cloudTrash(user: bob.userID).isEmpty)

        // The tree at t1: /p/a (its first version), /p/b and /p/old back, /p/c gone.
        func restore(_ path: [String], at time: Date, recursive: Bool = true) async throws -> CloudRestored {
            try await store.cloudRestore(path: path, at: time, recursive: recursive, user: user, device: device, maxEntries: 100, now: Date()).0
        }
        let back = try await restore(["p"], at: t1)
        #expect(back.restored.map(\.path) == ["/p/a", "/p/b", "/p/old"] && back.removed == ["/p/c"])
        #expect(back.restored.first?.version == a1.version)
        #expect(try await store.cloudFile(path: ["p", "a"], user: user).id == "a1")
        #expect(try await store.cloudFile(path: ["p", "b"], user: user).id == "b1")
        #expect(try await store.cloudFile(path: ["p", "old"], user: user).id == "o1")
        #expect(try await store.cloudList(path: ["p"], user: user).1.map(\.name) == ["a", "b", "old"])
        #expect(try await fixture.referencesHold())
        // Again: nothing to change. A folder without recursive, a time with nothing there: refused.
        let again = try await restore(["p"], at: t1)
        #expect(again.restored.isEmpty && again.removed.isEmpty)
        await #expect(throws: StoreError.self) { try await restore(["p"], at: t1, recursive: false) }
        await #expect(throws: StoreError.self) { try await restore(["p"], at: Date(timeIntervalSince1970: 1)) }
        // The tree at t2 (c, the second version), then one file alone back at t1.
        let second = try await restore(["p"], at: t2)
        #expect(second.restored.map(\.path) == ["/p/c"] && second.removed == ["/p/a", "/p/b", "/p/old"])
        #expect(try await store.cloudFile(path: ["p", "c"], user: user).id == "a2")
        let single = try await restore(["p", "b"], at: t1, recursive: false)
        #expect(single.restored.map(\.path) == ["/p/b"] && single.removed.isEmpty)
        #expect(try await store.cloudList(path: ["p"], user: user).1.map(\.name) == ["b", "c"])
        #expect(try await fixture.referencesHold())

        // Removing the user releases every version's blob.
        let removed = try await store.removeUser(email: "alice@acme.example", now: Date())
        #expect(Set(removed.blobs) == ["a1", "a2", "b1", "o1"])
        #expect(try await store.referenceAudit().isEmpty)
    }

    @Test("cloud entries: a user holds at most maxEntries files and folders, checked as one is added; 20 mkdirs at once never pass it; a replaced file adds none",
          arguments: Backend.allCases)
    func cloudEntryCap(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store, alice = try await fixture.user("alice@acme.example")[0], user = alice.userID
        _ = try await store.cloudPut(path: ["a.age"], id: "c1", upload: try await fixture.finishedUpload(alice), blobID: "b1",
                                     user: user, device: "dev", expecting: .any, maxEntries: 3, now: Date())
        // 20 folders at once under a cap of 3 with one file held: two are made, the others refused.
        let refusals = try await attemptAtOnce(20, refused: CloudRefusal.self) { n in
            _ = try await store.cloudMakeFolder(path: ["d\(n)"], id: "f\(n)", user: user, maxEntries: 3, now: Date())
        }
        #expect(refusals.filter { $0 == nil }.count == 2)
        #expect(refusals.compactMap { $0 } == Array(repeating: .tooManyEntries(3), count: 18))
        let held = try await store.cloudList(path: [], user: user).1
        #expect(held.count == 3)
        // A new file is refused and its upload kept; replacing a file there adds no entry.
        let upload = try await fixture.finishedUpload(alice)
        await #expect(throws: CloudRefusal.tooManyEntries(3)) {
            try await store.cloudPut(path: ["b.age"], id: "c2", upload: upload, blobID: "b2", user: user, device: "dev", expecting: .any, maxEntries: 3, now: Date())
        }
        let (replaced, released) = try await store.cloudPut(path: ["a.age"], id: "c3", upload: try await fixture.finishedUpload(alice),
                                                            blobID: "b3", user: user, device: "dev", expecting: .any, maxEntries: 3, now: Date())
        #expect(replaced.id == "c1" && released.isEmpty)
        // A deleted folder frees its place: the kept upload goes in now; Bob counts his own.
        let folder = try #require(held.first { $0.kind == .folder })
        _ = try await store.cloudDelete(path: [folder.name], user: user, now: Date())
        let (file, _) = try await store.cloudPut(path: ["b.age"], id: "c2", upload: upload, blobID: "b2", user: user, device: "dev", expecting: .any, maxEntries: 3, now: Date())
        #expect(file.path == "/b.age")
        let bob = try await fixture.user("bob@acme.example")[0]
        _ = try await store.cloudMakeFolder(path: ["d0"], id: "g0", user: bob.userID, maxEntries: 3, now: Date())
        #expect(try await store.referenceAudit().allSatisfy { $0.refs == $0.live })
    }

    @Test("gc recounts references from live rows and drops rows without files", arguments: Backend.allCases)
    func garbage(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example", devices: 2)
        for n in 0..<2 {
            _ = try await store.createTransfer(id: "t\(n)", upload: try await fixture.finishedUpload(alice[0]), blobID: "b\(n)",
                                               sender: alice[0], devices: [alice[1].deviceID], groups: [],
                                               expires: Date().addingTimeInterval(60), now: Date())
        }
        let (report, delete) = try await store.collectGarbage(files: ["b0", "stray"], fileExists: { _ in false },
                                                              eventsBefore: Date().addingTimeInterval(10), now: Date())
        #expect(report.orphanRows == 1)
        #expect(report.orphanFiles == 1)
        #expect(delete == ["stray"])
        #expect(report.prunedEvents >= 2)
        #expect(try await store.referenceAudit().map(\.id) == ["b0"])
        #expect(try await store.inbox(device: alice[1].deviceID).map(\.id) == ["t0"])
    }

    @Test("enrolment throttle: a right code resets the count; the limit locks the address out until the lockout ends",
          arguments: Backend.allCases)
    func throttle(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let throttle = EnrolmentThrottle(store: fixture.store, limit: 5, lockout: 60)
        let now = Date()
        for _ in 0..<4 { try await throttle.failed("a", now: now) }
        try await throttle.succeeded("a")
        for _ in 0..<4 { try await throttle.failed("a", now: now) }
        #expect(try await throttle.blocked("a", now: now) == nil)
        try await throttle.failed("a", now: now)
        #expect(try await throttle.blocked("a", now: now) == 60)
        #expect(try await throttle.blocked("b", now: now) == nil)
        #expect(try await throttle.blocked("a", now: now.addingTimeInterval(61)) == nil)
    }

    @Test("the maintenance lock: a second holder is refused while the first runs", arguments: Backend.allCases)
    func maintenanceLock(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let inner = try await store.withMaintenanceLock {
            try await store.withMaintenanceLock { 1 }
        }
        #expect(inner == .some(nil))
        #expect(try await store.withMaintenanceLock { 2 } == 2)
    }

    @Test("the upload writer lock: refused to a second holder of the upload (on PostgreSQL also through another store on the database) while the first holds it, free after, also after an error or a cancel",
          arguments: Backend.allCases)
    func uploadWriteLock(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example")[0]
        let id = "up-locked"
        try await store.createUpload(UploadRecord(id: id, userID: alice.userID, deviceID: alice.deviceID, length: 10, offset: 0,
                                                  metadata: "", created: Date(), expires: Date().addingTimeInterval(600)), limits: .unlimited)
        // A second relay instance: another store on the same database (PostgreSQL only; an
        // embedded relay is one process).
        var other: PostgresRelayStore?
        if let url = fixture.database {
            var logger = Logger(label: "store-test")
            logger.logLevel = .critical
            other = try await PostgresRelayStore(location: try #require(PostgresLocation(url: url)), migrate: false, logger: logger)
        }
        let inner = try await store.withUploadWriteLock(id) {
            // The store's own calls work inside (on PostgreSQL, on the lock's connection).
            try await store.setUploadOffset(id: id, offset: 5, sha256: nil)
            let same = try await store.withUploadWriteLock(id) { 1 }
            let elsewhere = try await other?.withUploadWriteLock(id) { 1 }
            let another = try await store.withUploadWriteLock("up-other") { 2 }
            return [same, elsewhere, another]
        }
        #expect(inner == [nil, nil, 2])
        #expect(try await store.upload(id: id, user: alice.userID).offset == 5)
        #expect(try await store.withUploadWriteLock(id) { 3 } == 3)
        if let other { #expect(try await other.withUploadWriteLock(id) { 3 } == 3) }
        await #expect(throws: StoreError.conflict("x")) {
            try await store.withUploadWriteLock(id) { () async throws -> Int in throw StoreError.conflict("x") }
        }
        #expect(try await store.withUploadWriteLock(id) { 4 } == 4)

        // A writer whose request is cancelled while it holds the lock lets it go.
        let holding = ManagedAtomicFlag()
        let holder = Task { try await store.withUploadWriteLock(id) { () async throws -> Int in
            holding.set()
            try await Task.sleep(for: .seconds(120))
            return 0
        } }
        for _ in 0..<1000 where !holding.isSet { try await Task.sleep(for: .milliseconds(10)) }
        #expect(holding.isSet)
        #expect(try await (other ?? store).withUploadWriteLock(id) { 0 } == nil)
        holder.cancel()
        await #expect(throws: CancellationError.self) { try await holder.value }
        #expect(try await store.withUploadWriteLock(id) { 5 } == 5)
        if let other {
            #expect(try await other.withUploadWriteLock(id) { 6 } == 6)
            await other.shutdown()
        }
    }

    @Test("gc running over and over while transfers finish, are cancelled, expire, go into the cloud and a device logs out: no error escapes, every count stays right",
          arguments: Backend.allCases)
    func garbageRacingTransfers(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example", devices: 4)
        let sender = alice[0], user = sender.userID
        let count = 40
        // Blob ids fall as transfers are made, so a change over several transfers meets
        // their blobs in the opposite order to gc's (which goes by id).
        for n in 0..<count {
            _ = try await store.createTransfer(id: "t\(n)", upload: try await fixture.finishedUpload(sender), blobID: "b\(1000 - n)",
                                               sender: sender, devices: [alice[1].deviceID, alice[2].deviceID, alice[3].deviceID],
                                               groups: [], expires: Date().addingTimeInterval(n % 5 == 0 ? -1 : 600), now: Date())
        }
        // gc is told that every eighth blob's file is gone (its rows go too).
        let missing = Set((0..<count).filter { $0 % 8 == 7 }.map { "b\(1000 - $0)" })
        let files = Set((0..<count).map { "b\(1000 - $0)" }).subtracting(missing)
        let escaped = try await withThrowingTaskGroup(of: [String].self) { group in
            let done = ManagedAtomicFlag()
            group.addTask {
                var errors = [String]()
                while !done.isSet {
                    do {
                        _ = try await store.collectGarbage(files: files, fileExists: { !missing.contains($0) },
                                                           eventsBefore: Date.distantPast, now: Date())
                    } catch { errors.append("gc: \(PostgresRelayStore.describe(error))") }
                }
                return errors
            }
            try await withThrowingTaskGroup(of: [String].self) { workers in
                func attempt(_ name: String, _ body: @escaping @Sendable () async throws -> Void) {
                    workers.addTask {
                        do { try await body() } catch StoreError.notFound {
                            // Finished, cancelled, expired or collected first: a fair answer.
                        } catch { return ["\(name): \(PostgresRelayStore.describe(error))"] }
                        return []
                    }
                }
                for n in 0..<count {
                    attempt("finish t\(n)") { _ = try await store.finishTransfer(id: "t\(n)", device: alice[1].deviceID, status: .delivered, now: Date()) }
                    attempt("decline t\(n)") { _ = try await store.finishTransfer(id: "t\(n)", device: alice[2].deviceID, status: .declined, now: Date()) }
                    if n % 4 == 0 {
                        attempt("cancel t\(n)") { _ = try await store.cancelTransfer(id: "t\(n)", sender: sender.deviceID, now: Date()) }
                    }
                    if n % 3 == 0 {
                        // Four names for fourteen files: most puts replace a file holding another blob.
                        attempt("cloud put t\(n)") {
                            _ = try await store.cloudPutTransfer(path: ["f\(n % 4)"], id: "c\(n)", transfer: "t\(n)", sender: sender.deviceID,
                                                                 user: user, expecting: .any, maxEntries: 100, now: Date())
                        }
                    }
                    if n % 10 == 5 { attempt("expire") { _ = try await store.expireTransfers(now: Date()) } }
                    if n == count / 2 {
                        attempt("logout") { _ = try await store.invalidateDevice(id: alice[3].deviceID, user: user, now: Date()) }
                        attempt("cloud delete") { _ = try await store.cloudDelete(path: ["f1"], user: user, now: Date()) }
                    }
                }
                try await workers.reduce(into: [String]()) { $0 += $1 }.forEach { error in
                    Issue.record("escaped: \(error)")
                }
            }
            done.set()
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(escaped.isEmpty, "\(escaped.prefix(3))")
        let wrong = try await store.referenceAudit().filter { $0.refs != $0.live }
        #expect(wrong.isEmpty, "\(wrong)")
        // Nothing left for another gc to repair.
        let (report, _) = try await store.collectGarbage(files: files, fileExists: { !missing.contains($0) },
                                                         eventsBefore: Date.distantPast, now: Date())
        #expect(report.fixedReferenceCounts == 0 && report.releasedBlobs == 0 && report.orphanRows == 0, "\(report)")
        #expect(try await store.referenceAudit().allSatisfy { $0.live > 0 })
    }

    @Test("policy grace, admin sign-in codes and sessions, organisation views, transfer and rekey puts into the cloud",
          arguments: Backend.allCases)
    func adminAndCloudAdditions(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let admin = try await fixture.user("alice@acme.example", admin: true, devices: 2)
        _ = try await fixture.user("bob@acme.example")
        #expect(try await store.policyGrace(org: admin[0].orgID) == nil)
        let revision = try await store.itemsRevision(org: admin[0].orgID)
        try await store.setPolicyGrace(org: admin[0].orgID, seconds: 3600, actor: admin[0], now: Date())
        #expect(try await store.policyGrace(org: admin[0].orgID) == 3600)
        #expect(try await store.itemsRevision(org: admin[0].orgID) == revision + 1)

        await #expect(throws: StoreError.invalid("user \"bob@acme.example\" is not an administrator")) {
            try await store.createLoginCode(email: "bob@acme.example", codeHash: "x", expires: Date().addingTimeInterval(60), now: Date())
        }
        try await store.createLoginCode(email: "alice@acme.example", codeHash: "lc", expires: Date().addingTimeInterval(60), now: Date())
        let session = try await store.signIn(codeHash: "lc", sessionHash: "s1", expires: Date().addingTimeInterval(60), now: Date())
        #expect(session?.email == "alice@acme.example")
        #expect(try await store.signIn(codeHash: "lc", sessionHash: "s2", expires: Date().addingTimeInterval(60), now: Date()) == nil)
        #expect(try await store.adminSession(hash: "s1", now: Date())?.userID == admin[0].userID)
        try await store.signOut(sessionHash: "s1", now: Date())
        #expect(try await store.adminSession(hash: "s1", now: Date()) == nil)

        let members = try await store.organisationMembers(org: admin[0].orgID)
        #expect(members.map(\.email) == ["alice@acme.example", "bob@acme.example"])
        #expect(members[0].devices.count == 2)
        let upload = try await fixture.finishedUpload(admin[0])
        _ = try await store.createTransfer(id: "t1", upload: upload, blobID: "b1", sender: admin[0], devices: [admin[1].deviceID],
                                           groups: [], expires: Date().addingTimeInterval(60), now: Date())
        #expect(try await store.organisationTransfers(org: admin[0].orgID).map(\.id) == ["t1"])
        #expect(try await store.auditLog(org: admin[0].orgID, matching: "policy.grace", limit: 10).map(\.action) == ["policy.grace"])

        // The transfer's blob becomes a cloud file too (one more reference), then is rekeyed.
        let (entry, released) = try await store.cloudPutTransfer(path: ["t.age"], id: "c1", transfer: "t1", sender: admin[0].deviceID,
                                                                 user: admin[0].userID, expecting: .any, maxEntries: 100, now: Date())
        #expect(entry.path == "/t.age" && released.isEmpty)
        // The copy waiting, the file and its version (issue 50).
        #expect(try await store.referenceAudit().map(\.refs) == [3])
        await #expect(throws: StoreError.preconditionFailed("the file changed: its SHA-256 is \(entry.sha256 ?? "")")) {
            try await store.cloudReplaceBlob(path: ["t.age"], expected: "0", with: BlobRef(id: "b2", size: 5, sha256: "b"),
                                             user: admin[0].userID, now: Date())
        }
        let (rekeyed, dropped) = try await store.cloudReplaceBlob(path: ["t.age"], expected: entry.sha256 ?? "",
                                                                  with: BlobRef(id: "b2", size: 5, sha256: "b"), user: admin[0].userID, now: Date())
        #expect(rekeyed.sha256 == "b" && dropped.isEmpty)
        #expect(try await fixture.referencesHold())
        #expect(try await store.finishTransfer(id: "t1", device: admin[1].deviceID, status: .delivered, now: Date()) == ["b1"])
    }
}
