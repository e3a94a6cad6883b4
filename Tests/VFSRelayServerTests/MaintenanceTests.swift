import Foundation
import HTTPTypes
import Hummingbird
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

@Suite("maintenance")
struct MaintenanceTests {
    @Test("gc: recounts references from live rows, deletes orphan files and rows without a file, prunes old events")
    func garbage() async throws {
        let fixture = try RelayFixture()
        let (phone, laptop) = try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            for _ in 0..<2 {
                let upload = try await client.upload(randomBytes(100), token: laptop.token)
                _ = try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                             json: #"{"upload":"\#(upload)","devices":["\#(phone.id)"]}"#)
            }
            return (phone, laptop)
        }
        _ = laptop
        let blobs = try await fixture.store.referenceAudit()
        #expect(blobs.count == 2)
        // Damage: a wrong count, a stray file, a row whose file is gone, a stray upload file.
        try await fixture.store.pool.write { db in try db.execute(sql: "UPDATE blobs SET refs = 7 WHERE id = ?", arguments: [blobs[0].id]) }
        FileManager.default.createFile(atPath: fixture.folder.appendingPathComponent("blobs/stray").path, contents: Data([1]))
        FileManager.default.createFile(atPath: fixture.folder.appendingPathComponent("uploads/stray").path, contents: Data([1]))
        try FileManager.default.removeItem(at: fixture.folder.appendingPathComponent("blobs/\(blobs[1].id)"))

        var configuration = fixture.configuration
        configuration.orphanGrace = 0
        configuration.eventRetention = -10
        let report = try await RelayMaintenance(store: fixture.store, blobs: fixture.blobs, configuration: configuration)
            .sweep(now: Date().addingTimeInterval(5))
        #expect(report.fixedReferenceCounts == 1)
        #expect(report.orphanFiles == 2)
        #expect(report.orphanRows == 1)
        #expect(report.prunedEvents > 0)
        let after = try await fixture.store.referenceAudit()
        #expect(after.map(\.id) == [blobs[0].id])
        #expect(after.allSatisfy { $0.refs == $0.live })
        #expect(fixture.blobFiles() == [blobs[0].id])
        #expect(fixture.uploadFiles().isEmpty)
        // The copy whose file was lost is expired, not offered.
        #expect(try await fixture.store.inbox(device: phone.id).count == 1)
    }

    @Test("backup writes a consistent database copy that opens as a relay store")
    func backup() async throws {
        let fixture = try RelayFixture()
        _ = try await fixture.addUser("alice@acme.example", org: "acme")
        let copy = fixture.folder.appendingPathComponent("copy.sqlite").path
        try await fixture.store.backup(to: copy)
        let reopened = try SQLiteRelayStore(path: copy)
        #expect(try await reopened.users().map(\.email) == ["alice@acme.example"])
    }
}
