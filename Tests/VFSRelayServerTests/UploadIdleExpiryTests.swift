import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

/// Issue 44: an upload that stops getting bytes (a push interrupted or abandoned) ends
/// after the relay's idle expiry, and a cancelled one at once: its bytes, its quota and
/// the transfer made of it while it uploaded are freed either way.
@Suite("uploads idle past the expiry, and cancelled while they upload")
struct UploadIdleExpiryTests {
    let expires = HTTPField.Name("Upload-Expires")!

    func patch(_ client: TestClient, _ id: String, token: String, offset: Int, _ bytes: [UInt8]) async throws -> TestResponse {
        try await client.request(.patch, RelayPaths.upload(id), token: token, bytes: bytes,
                                 headers: [tus: "1.0.0", uploadOffset: "\(offset)", .contentType: "application/offset+octet-stream",
                                           .contentLength: "\(bytes.count)"])
    }

    /// A deferred-length upload with `bytes` sent, and a transfer to `device` made of it while it uploads.
    func streaming(_ client: TestClient, token: String, to device: String, _ bytes: [UInt8]) async throws -> (upload: String, transfer: String) {
        let created = try await client.request(.post, RelayPaths.uploads, token: token, headers: [tus: "1.0.0", deferLength: "1"])
        let upload = String(try #require(created.headers[.location]).split(separator: "/").last!)
        #expect(try await patch(client, upload, token: token, offset: 0, bytes).status == .noContent)
        let made = try await client.request(.post, RelayPaths.transfers, token: token,
                                            json: #"{"upload":"\#(upload)","devices":["\#(device)"],"streaming":true}"#)
        let transfer = try decode(OutboxEntry.self, made)
        #expect(transfer.recipients.map(\.status) == [.uploading])
        return (upload, transfer.id)
    }

    func used(_ client: TestClient, token: String) async throws -> Int64 {
        try decode(CloudUsage.self, try await client.request(.get, RelayPaths.cloudUsage, token: token)).used
    }

    @Test("an upload that gets no bytes for --upload-idle-expiry expires at the next sweep (not at its 24 h lifetime): file, quota and its transfer's copies go; bytes move the expiry on")
    func idleUploadExpires() async throws {
        let fixture = try RelayFixture { $0.uploadIdleExpiry = 600 }
        let started = Date()
        let (upload, laptop, phone) = try await fixture.test { client -> (String, TestDevice, TestDevice) in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let (upload, transfer) = try await streaming(client, token: laptop.token, to: phone.id, randomBytes(3000))
            #expect(try await used(client, token: laptop.token) == 3000)
            // The expiry the client is told is the idle one, moved on by each PATCH.
            let more = try await patch(client, upload, token: laptop.token, offset: 3000, randomBytes(1000))
            #expect(more.status == .noContent)
            let told = try #require(more.headers[expires].flatMap(parseHTTPDate))
            #expect(told > started.addingTimeInterval(590) && told < Date().addingTimeInterval(610), "\(told)")
            let record = try await fixture.store.upload(id: upload, user: try await fixture.store.users().first!.id)
            #expect(record.expires < Date().addingTimeInterval(610))
            #expect(record.expires > started.addingTimeInterval(590))
            #expect(try decode([InboxEntry].self, try await client.request(.get, RelayPaths.inbox, token: phone.token)).map(\.id) == [transfer])
            return (upload, laptop, phone)
        }
        let maintenance = RelayMaintenance(store: fixture.store, blobs: fixture.blobs, configuration: fixture.configuration)
        // Within the idle time: kept.
        #expect(try await maintenance.sweep(now: Date().addingTimeInterval(300)).expiredUploads == 0)
        #expect(fixture.uploadFiles() == [upload])
        // Past it: gone, with what it held.
        #expect(try await maintenance.sweep(now: Date().addingTimeInterval(611)).expiredUploads == 1)
        #expect(fixture.uploadFiles().isEmpty)
        try await fixture.test { client in
            #expect(try await used(client, token: laptop.token) == 0)
            let outbox = try decode([OutboxEntry].self, try await client.request(.get, RelayPaths.outbox, token: laptop.token))
            #expect(outbox.first?.recipients.map(\.status) == [.expired])
            #expect(try decode([InboxEntry].self, try await client.request(.get, RelayPaths.inbox, token: phone.token)).isEmpty)
        }
    }

    @Test("an upload being written is not expired by the sweep, however long since its last sync")
    func writtenUploadSpared() async throws {
        let fixture = try RelayFixture { $0.uploadIdleExpiry = 1 }
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let created = try await client.request(.post, RelayPaths.uploads, token: laptop.token, headers: [tus: "1.0.0", deferLength: "1"])
            let upload = String(try #require(created.headers[.location]).split(separator: "/").last!)
            let maintenance = RelayMaintenance(store: fixture.store, blobs: fixture.blobs, configuration: fixture.configuration)
            let report = try await fixture.store.withUploadWriteLock(upload) {
                try await maintenance.sweep(now: Date().addingTimeInterval(60))
            }
            #expect(report?.expiredUploads == 0)
            #expect(fixture.uploadFiles() == [upload])
            #expect(try await maintenance.sweep(now: Date().addingTimeInterval(60)).expiredUploads == 1)
        }
    }

    @Test("DELETE of a transfer still uploading removes its upload at once: file and quota freed, the sender's next PATCH is 404")
    func cancelFreesUpload() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let (upload, transfer) = try await streaming(client, token: laptop.token, to: phone.id, randomBytes(5000))
            #expect(fixture.uploadFiles() == [upload])
            #expect(try await used(client, token: laptop.token) == 5000)
            #expect(try await client.request(.delete, RelayPaths.transfer(transfer), token: laptop.token).status == .noContent)
            #expect(fixture.uploadFiles().isEmpty)
            #expect(try await used(client, token: laptop.token) == 0)
            #expect(try await patch(client, upload, token: laptop.token, offset: 5000, randomBytes(10)).status == .notFound)
            let outbox = try decode([OutboxEntry].self, try await client.request(.get, RelayPaths.outbox, token: laptop.token))
            #expect(outbox.first?.recipients.map(\.status) == [.cancelled])
            #expect(try decode([InboxEntry].self, try await client.request(.get, RelayPaths.inbox, token: phone.token)).isEmpty)
        }
    }
}
