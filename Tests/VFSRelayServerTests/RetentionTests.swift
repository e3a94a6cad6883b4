import Foundation
import HTTPTypes
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

/// Issue 48, item 4: the organisation's minimum retention (`vfs-relay org set
/// --min-retention`), which no device shortens. The clock is the `now` each call is given.
@Suite("minimum retention: no device cancels a transfer before it is delivered or the retention ends")
struct RetentionTests {
    @Test("under a 30-day retention its sender cannot cancel a waiting transfer, it does not expire before, a delivered one cancels, one made before or after the setting is not held, and the operator removes one (audited)",
          arguments: Backend.allCases)
    func retention(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let laptop = try await fixture.user("alice@acme.example")[0]
        let phone = try await fixture.device(of: "alice@acme.example", name: "phone")
        let org = try await store.organisationID(name: "acme")
        let now = Date()
        let day: TimeInterval = 86400
        func send(at time: Date = now) async throws -> OutboxEntry {
            try await store.createTransfer(id: "t-\(UUID().uuidString)", upload: try await fixture.finishedUpload(laptop),
                                           blobID: "b-\(UUID().uuidString)", sender: laptop, devices: [phone.deviceID], groups: [],
                                           expires: time.addingTimeInterval(day), now: time)
        }
        func waiting() async throws -> Set<String> { Set(try await store.inbox(device: phone.deviceID).map(\.id)) }

        // Made before the setting: not held.
        let before = try await send()
        #expect(try await store.minRetention(org: org) == nil)
        try await store.setMinRetention(org: org, seconds: Int64(30 * day), now: now)
        #expect(try await store.minRetention(org: org) == Int64(30 * day))
        _ = try await store.cancelTransfer(id: before.id, sender: laptop.deviceID, now: now)

        // Its sender asked for one day; it is kept 30.
        let kept = try await send()
        #expect(kept.expires >= now.addingTimeInterval(30 * day - 1))
        do {
            _ = try await store.cancelTransfer(id: kept.id, sender: laptop.deviceID, now: now.addingTimeInterval(29 * day))
            Issue.record("a retained transfer was cancelled")
        } catch RetentionRefusal.retained(let until) {
            #expect(abs(until.timeIntervalSince(now) - 30 * day) < 0.01)
        }
        // Another device of the user: not its transfer, as before.
        await #expect(throws: StoreError.self) { _ = try await store.cancelTransfer(id: kept.id, sender: phone.deviceID, now: now) }
        // The sweep eight days on (past the one day asked): still waiting.
        #expect(try await store.expireTransfers(now: now.addingTimeInterval(8 * day)).isEmpty)
        #expect(try await waiting().contains(kept.id))

        // Delivered: nothing waits, so its sender may cancel (nothing changes).
        let delivered = try await send()
        _ = try await store.finishTransfer(id: delivered.id, device: phone.deviceID, status: .delivered, now: now)
        _ = try await store.cancelTransfer(id: delivered.id, sender: laptop.deviceID, now: now)

        // The operator removes one before its retention ends: its blob is released, the
        // copy cancelled, and the audit log says so.
        let removed = try await send()
        let removal = try await store.removeTransfer(id: removed.id, now: now.addingTimeInterval(day))
        #expect(removal.cancelled == 1 && removal.released.count == 1 && removal.upload == nil)
        #expect(abs((removal.retainedUntil ?? now).timeIntervalSince(now) - 30 * day) < 0.01)
        #expect(try await !waiting().contains(removed.id))
        let audit = try await store.auditLog(org: org, matching: "transfer.remove", limit: 10)
        #expect(audit.map(\.subject) == [removed.id])
        #expect(audit.first?.actor == "operator")
        #expect(audit.first?.detail.contains("retained until") == true)
        #expect(try await store.auditLog(org: org, matching: "org.min-retention", limit: 10).map(\.detail) == ["2592000"])
        await #expect(throws: StoreError.notFound("no transfer \"nope\"")) { _ = try await store.removeTransfer(id: "nope", now: now) }

        // Past the retention: its sender may cancel, and the sweep expires what is left.
        let late = try await send()
        _ = try await store.cancelTransfer(id: late.id, sender: laptop.deviceID, now: now.addingTimeInterval(30 * day + 1))
        #expect(try await store.expireTransfers(now: now.addingTimeInterval(31 * day)).count == 1)
        #expect(try await waiting().isEmpty)

        // Ended: transfers made from then on are not held.
        try await store.setMinRetention(org: org, seconds: nil, now: now)
        #expect(try await store.minRetention(org: org) == nil)
        let free = try await send()
        _ = try await store.cancelTransfer(id: free.id, sender: laptop.deviceID, now: now)
        #expect(try await fixture.referencesHold())
    }

    @Test("over HTTP a retained transfer's DELETE is 403 retained with a message that says until when; the relay's other organisations are not held")
    func answer() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let bob = try await client.user("bob@other.example", org: "other")
            let bobPhone = try await client.device(of: "bob@other.example", name: "phone")
            try await fixture.store.setMinRetention(org: try await fixture.store.organisationID(name: "acme"), seconds: 7200, now: Date())
            func send(_ from: TestDevice, to: TestDevice) async throws -> String {
                let upload = try await client.upload([1, 2, 3], token: from.token)
                let made = try await client.request(.post, RelayPaths.transfers, token: from.token,
                                                    json: #"{"upload":"\#(upload)","devices":["\#(to.id)"]}"#)
                #expect(made.status == .created)
                return try decode(OutboxEntry.self, made).id
            }
            let kept = try await send(laptop, to: phone)
            let refused = try await client.request(.delete, RelayPaths.transfer(kept), token: laptop.token)
            #expect(refused.status == .forbidden)
            let body = try decode(RelayErrorBody.self, refused)
            #expect(body.error == "retained")
            #expect(body.message.contains("retains this transfer until it is delivered or until 20"), "\(body.message)")
            #expect(try await client.request(.delete, RelayPaths.transfer(try await send(bob, to: bobPhone)), token: bob.token).status == .noContent)
        }
    }
}
