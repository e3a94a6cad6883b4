import Foundation
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

/// Issue 50, item 3: an organisation's cloud version policy (`vfs-relay org set
/// --cloud-versions`), applied by the relay's sweep with the clock it is given; the blobs
/// of the versions dropped are freed, and the quota counts those kept. On both backends,
/// with the blob files of a folder blob store.
@Suite("cloud retention")
struct CloudRetentionTests {
    static let day: TimeInterval = 86400

    /// A user's cloud on one backend, its blob files in a folder, and the sweep over both.
    struct Cloud {
        let fixture: StoreFixture
        let alice: DeviceIdentity
        let blobs: FileBlobStore
        let maintenance: RelayMaintenance

        init(_ backend: Backend) async throws {
            fixture = try await StoreFixture.make(backend)
            alice = try await fixture.user("alice@acme.example")[0]
            let data = fixture.folder.appendingPathComponent("data")
            blobs = try FileBlobStore(root: data)
            maintenance = RelayMaintenance(store: fixture.store, blobs: blobs, configuration: RelayConfiguration(dataFolder: data))
        }

        var store: any RelayStore { fixture.store }

        /// Puts `path` at `time` as the blob `blob` (its file written first, as an upload's is).
        func put(_ path: [String], _ blob: String, at time: Date) async throws {
            FileManager.default.createFile(atPath: blobs.blobPath(blob), contents: Data(blob.utf8))
            _ = try await store.cloudPut(path: path, id: Secrets.id(), upload: try await fixture.finishedUpload(alice), blobID: blob,
                                         user: alice.userID, device: alice.deviceID, expecting: .any, maxEntries: 100, now: time)
        }

        func sweep(at time: Date) async throws -> GarbageReport {
            try #require(try await maintenance.sweepOnce(now: time))
        }

        /// The blob files, the blob rows and the rows' references all agree: no orphan, nothing lost.
        func blobFiles() async throws -> Set<String> {
            let files = blobs.blobs(olderThan: .distantFuture)
            #expect(Set(try await store.referenceAudit().map(\.id)) == files)
            #expect(try await fixture.referencesHold())
            return files
        }
    }

    /// When a version ended, with its UTC calendar day and ISO week (from Monday).
    struct End {
        var date: Date, day: DateComponents, week: DateComponents

        static let calendar: Calendar = {
            var calendar = Calendar(identifier: .iso8601)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            return calendar
        }()

        init(_ date: Date) {
            self.date = date
            day = Self.calendar.dateComponents([.year, .month, .day], from: date)
            week = Self.calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: date)
        }
    }

    /// The staggered schedule worked out again from the versions' end times, with the
    /// calendar: at `now`, which of the versions that ended at `ends` (by index) it
    /// promises to keep.
    static func promised(_ ends: [End], now: Date) -> Set<Int> {
        var newestOfDay = [DateComponents: Int](), newestOfWeek = [DateComponents: Int]()
        for (n, end) in ends.enumerated() {
            if newestOfDay[end.day].map({ ends[$0].date < end.date }) ?? true { newestOfDay[end.day] = n }
            if newestOfWeek[end.week].map({ ends[$0].date < end.date }) ?? true { newestOfWeek[end.week] = n }
        }
        return Set(ends.indices.filter { n in
            let age = now.timeIntervalSince(ends[n].date)
            if age < day { return true }
            if age < 30 * day { return newestOfDay[ends[n].day] == n }
            if age < 365 * day { return newestOfWeek[ends[n].week] == n }
            return false
        })
    }

    @Test("the sweep, on a fake clock over 400 days of puts every 6 h 17 min (a file removed on day 3 in its trash), keeps after each day's sweep exactly the versions the staggered schedule promises, worked out again from the put times with the calendar, and frees every other blob: the blob files are those of the versions kept",
          arguments: Backend.allCases)
    func staggeredOverAYear(_ backend: Backend) async throws {
        let cloud = try await Cloud(backend)
        let store = cloud.store, user = cloud.alice.userID
        // 2025-01-01 03:33:20 UTC, a Wednesday.
        let start = Date(timeIntervalSince1970: 1_735_702_400)
        let step: TimeInterval = 6 * 3600 + 17 * 60
        var puts = [Date]()
        var ends = [End]()
        var removed: Date?
        try await cloud.put(["old.age"], "old", at: start)
        var time = start
        var sweptDays = 0
        var dropped = 0
        while time < start.addingTimeInterval(400 * Self.day) {
            try await cloud.put(["notes.age"], "n\(puts.count)", at: time)
            // Version n ended with put n + 1; the last put is the head.
            if !puts.isEmpty { ends.append(End(time)) }
            puts.append(time)
            if removed == nil, time >= start.addingTimeInterval(3 * Self.day) {
                #expect(try await store.cloudDelete(path: ["old.age"], user: user, now: time).isEmpty)
                removed = time
            }
            let next = time.addingTimeInterval(step)
            if next >= start.addingTimeInterval(Double(sweptDays + 1) * Self.day) {
                sweptDays += 1
                let now = time.addingTimeInterval(60)
                dropped += try await cloud.sweep(at: now).droppedVersions
                let promised = Self.promised(ends, now: now)
                let log = try await store.cloudLog(path: ["notes.age"], user: user)
                #expect(log.first?.until == nil && log.first?.since == puts.last)
                #expect(Set(log.dropFirst().map(\.since)) == Set(promised.map { puts[$0] }), "day \(sweptDays)")
                let trash = try await store.cloudTrash(user: user).map(\.path)
                let trashKept = removed.map { now.timeIntervalSince($0) < 365 * Self.day } ?? false
                #expect(trash == (trashKept ? ["/old.age"] : []), "day \(sweptDays)")
                var expected = Set(promised.map { "n\($0)" } + ["n\(puts.count - 1)"])
                if removed == nil || trashKept { expected.insert("old") }
                #expect(try await cloud.blobFiles() == expected, "day \(sweptDays)")
            }
            time = next
        }
        #expect(sweptDays == 400)
        // The schedule at the end: a day's every version, 29 more days one each, weeks to a year.
        let kept = try await store.cloudLog(path: ["notes.age"], user: user).count - 1
        #expect((75...90).contains(kept), "\(kept) versions kept")
        #expect(dropped == puts.count - 1 - kept + 1)
    }

    @Test("policies: all keeps every version, days:N those younger than N days, none only the heads (a move's older row goes, the blob the head shares stays); the quota counts the blobs only versions hold, once each, and a put past it is refused until a sweep frees them; the setting reads back and is audited",
          arguments: Backend.allCases)
    func policies(_ backend: Backend) async throws {
        let cloud = try await Cloud(backend)
        let store = cloud.store, user = cloud.alice.userID, org = cloud.alice.orgID
        let t0 = Date(timeIntervalSince1970: 1_735_702_400)
        func hours(_ n: Double) -> Date { t0.addingTimeInterval(n * 3600) }
        #expect(try await store.cloudVersionPolicy(org: org) == .staggered)
        try await store.setCloudVersionPolicy(org: org, policy: .all, now: t0)
        #expect(try await store.cloudVersionPolicy(org: org) == .all)
        try await cloud.put(["a.age"], "a0", at: hours(0))
        try await cloud.put(["a.age"], "a1", at: hours(1))
        try await cloud.put(["a.age"], "a2", at: hours(2))
        try await cloud.put(["b.age"], "b0", at: hours(0))
        _ = try await store.cloudDelete(path: ["b.age"], user: user, now: hours(0.5))
        // e0 moved, then replaced: two ended rows hold it, its bytes count once.
        try await cloud.put(["e.age"], "e0", at: hours(0))
        _ = try await store.cloudMove(from: ["e.age"], to: ["f.age"], user: user, now: hours(0.2))
        try await cloud.put(["f.age"], "e1", at: hours(0.3))

        // all: nothing goes, however old.
        #expect(try await cloud.sweep(at: hours(24 * 1000)).droppedVersions == 0)
        #expect(try await cloud.blobFiles() == ["a0", "a1", "a2", "b0", "e0", "e1"])
        // 10 bytes each: a2 and e1 as files, a0, a1, b0 and e0 only as versions.
        #expect(try await store.usage(user: user) == 60)
        let limits = UploadLimits(quota: 65, openUploads: 10)
        let refused = UploadRecord(id: "up-refused", userID: user, deviceID: cloud.alice.deviceID, length: 10, offset: 0, metadata: "",
                                   created: hours(4), expires: hours(5))
        await #expect(throws: UploadRefusal.quota(used: 60, quota: 65)) { try await store.createUpload(refused, limits: limits) }

        // days:2: at 49.5 hours, only a1's version (ended at 2 h) is younger than 2 days.
        try await store.setCloudVersionPolicy(org: org, policy: .days(2), now: hours(4))
        #expect(try await store.cloudVersionPolicy(org: org) == .days(2))
        #expect(try await cloud.sweep(at: hours(49.5)).droppedVersions == 4)
        #expect(try await cloud.blobFiles() == ["a1", "a2", "e1"])
        #expect(try await store.cloudLog(path: ["a.age"], user: user).map(\.since) == [hours(2), hours(1)])
        #expect(try await store.cloudTrash(user: user).isEmpty)
        #expect(try await store.usage(user: user) == 30)
        try await store.createUpload(refused, limits: limits)
        try await store.deleteUpload(id: refused.id, user: user)

        // none: a move's row at the old path goes at once; the head keeps the blob it shares.
        try await store.setCloudVersionPolicy(org: org, policy: .none, now: hours(50))
        _ = try await store.cloudMove(from: ["a.age"], to: ["d.age"], user: user, now: hours(50))
        #expect(try await cloud.sweep(at: hours(50.1)).droppedVersions == 2)
        #expect(try await cloud.blobFiles() == ["a2", "e1"])
        #expect(try await store.cloudLog(path: ["d.age"], user: user).map(\.path) == ["/d.age"])
        #expect(try await store.cloudFile(path: ["d.age"], user: user).id == "a2")
        #expect(try await store.usage(user: user) == 20)
        // Back to staggered: no row of its own.
        try await store.setCloudVersionPolicy(org: org, policy: .staggered, now: hours(51))
        #expect(try await store.cloudVersionPolicy(org: org) == .staggered)
        let audit = try await store.auditLog(org: org, matching: nil, limit: 100).filter { $0.action == "org.cloud-versions" }.map(\.detail)
        #expect(audit == ["staggered", "none", "days:2", "all"])
    }

    @Test("the policy's text: staggered, all, none, 0, days:1 to days:3650 read and print back; anything else is refused")
    func policyText() throws {
        for (text, policy) in [("staggered", CloudVersionPolicy.staggered), ("all", .all), ("none", .none), ("0", .none), ("days:1", .days(1)),
                               ("days:3650", .days(3650))] {
            #expect(CloudVersionPolicy(text: text) == policy, "\(text)")
            #expect(CloudVersionPolicy(text: policy.description) == policy)
        }
        for bad in ["", "Staggered", "days:", "days:0", "days:3651", "days:-1", "days:+5", "days:05", "days:1.5", "weekly", "1"] {
            #expect(CloudVersionPolicy(text: bad) == nil, "\(bad)")
        }
        let encoded = try JSONEncoder().encode([CloudVersionPolicy.days(90)])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["days:90"]"#)
        #expect(try JSONDecoder().decode([CloudVersionPolicy].self, from: encoded) == [.days(90)])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([CloudVersionPolicy].self, from: Data(#"["days:0"]"#.utf8)) }
    }
}
