import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore

/// Issue 49: the recovery key in the device chain (kind 6; role 2 in a kind 5
/// checkpoint) and as a person writes it down.
@Suite("device chain: recovery keys")
struct RecoveryChainTests {
    static let fixedSeed = SecretBytes(copying: Array(0..<32).map { UInt8($0 * 7 + 3) })

    /// A recovery key as a test device: its entry and signing key.
    static func recovery(_ key: RecoveryKey? = nil) throws -> ChainFixture.TestDevice {
        let key = try key ?? RecoveryKey.generate()
        return ChainFixture.TestDevice(entry: try key.entry(matching: []), key: try key.signingKey())
    }

    @Test("kind 6 is the add of a recovery key: an add's layout after the kind byte; it decodes as the recovery key, and a kind-1 add of the same entry does not")
    func format() throws {
        let (chain, _, two) = try ChainFixture.twoDevices()
        let recovery = try Self.recovery()
        let statement = try chain.statement(.add(recovery.entry), by: two)
        #expect(statement.body[0] == 1 && statement.body[1] == 6)
        var plain = recovery.entry
        plain.recovery = false
        let asReader = try chain.statement(.add(plain), by: two)
        #expect(asReader.body[1] == 1)
        #expect(Array(statement.body[2...]) == Array(asReader.body[2...]))
        guard case .add(let decoded) = try DeviceChain.Statement.decode(statement.encoded).action else { Issue.record("not an add"); return }
        #expect(decoded.recovery && !decoded.sendOnly)
        #expect(try DeviceChain.Statement.decode(statement.encoded) == statement)
    }

    @Test("the recovery key is kept apart (`recovery`, never in `devices` or `senders`); it approves a new reader, which the verifier then holds as any device")
    func approvesAReader() throws {
        var (chain, one, two) = try ChainFixture.twoDevices()
        let recovery = try Self.recovery()
        try chain.append(.add(recovery.entry), by: two)
        let verified = try DeviceChain.verify(chain.statements, user: chain.user)
        #expect(verified.recovery == recovery.entry)
        #expect(verified.devices == [one.entry.id: one.entry, two.entry.id: two.entry])
        #expect(verified.senders.isEmpty)
        let newcomer = try ChainFixture.device(5)
        try chain.append(.add(newcomer.entry), by: recovery)
        let after = try DeviceChain.verify(chain.statements, user: chain.user)
        #expect(after.devices[newcomer.entry.id] == newcomer.entry)
        #expect(after.recovery == recovery.entry)
        // The new device signs as any reader: it removes the lost ones.
        try chain.append(.remove(deviceId: one.entry.id), by: newcomer)
        try chain.append(.remove(deviceId: two.entry.id), by: newcomer)
        #expect(try DeviceChain.verify(chain.statements, user: chain.user).devices.keys.sorted() == [newcomer.entry.id])
    }

    @Test("the recovery key signs nothing but the add of a reader: not a remove, a send-only device, another recovery key or a checkpoint (77); it cannot be the root")
    func signsOneKind() throws {
        var (chain, _, two) = try ChainFixture.twoDevices()
        let recovery = try Self.recovery()
        try chain.append(.add(recovery.entry), by: two)
        let state = try #require(try DeviceChain.verify(chain.statements, user: chain.user).checkpoint)
        for action: DeviceChain.Action in [.remove(deviceId: two.entry.id), .add(try ChainFixture.device(6, sendOnly: true).entry),
                                          .add(try Self.recovery().entry), .checkpoint(state)] {
            let forged = try chain.statement(action, by: recovery)
            #expect(throws: DeviceChainError.recoverySigner(index: 3, signer: recovery.entry.id)) {
                try DeviceChain.verify(chain.statements + [forged], user: chain.user)
            }
        }
        #expect(DeviceChainError.recoverySigner(index: 3, signer: recovery.entry.id).description.contains("the recovery key"))
        var rooted = ChainFixture()
        try rooted.append(.add(recovery.entry), by: recovery)
        #expect(throws: DeviceChainError.badRoot(reason: "a send-only device or a recovery key cannot start a chain")) {
            try DeviceChain.verify(rooted.statements, user: rooted.user)
        }
    }

    @Test("a revoked recovery key approves nothing (not live), and a new one replaces the old in one statement: the old one approves nothing, the new one does")
    func revokedAndReplaced() throws {
        var (chain, one, two) = try ChainFixture.twoDevices()
        let old = try Self.recovery()
        try chain.append(.add(old.entry), by: two)
        var revoked = chain
        try revoked.append(.remove(deviceId: old.entry.id), by: one)
        #expect(try DeviceChain.verify(revoked.statements, user: revoked.user).recovery == nil)
        let intruder = try ChainFixture.device(7)
        let byRevoked = try revoked.statement(.add(intruder.entry), by: old)
        #expect(throws: DeviceChainError.signerNotLive(index: 4, signer: old.entry.id)) {
            try DeviceChain.verify(revoked.statements + [byRevoked], user: revoked.user)
        }
        let new = try Self.recovery()
        try chain.append(.add(new.entry), by: one)
        #expect(try DeviceChain.verify(chain.statements, user: chain.user).recovery == new.entry)
        let byOld = try chain.statement(.add(intruder.entry), by: old)
        #expect(throws: DeviceChainError.signerNotLive(index: 4, signer: old.entry.id)) {
            try DeviceChain.verify(chain.statements + [byOld], user: chain.user)
        }
        try chain.append(.add(intruder.entry), by: new)
        #expect(try DeviceChain.verify(chain.statements, user: chain.user).devices[intruder.entry.id] != nil)
    }

    @Test("a checkpoint restating the recovery key is kind 5 with role 2; it verifies walked past and as a pinned client's start, where the recovery key still approves; restating it as a reader is refused")
    func checkpoints() throws {
        var (chain, _, two) = try ChainFixture.twoDevices()
        let recovery = try Self.recovery()
        try chain.append(.add(recovery.entry), by: two)
        let checkpoint = try #require(try DeviceChain.verify(chain.statements, user: chain.user).checkpoint)
        #expect(checkpoint.hasRoles && !checkpoint.hasSendOnly)
        try chain.append(.checkpoint(checkpoint), by: two)
        let statement = chain.statements[3]
        #expect(statement.body[1] == 5)
        let roles = SendOnlyChainTests.roleOffsets(statement)
        #expect(roles.map { statement.encoded[$0] }.sorted() == [0, 0, 2])
        #expect(try DeviceChain.Statement.decode(statement.encoded) == statement)
        #expect(try DeviceChain.verify(chain.statements, user: chain.user).recovery == recovery.entry)
        let newcomer = try ChainFixture.device(5)
        try chain.append(.add(newcomer.entry), by: recovery)
        let pinned = DeviceChain.Head(sequence: 3, hash: statement.hash)
        let fromCheckpoint = try DeviceChain.verify(Array(chain.statements[3...]), user: chain.user, extending: pinned)
        #expect(fromCheckpoint.recovery == recovery.entry && fromCheckpoint.devices[newcomer.entry.id] != nil)
        var asReader = checkpoint
        asReader.devices = asReader.devices.map { var d = $0; d.recovery = false; return d }
        let lie = try ChainFixture(user: chain.user).statement(.checkpoint(asReader), by: two, sequence: 3, previous: chain.statements[2].hash)
        let prefix = try DeviceChain.verifyPrefix(Array(chain.statements[..<3]) + [lie], user: chain.user)
        if case .checkpointMismatch(index: 3, _)? = prefix.refusedTail {} else { Issue.record("\(String(describing: prefix.refusedTail))") }
        // A pinned client's start signed by the recovery key: refused.
        let byRecovery = try ChainFixture(user: chain.user).statement(.checkpoint(checkpoint), by: recovery, sequence: 3, previous: chain.statements[2].hash)
        #expect(throws: DeviceChainError.recoverySigner(index: 3, signer: recovery.entry.id)) {
            try DeviceChain.verify([byRecovery], user: chain.user, extending: DeviceChain.Head(sequence: 3, hash: byRecovery.hash))
        }
    }

    @Test("the written form: 14 groups of 4 base32 characters, read back whatever the case, spaces and dashes; every single mistyped character of a fixed key is caught (checksum, or not a letter)")
    func text() throws {
        let key = RecoveryKey(seed: Self.fixedSeed)
        let text = key.text
        let groups = text.split(separator: "-")
        #expect(groups.count == 14 && groups.allSatisfy { $0.count == 4 })
        let again = try RecoveryKey(typed: "  " + text.lowercased().replacingOccurrences(of: "-", with: " ") + "\n")
        #expect(try again.deviceID() == key.deviceID())
        #expect(try again.signingKey().publicKey == key.signingKey().publicKey)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var characters = Array(text.filter { $0 != "-" })
        for position in characters.indices {
            let original = characters[position]
            for replacement in alphabet where replacement != original {
                characters[position] = replacement
                #expect(throws: RecoveryKeyError.self) { try RecoveryKey(typed: String(characters)) }
            }
            characters[position] = original
        }
        #expect(throws: RecoveryKeyError.length(55, expected: 56)) { try RecoveryKey(typed: String(characters.dropLast())) }
        #expect(throws: RecoveryKeyError.character("!")) { try RecoveryKey(typed: text + "!") }
        // Digits base32 has not: 0, 1 and 8 read as O, I and B.
        let lookalikes = String(characters).replacingOccurrences(of: "O", with: "0").replacingOccurrences(of: "I", with: "1")
        #expect(try RecoveryKey(typed: lookalikes).deviceID() == key.deviceID())
    }

    @Test("everything derives from the written secret: the same key gives the same id, signing key and recipients; an X25519 recipient, or a post-quantum one beside post-quantum readers, each opened by `identity(for:)`")
    func derivation() throws {
        let key = RecoveryKey(seed: Self.fixedSeed)
        let other = try RecoveryKey.generate()
        #expect(try key.deviceID() != other.deviceID())
        #expect(try key.deviceID().count == 32)
        let classic = try key.entry(matching: [try ChainFixture.device(1, recipient: try X25519Identity.generate().recipient.string).entry])
        #expect(classic.recipient.hasPrefix("age1") && !classic.recipient.hasPrefix("age1pq1") && classic.recovery)
        let postQuantum = try key.entry(matching: [try ChainFixture.device(1, recipient: try HybridIdentity.generate().recipient.string).entry])
        #expect(postQuantum.recipient.hasPrefix("age1pq1"))
        #expect(classic.signingKey == postQuantum.signingKey && classic.id == postQuantum.id)
        for entry in [classic, postQuantum] {
            let identity = try key.identity(for: entry)
            #expect(identity.recipient.string == entry.recipient)
        }
    }
}
