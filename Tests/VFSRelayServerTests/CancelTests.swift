import Foundation
import HTTPTypes
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

@Suite("transfer cancel")
struct CancelTests {
    @Test("DELETE /v1/transfers/{id}: the sender's waiting copies become cancelled and the blob goes; delivered stays; others get 404")
    func cancel() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let tablet = try await client.device(of: "alice@acme.example", name: "tablet")
            let upload = try await client.upload(randomBytes(5000), token: laptop.token)
            let created = try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                                   json: #"{"upload":"\#(upload)","devices":["\#(phone.id)","\#(tablet.id)"]}"#)
            let transfer = try decode(OutboxEntry.self, created)
            #expect(try await client.request(.post, RelayPaths.transferAck(transfer.id), token: phone.token).status == .noContent)
            // A recipient is not the sender.
            #expect(try await client.request(.delete, RelayPaths.transfer(transfer.id), token: tablet.token).status == .notFound)
            #expect(try await client.request(.delete, RelayPaths.transfer("nope"), token: laptop.token).status == .notFound)
            #expect(fixture.blobFiles().count == 1)
            #expect(try await client.request(.delete, RelayPaths.transfer(transfer.id), token: laptop.token).status == .noContent)
            #expect(fixture.blobFiles().isEmpty)
            let outbox = try decode([OutboxEntry].self, try await client.request(.get, RelayPaths.outbox, token: laptop.token))
            #expect(outbox.first?.recipients.first { $0.device == phone.id }?.status == .delivered)
            #expect(outbox.first?.recipients.first { $0.device == tablet.id }?.status == .cancelled)
            #expect(try decode([InboxEntry].self, try await client.request(.get, RelayPaths.inbox, token: tablet.token)).isEmpty)
        }
    }
}
