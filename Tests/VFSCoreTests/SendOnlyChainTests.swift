import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore

/// Issue 48: a send-only device in the device chain. Added by its own statement kind (4),
/// restated by checkpoints of their own kind (5); it signs its own pushes, never a chain
/// statement, and is never a recipient.
@Suite("device chain: send-only devices")
struct SendOnlyChainTests {
    static func sendOnly(_ n: Int) throws -> ChainFixture.TestDevice { try ChainFixture.device(n, sendOnly: true) }

    @Test("kind 4 is an add of a send-only device: the add's layout after the kind byte; it decodes as send-only, and a kind-1 add of the same device does not")
    func format() throws {
        let (chain, _, two) = try ChainFixture.twoDevices()
        let server = try Self.sendOnly(3)
        let statement = try chain.statement(.add(server.entry), by: two)
        #expect(statement.body[0] == 1 && statement.body[1] == 4)
        var reader = server.entry
        reader.sendOnly = false
        let plain = try chain.statement(.add(reader), by: two)
        #expect(plain.body[1] == 1)
        #expect(Array(statement.body[2...]) == Array(plain.body[2...]))
        #expect(try DeviceChain.Statement.decode(statement.encoded) == statement)
        guard case .add(let decoded) = try DeviceChain.Statement.decode(statement.encoded).action else { Issue.record("not an add"); return }
        #expect(decoded.sendOnly)
        guard case .add(let decodedPlain) = try DeviceChain.Statement.decode(plain.encoded).action else { Issue.record("not an add"); return }
        #expect(!decodedPlain.sendOnly)
    }

    @Test("old chains still verify unchanged, and a send-only device is in `senders`, never in `devices` (the readers)")
    func verifiesApart() throws {
        let (start, one, two) = try ChainFixture.twoDevices()
        let old = try DeviceChain.verify(start.statements, user: start.user)
        #expect(old.senders.isEmpty && old.devices.count == 2)
        var chain = start
        let server = try Self.sendOnly(3)
        try chain.append(.add(server.entry), by: two)
        let verified = try DeviceChain.verify(chain.statements, user: chain.user)
        #expect(verified.devices == [one.entry.id: one.entry, two.entry.id: two.entry])
        #expect(verified.senders == [server.entry.id: server.entry])
        #expect(verified.signer(server.entry.id) == server.entry)
        #expect(verified.signer(one.entry.id) == one.entry)
        // As a recipient: refused (77), by name; a reader is one.
        #expect(throws: DeviceChainError.sendOnlyRecipient(device: "device3", user: chain.user)) { try verified.recipient(server.entry.id) }
        #expect(try verified.recipient(two.entry.id) == two.entry)
        // Removed by a reader, it is gone; the readers stay.
        try chain.append(.remove(deviceId: server.entry.id), by: one)
        let removed = try DeviceChain.verify(chain.statements, user: chain.user)
        #expect(removed.senders.isEmpty && removed.devices.count == 2)
    }

    @Test("a send-only device signs no statement (not an add of a reader of its own, not a remove, not a checkpoint), cannot be the root, and cannot come back as a reader while live")
    func signsNothing() throws {
        var chain = ChainFixture()
        let one = try ChainFixture.device(1), two = try ChainFixture.device(2)
        try chain.append(.add(one.entry), by: one)
        try chain.append(.add(two.entry), by: one)
        let server = try Self.sendOnly(3)
        try chain.append(.add(server.entry), by: one)
        let intruder = try ChainFixture.device(4)
        let verifiedBefore = try DeviceChain.verify(chain.statements, user: chain.user)
        for action: DeviceChain.Action in [.add(intruder.entry), .remove(deviceId: two.entry.id),
                                          .checkpoint(try #require(verifiedBefore.checkpoint))] {
            let forged = try chain.statement(action, by: server)
            #expect(throws: DeviceChainError.sendOnlySigner(index: 3, signer: server.entry.id)) {
                try DeviceChain.verify(chain.statements + [forged], user: chain.user)
            }
            // The prefix before it is kept: an intruder's statement is a tail left out.
            let prefix = try DeviceChain.verifyPrefix(chain.statements + [forged], user: chain.user)
            #expect(prefix.refusedTail == .sendOnlySigner(index: 3, signer: server.entry.id))
            #expect(prefix.devices.count == 2)
        }
        // The same device again, as a reader, while it is live as send-only: refused.
        var reader = server.entry
        reader.sendOnly = false
        let again = try chain.statement(.add(reader), by: one)
        #expect(throws: DeviceChainError.duplicate(index: 3, reason: "device \(server.entry.id) is already in the chain")) {
            try DeviceChain.verify(chain.statements + [again], user: chain.user)
        }
        // A send-only root.
        var rooted = ChainFixture()
        try rooted.append(.add(server.entry), by: server)
        #expect(throws: DeviceChainError.badRoot(reason: "a send-only device or a recovery key cannot start a chain")) {
            try DeviceChain.verify(rooted.statements, user: rooted.user)
        }
    }

    @Test("a checkpoint restating a send-only device is kind 5, each device's role after it; it verifies walked past and as a pinned client's start; kind 5 without one (or a recovery key), or a role other than 0, 1 or 2, is malformed; restating it as a reader is refused")
    func checkpoints() throws {
        var chain = ChainFixture()
        let one = try ChainFixture.device(1), two = try ChainFixture.device(2)
        let server = try Self.sendOnly(3)
        try chain.append(.add(one.entry), by: one)
        try chain.append(.add(two.entry), by: one)
        try chain.append(.add(server.entry), by: one)
        let before = try DeviceChain.verify(chain.statements, user: chain.user)
        let checkpoint = try #require(before.checkpoint)
        #expect(checkpoint.hasSendOnly)
        try chain.append(.checkpoint(checkpoint), by: two)
        let statement = chain.statements[3]
        #expect(statement.body[1] == 5)
        #expect(try DeviceChain.Statement.decode(statement.encoded) == statement)
        // Walked past from the root, and as the start of a client that pinned statement 3.
        let walked = try DeviceChain.verify(chain.statements, user: chain.user)
        #expect(walked.senders == before.senders && walked.devices == before.devices)
        try chain.append(.add(try ChainFixture.device(5).entry), by: two)
        let pinned = DeviceChain.Head(sequence: 3, hash: statement.hash)
        let fromCheckpoint = try DeviceChain.verify(Array(chain.statements[3...]), user: chain.user, extending: pinned)
        #expect(fromCheckpoint.senders == [server.entry.id: server.entry])
        #expect(fromCheckpoint.devices.count == 3)
        // Restating the send-only device as a reader: not the state there.
        var asReader = checkpoint
        asReader.devices = asReader.devices.map { var d = $0; d.sendOnly = false; return d }
        #expect(!asReader.hasSendOnly)
        let lie = try ChainFixture(user: chain.user).statement(.checkpoint(asReader), by: two, sequence: 3, previous: chain.statements[2].hash)
        #expect(lie.body[1] == 3)
        let prefix = try DeviceChain.verifyPrefix(Array(chain.statements[..<3]) + [lie], user: chain.user)
        if case .checkpointMismatch(index: 3, _)? = prefix.refusedTail {} else { Issue.record("\(String(describing: prefix.refusedTail))") }
        // Kind 5 with every role 0, and a role of 3: malformed.
        var bytes = statement.encoded
        let roles = Self.roleOffsets(statement)
        for offset in roles { bytes[offset] = 0 }
        #expect(throws: DeviceChainError.malformed(index: nil, reason: "a checkpoint with roles and no send-only device or recovery key")) {
            try DeviceChain.Statement.decode(bytes)
        }
        bytes = statement.encoded
        bytes[roles[0]] = 3
        #expect(throws: DeviceChainError.malformed(index: nil, reason: "a device of unknown role 3 in a checkpoint")) {
            try DeviceChain.Statement.decode(bytes)
        }
        // A signer that is send-only in the checkpoint a pinned client starts from.
        let bySender = try ChainFixture(user: chain.user).statement(.checkpoint(checkpoint), by: server, sequence: 3, previous: chain.statements[2].hash)
        #expect(throws: DeviceChainError.sendOnlySigner(index: 3, signer: server.entry.id)) {
            try DeviceChain.verify([bySender], user: chain.user, extending: DeviceChain.Head(sequence: 3, hash: bySender.hash))
        }
    }

    /// Where the role bytes of a kind-5 checkpoint are: after each device of its list.
    static func roleOffsets(_ statement: DeviceChain.Statement) -> [Int] {
        guard case .checkpoint(let checkpoint) = statement.action else { return [] }
        func size(_ device: DeviceChain.DeviceEntry) -> Int { 6 + device.id.utf8.count + device.name.utf8.count + device.recipient.utf8.count + 32 }
        // version, kind, user, sequence, previous, timestamp, signer, root timestamp, root, count
        var offset = 2 + 2 + statement.user.utf8.count + 8 + 32 + 8 + 2 + statement.signer.utf8.count + 8 + size(checkpoint.root) + 2
        var offsets: [Int] = []
        for device in checkpoint.devices {
            offset += size(device)
            offsets.append(offset)
            offset += 1
        }
        return offsets
    }
}
