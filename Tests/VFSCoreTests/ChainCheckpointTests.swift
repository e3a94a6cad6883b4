import Foundation
import Testing
import VFSCore
import VFSTestSupport

/// Checkpoints (issue 43, item 10; docs/device-chain.md, "Checkpoints"): a statement that
/// restates the verifier's state, so that a chain is bounded per segment (since the last
/// checkpoint) and a long-lived user never meets the statement limit; a pinned client is
/// served the chain from the last checkpoint at or before its pin.
@Suite("device chain checkpoints")
struct ChainCheckpointTests {
    static let user = "alice@example.com"

    /// A device with an id of its own (32 hex digits of `n`) and a new key.
    static func device(_ n: Int) throws -> ChainFixture.TestDevice { try ChainFixture.device(n, uniqueID: true) }

    /// A chain built a statement at a time, verified as it grows (the incremental verifier).
    struct Builder {
        var statements: [DeviceChain.Statement] = []
        var verifier = DeviceChain.Verifier(user: ChainCheckpointTests.user, using: .openSSL)
        var verified: DeviceChain.Verified { verifier.verified }

        func next(_ action: DeviceChain.Action, by signer: ChainFixture.TestDevice, user: String = ChainCheckpointTests.user) throws -> DeviceChain.Statement {
            try .signed(user: user, sequence: UInt64(statements.count),
                        previous: statements.last?.hash ?? [UInt8](repeating: 0, count: 32),
                        timestamp: 1_790_000_000 + Int64(statements.count), signer: signer.entry.id, action: action, key: signer.key)
        }

        mutating func append(_ action: DeviceChain.Action, by signer: ChainFixture.TestDevice) throws {
            let statement = try next(action, by: signer)
            try verifier.take(statement)
            statements.append(statement)
        }

        /// A checkpoint of the state as it is, signed by `signer`.
        mutating func checkpoint(by signer: ChainFixture.TestDevice) throws {
            try append(.checkpoint(try #require(verified.checkpoint)), by: signer)
        }
    }

    /// Root 1 adds 2 and 3, removes 3; a checkpoint by 1 (statement 4); then 2 adds 4.
    static func chain() throws -> (Builder, [ChainFixture.TestDevice]) {
        let devices = try (1...4).map(device)
        var chain = Builder()
        try chain.append(.add(devices[0].entry), by: devices[0])
        try chain.append(.add(devices[1].entry), by: devices[0])
        try chain.append(.add(devices[2].entry), by: devices[0])
        try chain.append(.remove(deviceId: devices[2].entry.id), by: devices[1])
        try chain.checkpoint(by: devices[0])
        try chain.append(.add(devices[3].entry), by: devices[1])
        return (chain, devices)
    }

    static func head(_ statements: [DeviceChain.Statement], at sequence: Int) -> DeviceChain.Head {
        DeviceChain.Head(sequence: UInt64(sequence), hash: statements[sequence].hash)
    }

    @Test("a checkpoint's canonical form: kind 3, the root's time and entry, a 2-byte count, the devices in ascending order of id; any other order, none, or one twice is refused")
    func format() throws {
        let (chain, devices) = try Self.chain()
        let statement = chain.statements[4]
        guard case .checkpoint(let checkpoint) = statement.action else { Issue.record("not a checkpoint"); return }
        #expect(checkpoint.root == devices[0].entry && checkpoint.rootTimestamp == chain.statements[0].timestamp)
        #expect(checkpoint.devices == [devices[0].entry, devices[1].entry])
        let bytes = statement.encoded
        #expect(bytes[0] == 1 && bytes[1] == 3)
        #expect(try DeviceChain.Statement.decode(bytes) == statement)
        // The body after the signer: root time (8), root entry, count (2), the devices.
        func entry(_ device: DeviceChain.DeviceEntry) -> [UInt8] {
            var out = CanonicalWriter()
            out.device(device)
            return out.bytes
        }
        var time = CanonicalWriter()
        time.uint64(UInt64(chain.statements[0].timestamp))
        let tail = time.bytes + entry(devices[0].entry) + [0, 2] + entry(devices[0].entry) + entry(devices[1].entry)
        #expect(Array(statement.body.suffix(tail.count)) == tail)

        let prefixCount = statement.body.count - tail.count
        func laidOut(_ entries: [DeviceChain.DeviceEntry]) -> [UInt8] {
            Array(statement.body.prefix(prefixCount)) + time.bytes + entry(devices[0].entry)
                + [UInt8(entries.count >> 8), UInt8(entries.count & 0xff)] + entries.flatMap(entry) + statement.signature
        }
        #expect(try DeviceChain.Statement.decode(laidOut([devices[0].entry, devices[1].entry])) == statement)
        #expect(throws: DeviceChainError.malformed(index: nil, reason: "a checkpoint whose devices are not in ascending order of id")) {
            try DeviceChain.Statement.decode(laidOut([devices[1].entry, devices[0].entry]))
        }
        #expect(throws: DeviceChainError.malformed(index: nil, reason: "a checkpoint whose devices are not in ascending order of id")) {
            try DeviceChain.Statement.decode(laidOut([devices[0].entry, devices[0].entry]))
        }
        #expect(throws: DeviceChainError.malformed(index: nil, reason: "a checkpoint of no devices")) {
            try DeviceChain.Statement.decode(laidOut([]))
        }
        // Larger than other statements may be, up to its own bound.
        #expect(throws: DeviceChainError.self) {
            try DeviceChain.Statement.decode([1, 3] + [UInt8](repeating: 0, count: DeviceChain.maxCheckpointBytes))
        }
        #expect(throws: DeviceChainError.malformed(index: nil, reason: "a statement of 8193 bytes (the limit is 8192)")) {
            try DeviceChain.Statement.decode([1, 1] + [UInt8](repeating: 0, count: 8191))
        }
    }

    @Test("walked past, a checkpoint must restate exactly the state computed there: a removed device, a live one left out or changed, another root, or a signer that is not live are refused, and the prefix before it kept")
    func restatesExactly() throws {
        let (chain, devices) = try Self.chain()
        let verified = try DeviceChain.verify(chain.statements, user: Self.user)
        #expect(Set(verified.devices.keys) == Set([devices[0], devices[1], devices[3]].map(\.entry.id)))
        #expect(verified.segmentStatements == 2 && verified.first == 0 && verified.root == devices[0].entry)

        let before = Array(chain.statements.prefix(4))
        var builder = Builder()
        for statement in before { try builder.verifier.take(statement) }
        builder.statements = before
        let good = try #require(builder.verified.checkpoint)
        var removed = good
        removed.devices = (good.devices + [devices[2].entry]).sorted { $0.id < $1.id }
        var missing = good
        missing.devices = [devices[0].entry]
        var renamed = good
        renamed.devices[1].name = "renamed"
        var otherRoot = good
        otherRoot.root = devices[1].entry
        for forged in [removed, missing, renamed, otherRoot] {
            let statement = try builder.next(.checkpoint(forged), by: devices[0])
            #expect(throws: DeviceChainError.self) { try DeviceChain.verify(before + [statement], user: Self.user) }
            let prefix = try DeviceChain.verifyPrefix(before + [statement], user: Self.user)
            #expect(prefix.head.sequence == 3)
            if case .checkpointMismatch(index: 4, _)? = prefix.refusedTail {} else { Issue.record("\(String(describing: prefix.refusedTail))") }
        }
        // Signed by the removed device (its key kept), restating itself: not live there.
        let byRemoved = try builder.next(.checkpoint(removed), by: devices[2])
        #expect(throws: DeviceChainError.signerNotLive(index: 4, signer: devices[2].entry.id)) {
            try DeviceChain.verify(before + [byRemoved], user: Self.user)
        }
        // The good one verifies, and changes nothing.
        let checkpoint = try builder.next(.checkpoint(good), by: devices[1])
        #expect(try DeviceChain.verify(before + [checkpoint], user: Self.user).devices == builder.verified.devices)
        // Not a root.
        #expect(throws: DeviceChainError.badRoot(reason: "the first statement must add the device that signs it")) {
            try DeviceChain.verify([try Builder().next(.checkpoint(good), by: devices[0])], user: Self.user)
        }
    }

    @Test("from a checkpoint: a pinned client verifies the chain served from a checkpoint at or before its pin to the same state as the whole chain; with no pin, or a pin before it, it is refused")
    func fromCheckpoint() throws {
        let (chain, _) = try Self.chain()
        let whole = try DeviceChain.verify(chain.statements, user: Self.user)
        let served = Array(chain.statements.dropFirst(4))
        for pin in [4, 5] {
            let pinned = Self.head(chain.statements, at: pin)
            let verified = try DeviceChain.verify(served, user: Self.user, extending: pinned)
            #expect(verified.devices == whole.devices && verified.head == whole.head && verified.rootKey == whole.rootKey)
            #expect(verified.root == whole.root && verified.rootTimestamp == whole.rootTimestamp && verified.first == 4 && verified.count == 2)
        }
        #expect(throws: DeviceChainError.unanchoredCheckpoint(sequence: 4, pinned: nil)) { try DeviceChain.verify(served, user: Self.user) }
        #expect(throws: DeviceChainError.unanchoredCheckpoint(sequence: 4, pinned: 3)) {
            try DeviceChain.verifyPrefix(served, user: Self.user, pinned: Self.head(chain.statements, at: 3))
        }
        // A statement other than a checkpoint is no place to start.
        #expect(throws: DeviceChainError.badSequence(index: 0, found: 5)) {
            try DeviceChain.verifyPrefix(Array(chain.statements.dropFirst(5)), user: Self.user, pinned: Self.head(chain.statements, at: 5))
        }
    }

    @Test("a lying relay's checkpoint: forged (restating a device the chain removed, signed by that device) at or before the pin, the statements after it dropped, or one in the middle dropped, is refused; after the pin it is left out with the tail")
    func lyingRelay() throws {
        let (chain, devices) = try Self.chain()
        let pinned = Self.head(chain.statements, at: 5)
        var builder = Builder()
        for statement in chain.statements.prefix(4) { try builder.verifier.take(statement) }
        builder.statements = Array(chain.statements.prefix(4))
        var state = try #require(builder.verified.checkpoint)
        state.devices = (state.devices + [devices[2].entry]).sorted { $0.id < $1.id }
        // In place of the real checkpoint: self-consistent (signed by a device it restates),
        // but not the statement this client verified there.
        let forged = try builder.next(.checkpoint(state), by: devices[2])
        #expect(throws: DeviceChainError.self) { try DeviceChain.verifyPrefix([forged] + chain.statements.suffix(1), user: Self.user, pinned: pinned) }
        #expect(throws: DeviceChainError.forked(sequence: 4)) {
            try DeviceChain.verifyPrefix([forged], user: Self.user, pinned: Self.head(chain.statements, at: 4))
        }
        // The statements after the checkpoint dropped: shorter than the pin.
        #expect(throws: DeviceChainError.rolledBack(pinned: 5, served: 4)) {
            try DeviceChain.verifyPrefix([chain.statements[4]], user: Self.user, pinned: pinned)
        }
        // After the pin: a forged checkpoint restating the removed device, signed by it, is
        // a tail no live device signed; the client keeps the rest and the pin moves no further.
        var extended = Builder()
        for statement in chain.statements { try extended.verifier.take(statement) }
        extended.statements = chain.statements
        var stale = try #require(extended.verified.checkpoint)
        stale.devices = (stale.devices + [devices[2].entry]).sorted { $0.id < $1.id }
        let tail = try extended.next(.checkpoint(stale), by: devices[2])
        let prefix = try DeviceChain.verifyPrefix(Array(chain.statements.dropFirst(4)) + [tail], user: Self.user, pinned: pinned)
        #expect(prefix.head == pinned && prefix.devices[devices[2].entry.id] == nil)
        #expect(prefix.refusedTail == .signerNotLive(index: 6, signer: devices[2].entry.id))
        // Signed by a live device but restating the removed one: refused as a mismatch.
        let inconsistent = try extended.next(.checkpoint(stale), by: devices[0])
        let mismatch = try DeviceChain.verifyPrefix(Array(chain.statements.dropFirst(4)) + [inconsistent], user: Self.user, pinned: pinned)
        if case .checkpointMismatch(index: 6, _)? = mismatch.refusedTail {} else { Issue.record("\(String(describing: mismatch.refusedTail))") }
    }

    @Test("the bound counts statements since the last checkpoint: a segment of 1,024 verifies, its 1,025th is refused unless it is a checkpoint, which starts the next segment")
    func segmentBound() throws {
        let one = try Self.device(1), two = try Self.device(2)
        var chain = Builder()
        try chain.append(.add(one.entry), by: one)
        while chain.statements.count < DeviceChain.maxStatements {
            try chain.append(chain.statements.count % 2 == 1 ? .add(two.entry) : .remove(deviceId: two.entry.id), by: one)
        }
        #expect(chain.verified.segmentStatements == 1024 && chain.verified.needsCheckpoint)
        // The phone is live now: removing it would verify, but for the bound.
        let over = try chain.next(.remove(deviceId: two.entry.id), by: one)
        #expect(throws: DeviceChainError.malformed(index: 1024, reason: "more than 1024 statements")) {
            try chain.append(.remove(deviceId: two.entry.id), by: one)
        }
        #expect(try DeviceChain.verifyPrefix(chain.statements + [over], user: Self.user).refusedTail
                == .malformed(index: 1024, reason: "1025 statements (the limit is 1024)"))
        try chain.checkpoint(by: one)
        #expect(chain.verified.segmentStatements == 1 && !chain.verified.needsCheckpoint)
        try chain.append(.remove(deviceId: two.entry.id), by: one)
        #expect(try DeviceChain.verify(chain.statements, user: Self.user).head.sequence == 1025)
        #expect(try DeviceChain.decodeWire(DeviceChain.encodeWire(chain.statements)) == chain.statements)
        // The relay's parse of stored statements counts the same way.
        let stored = DeviceChain.decodeStatements(chain.statements.map { Data($0.encoded).base64EncodedString() })
        #expect(stored.statements.count == 1026 && stored.refused == nil)
    }

    @Test("a user who changes devices 1,500 times (3,000 statements) keeps working: clients checkpoint near the bound, a new device verifies the whole chain from its root, and a pinned one the chain from its checkpoint")
    func thousandsOfChanges() throws {
        let started = ContinuousClock.now
        var current = try Self.device(0)
        var chain = Builder()
        try chain.append(.add(current.entry), by: current)
        var pins: [DeviceChain.Head] = []
        for n in 1...1500 {
            // What RelaySession.append does before a change: a checkpoint near the bound.
            if chain.verified.needsCheckpoint { try chain.checkpoint(by: current) }
            let replacement = try Self.device(n)
            try chain.append(.add(replacement.entry), by: current)
            if chain.verified.needsCheckpoint { try chain.checkpoint(by: replacement) }
            try chain.append(.remove(deviceId: current.entry.id), by: replacement)
            current = replacement
            if n % 500 == 0 { pins.append(chain.verified.head) }
        }
        let checkpoints = chain.statements.filter(\.isCheckpoint)
        #expect(chain.statements.count == 3001 + checkpoints.count && checkpoints.count == 3)
        #expect(chain.verified.segmentStatements < DeviceChain.checkpointAfterStatements)
        // A new device: the whole chain, from its root.
        let fresh = try DeviceChain.verify(chain.statements, user: Self.user)
        #expect(fresh.devices.keys.sorted() == [current.entry.id] && fresh.head == chain.verified.head)
        #expect(fresh.root?.name == "device0" && fresh.rootKey == chain.statements[0].signingKeyAdded)
        // A device pinned along the way: served from the last checkpoint at or before its pin.
        for pin in pins {
            let from = try #require(checkpoints.last { $0.sequence <= pin.sequence })
            let served = Array(chain.statements.drop { $0.sequence < from.sequence })
            let verified = try DeviceChain.verify(served, user: Self.user, extending: pin)
            #expect(verified.devices == fresh.devices && verified.head == fresh.head && verified.rootKey == fresh.rootKey)
            #expect(served.count <= 2 * DeviceChain.maxStatements)
        }
        // And the user changes devices again.
        let last = try Self.device(1501)
        try chain.append(.add(last.entry), by: current)
        #expect(try DeviceChain.verify(chain.statements, user: Self.user).devices.count == 2)
        #expect(ContinuousClock.now - started < .seconds(120))
    }
}

extension DeviceChain.Statement {
    /// The signing key an add adds (the root key, for statement 0).
    var signingKeyAdded: [UInt8]? {
        if case .add(let entry) = action { return entry.signingKey }
        return nil
    }
}
