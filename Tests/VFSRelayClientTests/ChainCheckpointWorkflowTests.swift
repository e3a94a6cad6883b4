import Foundation
import Testing
import VFSCore
@testable import VFSRelayClient
import VFSRelayProtocol
@testable import VFSRelayTransfers
import VFSTestSupport

/// Checkpoints through the client and a relay run in this process (issue 43, item 10;
/// docs/device-chain.md, "Checkpoints"), the relay's database edited where the relay is
/// the liar.
@Suite("device chain checkpoints through the client", .serialized)
struct ChainCheckpointWorkflowTests {
    static let alice = "alice@acme.example"

    /// Runs SQL on the relay's database, as its holder can (no check of any kind).
    static func sql(_ relay: WorkflowRelay, _ text: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [relay.data.appendingPathComponent("relay.sqlite").path]
        let input = Pipe(), errors = Pipe()
        (process.standardInput, process.standardError) = (input, errors)
        try process.run()
        input.fileHandleForWriting.write(Data((".timeout 10000\n" + text + "\n").utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        try #require(process.terminationStatus == 0, "sqlite3: \(said)")
    }

    static let aliceID = "(SELECT id FROM users WHERE email = '\(alice)')"

    static func row(_ statement: DeviceChain.Statement, checkpoint: Bool = false) -> String {
        """
        INSERT INTO device_chains(user_id, sequence, statement, hash, created, checkpoint)
        VALUES (\(aliceID), \(statement.sequence), '\(Data(statement.encoded).base64EncodedString())', '\(Data(statement.hash).hexString)', 0, \(checkpoint ? 1 : 0));
        """
    }

    static func trust(_ member: WorkflowRelay.Member) async throws -> DeviceTrust {
        try await member.session.withClient { try await member.session.deviceTrust($0) }
    }

    @Test("at the bound the client writes a checkpoint before the change; pinned devices are served from it and a new one verifies the whole chain; a relay that forges the checkpoint, or drops the statements after it, is refused (77) and nothing is pinned")
    func checkpointThroughTheClient() async throws {
        try await WorkflowRelay.run { relay in
            let laptop = try await relay.firstDevice(Self.alice, name: "laptop")
            let laptopID = laptop.session.config.device
            // The user's history: a ghost device added and removed 479 times, then a spare
            // one added (960 statements with the root), all signed by the laptop.
            let ghostKey = try Ed25519.SigningKey(), spareKey = try Ed25519.SigningKey()
            let ghost = DeviceChain.DeviceEntry(id: String(repeating: "e", count: 32), name: "ghost", recipient: "age1ghost", signingKey: ghostKey.publicKey)
            let spare = DeviceChain.DeviceEntry(id: String(repeating: "f", count: 32), name: "spare", recipient: "age1spare", signingKey: spareKey.publicKey)
            var statements = try await Self.trust(laptop).statements
            #expect(statements.count == 1)
            var script = "BEGIN;\n"
            while statements.count < DeviceChain.checkpointAfterStatements {
                let action: DeviceChain.Action = statements.count == DeviceChain.checkpointAfterStatements - 1 ? .add(spare)
                    : statements.count % 2 == 1 ? .add(ghost) : .remove(deviceId: ghost.id)
                let statement = try DeviceChain.Statement.signed(user: Self.alice, sequence: UInt64(statements.count), previous: statements.last!.hash,
                                                                 timestamp: 1_790_000_000, signer: laptopID, action: action, key: laptop.signingKey)
                statements.append(statement)
                script += Self.row(statement)
            }
            try Self.sql(relay, script + "COMMIT;")
            let before = try await Self.trust(laptop)
            #expect(before.verified?.segmentStatements == 960 && before.verified?.needsCheckpoint == true)
            #expect(before.verified?.devices[ghost.id] == nil && before.verified?.devices[spare.id] != nil)

            // A change at the bound: the laptop approves the phone, a checkpoint first.
            let phone = try await relay.anotherDevice(of: Self.alice, name: "phone", accepting: laptop)
            try await relay.approve(phone, by: laptop)
            let after = try await Self.trust(laptop)
            #expect(after.verified?.head.sequence == 961 && after.verified?.first == 960, "served from the checkpoint")
            #expect(after.statements.first?.isCheckpoint == true && after.verified?.segmentStatements == 2)
            #expect(after.approved.map(\.name).sorted() == ["laptop", "phone"])
            // The phone (pinned before it) is served the whole chain, then from the checkpoint.
            #expect(try await Self.trust(phone).verified?.first == 0)
            let phoneTrust = try await Self.trust(phone)
            #expect(phoneTrust.verified?.first == 960 && phoneTrust.isApproved(phoneTrust.devices.first { $0.name == "phone" }!))
            // A new device verifies the whole chain, from the root.
            let tablet = try await relay.anotherDevice(of: Self.alice, name: "tablet", accepting: laptop)
            let tabletTrust = try await Self.trust(tablet)
            #expect(tabletTrust.verified?.head.sequence == 961 && tabletTrust.verified?.devices.count == 3)

            let pins = try String(contentsOfFile: laptop.home + "/pins.json", encoding: .utf8)
            let real = after.statements[0]
            // The relay forges the checkpoint: restating the ghost the chain removed, signed by the ghost's key.
            var forgedState = try #require(before.verified?.checkpoint)
            forgedState.devices = (forgedState.devices + [ghost]).sorted { $0.id < $1.id }
            let forged = try DeviceChain.Statement.signed(user: Self.alice, sequence: 960, previous: real.previous, timestamp: 1_790_000_000,
                                                          signer: ghost.id, action: .checkpoint(forgedState), key: ghostKey)
            try Self.sql(relay, """
                UPDATE device_chains SET statement = '\(Data(forged.encoded).base64EncodedString())', hash = '\(Data(forged.hash).hexString)'
                WHERE user_id = \(Self.aliceID) AND sequence = 960;
                """)
            await #expect(throws: DeviceChainError.rolledBack(pinned: 961, served: 960)) { try await Self.trust(laptop) }
            #expect(try String(contentsOfFile: laptop.home + "/pins.json", encoding: .utf8) == pins)
            // A new device walks the forged checkpoint in context: no device of the chain
            // signed it, so it and all after it are left out (the relay's tail).
            let late = try await relay.anotherDevice(of: Self.alice, name: "late", accepting: laptop)
            let lateTrust = try await Self.trust(late)
            #expect(lateTrust.verified?.head.sequence == 959 && lateTrust.verified?.devices[ghost.id] == nil)
            #expect(lateTrust.verified?.refusedTail == .signerNotLive(index: 960, signer: ghost.id))

            // The relay drops the statements after the (real) checkpoint.
            try Self.sql(relay, """
                UPDATE device_chains SET statement = '\(Data(real.encoded).base64EncodedString())', hash = '\(Data(real.hash).hexString)'
                WHERE user_id = \(Self.aliceID) AND sequence = 960;
                DELETE FROM device_chains WHERE user_id = \(Self.aliceID) AND sequence = 961;
                """)
            await #expect(throws: DeviceChainError.rolledBack(pinned: 961, served: 960)) { try await Self.trust(laptop) }
            #expect(try String(contentsOfFile: laptop.home + "/pins.json", encoding: .utf8) == pins)

            // Put back, the user goes on changing devices.
            try Self.sql(relay, Self.row(after.statements[1]))
            try await relay.approve(tablet, by: laptop)
            #expect(try await Self.trust(laptop).verified?.devices.count == 4, "laptop, spare, phone, tablet")
        }
    }

    @Test("a device removed before a checkpoint, pinned after it, still finds the removal (the whole chain, held to its pin) and who signed it: what makes vfs-fetch --watch erase its keys")
    func removalBeforeCheckpoint() async throws {
        try await WorkflowRelay.run { relay in
            let laptop = try await relay.firstDevice(Self.alice, name: "laptop")
            let phone = try await relay.anotherDevice(of: Self.alice, name: "phone", accepting: laptop)
            try await relay.approve(phone, by: laptop)
            try await laptop.session.withClient { client in
                var trust = try await laptop.session.deviceTrust(client)
                trust = try await laptop.session.append(.remove(deviceId: phone.session.config.device), to: trust, key: laptop.signingKey, client: client)
                let checkpoint = try #require(trust.verified?.checkpoint)
                _ = try await laptop.session.append(.checkpoint(checkpoint), to: trust, key: laptop.signingKey, client: client)
            }
            // The phone (its token still good) verifies the chain past the checkpoint.
            let phoneTrust = try await Self.trust(phone)
            #expect(phoneTrust.verified?.head.sequence == 3 && phoneTrust.verified?.devices[phone.session.config.device] == nil)
            #expect(try await Self.trust(phone).statements.map(\.sequence) == [3], "served from the checkpoint, after the removal")
            let options = ReceiveOptions(report: KeptReport().report, authorize: { _, _, _ in }, reportMarks: { _, _ in })
            let watcher = InboxWatcher(options, session: phone.session, exec: nil, wipeOnLogout: false)
            #expect(try await watcher.removedBy() == "laptop")
        }
    }
}

extension Data {
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
