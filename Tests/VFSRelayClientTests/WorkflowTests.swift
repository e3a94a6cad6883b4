import Foundation
import Testing
import VFSCore
@testable import VFSRelayClient
import VFSRelayProtocol
import VFSRelayTransfers
import VFSTestSupport

/// The client workflows of vfs-push, vfs-fetch and vfs-cloud as library calls, against a
/// relay run in this process (`WorkflowRelay`): what they send, what the relay then
/// holds, and what they refuse.
@Suite("relay client workflows")
struct WorkflowTests {
    static let alice = "alice@acme.example"

    /// Alice's laptop (the chain's root) and her phone, approved by the laptop unless not.
    static func laptopAndPhone(_ relay: WorkflowRelay, approved: Bool = true) async throws -> (WorkflowRelay.Member, WorkflowRelay.Member) {
        let laptop = try await relay.firstDevice(alice, name: "laptop")
        let phone = try await relay.anotherDevice(of: alice, name: "phone", accepting: laptop)
        if approved { try await relay.approve(phone, by: laptop) }
        return (laptop, phone)
    }

    static func devices(_ names: [String]) -> PushAddressees {
        var addressees = PushAddressees()
        addressees.devices = names
        return addressees
    }

    @Test("PushTargets: a pending device named outright is refused, and nothing is pinned; once approved it resolves to its recipient, pinned in pins.json, the bundle signed by the sender")
    func pushTargets() async throws {
        try await WorkflowRelay.run { relay in
            let (laptop, phone) = try await Self.laptopAndPhone(relay, approved: false)
            let session = laptop.session
            try await session.withClient { client in
                await #expect(throws: RelayClientError.pending(devices: ["phone"])) {
                    _ = try await PushTargets.resolve(Self.devices(["phone"]), session: session, client: client, report: KeptReport().report)
                }
                let pinned = try PinStore(home: laptop.home).devices[phone.session.config.device]
                #expect(pinned == nil)
            }
            try await relay.approve(phone, by: laptop)
            try await session.withClient { client in
                let targets = try await PushTargets.resolve(Self.devices(["phone"]), session: session, client: client, report: KeptReport().report)
                #expect(targets.devices.map(\.id) == [phone.session.config.device])
                #expect(targets.recipients.count == 1)
                #expect(targets.sender == laptop.recipient)
                #expect(targets.signer?.device == laptop.session.config.device)
                #expect(targets.colleagues.isEmpty)
                let pins = try PinStore(home: laptop.home)
                #expect(pins.devices[phone.session.config.device]?.recipient == phone.recipient)
                // A device the relay does not list is no target.
                await #expect(throws: RelayClientError.self) {
                    _ = try await PushTargets.resolve(Self.devices(["tablet"]), session: session, client: client, report: KeptReport().report)
                }
            }
        }
    }

    @Test("TransferSender and TransferReceiver: a file sent to the phone is one transfer in its inbox, from the laptop, whose spool is gone; received, it is unpacked as sent and acknowledged")
    func sendAndReceive() async throws {
        try await WorkflowRelay.run { relay in
            let (laptop, phone) = try await Self.laptopAndPhone(relay)
            let content = Data((0..<100_000).map { _ in UInt8.random(in: 0...255) })
            let file = try relay.folder.write("report.bin", content)
            let sender = laptop.session
            let (sent, refused) = try await sender.withClient { client in
                let targets = try await PushTargets.resolve(Self.devices(["phone"]), session: sender, client: client, report: KeptReport().report)
                return try await TransferSender(client: client, home: sender.home, report: KeptReport().report).send(
                    [file], standardInputName: nil, to: targets, group: nil, lifetime: nil, cloud: nil, announce: { _ in })
            }
            #expect(refused == 0)
            #expect(sent.recipients.map(\.device) == [phone.session.config.device])
            // The spool is removed once the transfer exists.
            #expect(PushSpool.pending(home: laptop.home).isEmpty)
            let receiver = phone.session
            // The push deferred the relay's SHA-256 (issue 46): none in its outbox entry, nor in a
            // listing that does without it; a listing that asks for it (a client before issue 46) gets it.
            #expect(sent.sha256.isEmpty)
            let inbox = try await receiver.withClient { try await $0.inbox(digests: false) }
            let entry = try #require(inbox.first)
            #expect(inbox.count == 1 && entry.id == sent.id && entry.sender == laptop.session.config.device && entry.sha256.isEmpty)
            let asked = try await receiver.withClient { try await $0.inbox() }
            #expect(asked.map(\.id) == [sent.id] && asked.first?.sha256.count == 64)
            // The relay holds ciphertext: random bytes do not shrink, and age adds its header and tags.
            #expect(entry.size > Int64(content.count))
            let out = relay.folder.path("out")
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            var options = ReceiveOptions(report: KeptReport().report, authorize: { _, _, _ in }, reportMarks: { _, _ in })
            options.directory = out
            let names = try await receiver.withClient { try await TransferReceiver(options, session: receiver, client: $0).receive(entry) }
            // What --exec is given: the top-level paths unpacked.
            #expect(names == [out + "/report.bin"])
            #expect(FileManager.default.contents(atPath: out + "/report.bin") == content)
            // Acknowledged: gone from the inbox, and no partial download is left.
            #expect(try await receiver.withClient { try await $0.inbox() }.isEmpty)
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: ReceiveOptions.incoming(home: phone.home))) ?? []).isEmpty)
        }
    }

    @Test("TransferReceiver: a transfer the approved-apps gate refuses is not unpacked and stays in the inbox")
    func receiverRefuses() async throws {
        try await WorkflowRelay.run { relay in
            let (laptop, phone) = try await Self.laptopAndPhone(relay)
            let file = try relay.folder.write("secret.txt", Data("for the approved app only\n".utf8))
            let sender = laptop.session
            _ = try await sender.withClient { client in
                let targets = try await PushTargets.resolve(Self.devices(["phone"]), session: sender, client: client, report: KeptReport().report)
                return try await TransferSender(client: client, home: sender.home, report: KeptReport().report).send(
                    [file], standardInputName: nil, to: targets, group: nil, lifetime: nil, cloud: nil, announce: { _ in })
            }
            let receiver = phone.session
            let entry = try #require(try await receiver.withClient { try await $0.inbox() }.first)
            let out = relay.folder.path("out")
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            var options = ReceiveOptions(report: KeptReport().report, authorize: { app, _, paths in
                throw ToolFailure("\(app) may not read \(paths)")
            }, reportMarks: { _, _ in })
            options.directory = out
            options.app = "viewer"
            await #expect(throws: (any Error).self) {
                _ = try await receiver.withClient { try await TransferReceiver(options, session: receiver, client: $0).receive(entry) }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
            #expect(try await receiver.withClient { try await $0.inbox() }.map(\.id) == [entry.id])
        }
    }

    @Test("CloudUploader: a file is stored at its cloud path as age ciphertext for each reader, its spool removed; an existing file is refused without force and replaced with it")
    func cloudUpload() async throws {
        try await WorkflowRelay.run { relay in
            let (laptop, phone) = try await Self.laptopAndPhone(relay)
            let plain = Data("the quarterly numbers, in plain text\n".utf8)
            let file = try relay.folder.write("numbers.txt", plain)
            let session = laptop.session
            try await session.withClient { client in
                let recipients = try await session.cloudRecipients(client, warn: { _ in })
                #expect(recipients.count == 2, "laptop and phone")
                let uploader = CloudUploader(client: client, home: session.home, recipients: recipients, force: false, device: "laptop", report: KeptReport().report)
                #expect(try await uploader.put([file], to: "/docs", asFolder: true) == 0)
                let stored = try #require(try await client.cloudLookup("/docs/numbers.txt"))
                #expect(stored.kind == .file)
                let size = try #require(stored.size)
                #expect(size > Int64(plain.count))
                // What the relay holds: an age file with one stanza per reader, not the text.
                let copy = relay.folder.path("copy.age")
                try await RangeDownloader(client: client).download(
                    RangeDownloader.Target(route: RelayClient.cloudRoute("/docs/numbers.txt"), label: "/docs/numbers.txt",
                                           size: size, sha256: try #require(stored.sha256)), to: copy)
                let bytes = try #require(FileManager.default.contents(atPath: copy))
                let header = String(decoding: bytes.prefix(1024), as: UTF8.self)
                #expect(header.hasPrefix("age-encryption.org/v1\n"))
                #expect(header.components(separatedBy: "\n-> X25519 ").count - 1 == 2)
                #expect(bytes.range(of: plain) == nil)
                #expect(((try? FileManager.default.contentsOfDirectory(atPath: session.home + "/cloud-outgoing")) ?? []).isEmpty)
                // Again without force: refused before anything is uploaded.
                do {
                    try await uploader.put([file], to: "/docs", asFolder: true)
                    Issue.record("an existing cloud file was replaced without force")
                } catch CloudError.cloudFileExists(let path) {
                    #expect(path == "/docs/numbers.txt")
                }
                #expect(try await client.cloudLookup("/docs/numbers.txt")?.sha256 == stored.sha256)
                // With force: replaced (a new encryption, so another digest).
                let forced = CloudUploader(client: client, home: session.home, recipients: recipients, force: true, device: "laptop", report: KeptReport().report)
                try await forced.put([file], to: "/docs", asFolder: true)
                let replaced = try #require(try await client.cloudLookup("/docs/numbers.txt"))
                #expect(replaced.sha256 != stored.sha256)
            }
            _ = phone
        }
    }
}
