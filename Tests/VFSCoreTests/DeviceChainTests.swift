import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore

@Suite("device chain")
struct DeviceChainTests {
    @Test("a root, an add and a remove verify to the live devices, the root key and the head")
    func verifies() throws {
        let (start, one, two) = try ChainFixture.twoDevices()
        var chain = start
        let three = try ChainFixture.device(3)
        try chain.append(.add(three.entry), by: two)
        try chain.append(.remove(deviceId: one.entry.id), by: three)
        let verified = try DeviceChain.verify(chain.statements, user: chain.user)
        #expect(verified.devices == [two.entry.id: two.entry, three.entry.id: three.entry])
        #expect(verified.rootKey == one.entry.signingKey)
        #expect(verified.head == .init(sequence: 3, hash: chain.statements[3].hash))
        #expect(verified.head.hash == SHA256.hash(chain.statements[3].body + chain.statements[3].signature))
    }

    @Test("the canonical form is fixed: version, kind, length-prefixed fields, big-endian integers, the signature last")
    func canonicalBytes() throws {
        let key = try Ed25519.SigningKey(seed: SecretBytes(copying: [UInt8](repeating: 7, count: 32)))
        let id = String(repeating: "a", count: 32)
        let statement = try DeviceChain.Statement.signed(
            user: "u", sequence: 1, previous: [UInt8](repeating: 0xEE, count: 32), timestamp: 2,
            signer: id, action: .remove(deviceId: id), key: key)
        let expected: [UInt8] = [1, 2, 0, 1, 0x75, 0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0xEE, count: 32)
            + [0, 0, 0, 0, 0, 0, 0, 2] + [0, 32] + Array(id.utf8) + [0, 32] + Array(id.utf8)
        #expect(statement.body == expected)
        #expect(statement.encoded == expected + statement.signature)
        #expect(Ed25519.verify(signature: statement.signature, of: Array("vfs device chain statement v1\0".utf8) + expected, publicKey: key.publicKey))
        #expect(try DeviceChain.Statement.decode(statement.encoded) == statement)
    }

    @Test("the wire form round-trips and is versioned JSON of base64 statements")
    func wire() throws {
        let (chain, _, _) = try ChainFixture.twoDevices()
        let bytes = try DeviceChain.encodeWire(chain.statements)
        let object = try JSONSerialization.jsonObject(with: Data(bytes)) as! [String: Any]
        #expect(object["version"] as? Int == 1)
        #expect((object["statements"] as? [String])?.count == 2)
        #expect(try DeviceChain.decodeWire(bytes) == chain.statements)
        let future = Array(#"{"version":2,"statements":[]}"#.utf8)
        #expect(throws: DeviceChainError.malformed(index: nil, reason: "unknown chain version 2")) { try DeviceChain.decodeWire(future) }
        #expect(throws: DeviceChainError.malformed(index: 0, reason: "not base64")) {
            try DeviceChain.decodeWire(Array(#"{"version":1,"statements":["%%"]}"#.utf8))
        }
        #expect(throws: DeviceChainError.self) { try DeviceChain.decodeWire(Array("[]".utf8)) }
        let huge = [UInt8](repeating: 0x20, count: DeviceChain.maxWireBytes + 1)
        #expect(throws: DeviceChainError.malformed(index: nil, reason: "a chain document of \(huge.count) bytes")) { try DeviceChain.decodeWire(huge) }
    }

    @Test("a forged signature is refused")
    func forgedSignature() throws {
        let (start, _, _) = try ChainFixture.twoDevices()
        var chain = start
        chain.statements[1].signature[0] ^= 1
        #expect(throws: DeviceChainError.badSignature(index: 1)) { try DeviceChain.verify(chain.statements, user: chain.user) }
        // An edited field under an intact signature fails the same way.
        var edited = try ChainFixture.twoDevices().0
        if case .add(var entry) = edited.statements[1].action {
            entry.recipient = "age1attacker"
            edited.statements[1].action = .add(entry)
        }
        #expect(throws: DeviceChainError.badSignature(index: 1)) { try DeviceChain.verify(edited.statements, user: edited.user) }
    }

    @Test("a statement signed by a device that is not in the chain, or was removed, is refused")
    func signerNotLive() throws {
        let (start, one, two) = try ChainFixture.twoDevices()
        var chain = start
        let stranger = try ChainFixture.device(5)
        let shadow = try ChainFixture.device(6)
        var withStranger = chain
        try withStranger.append(.add(shadow.entry), by: stranger)
        #expect(throws: DeviceChainError.signerNotLive(index: 2, signer: stranger.entry.id)) {
            try DeviceChain.verify(withStranger.statements, user: chain.user)
        }
        try chain.append(.remove(deviceId: two.entry.id), by: one)
        try chain.append(.add(shadow.entry), by: two)
        #expect(throws: DeviceChainError.signerNotLive(index: 3, signer: two.entry.id)) {
            try DeviceChain.verify(chain.statements, user: chain.user)
        }
        // A device cannot add itself after the root.
        var selfAdd = try ChainFixture.twoDevices().0
        try selfAdd.append(.add(shadow.entry), by: shadow)
        #expect(throws: DeviceChainError.signerNotLive(index: 2, signer: shadow.entry.id)) {
            try DeviceChain.verify(selfAdd.statements, user: selfAdd.user)
        }
    }

    @Test("a removed device comes back only through a new add by another live device")
    func readd() throws {
        let (start, one, two) = try ChainFixture.twoDevices()
        var chain = start
        try chain.append(.remove(deviceId: two.entry.id), by: one)
        #expect(try DeviceChain.verify(chain.statements, user: chain.user).devices.keys.sorted() == [one.entry.id])
        try chain.append(.add(two.entry), by: one)
        #expect(try DeviceChain.verify(chain.statements, user: chain.user).devices[two.entry.id] == two.entry)
        // Adding a live device again, or another device with a live key, is refused.
        var twice = try ChainFixture.twoDevices()
        try twice.0.append(.add(twice.2.entry), by: twice.1)
        #expect(throws: DeviceChainError.duplicate(index: 2, reason: "device \(twice.2.entry.id) is already in the chain")) {
            try DeviceChain.verify(twice.0.statements, user: twice.0.user)
        }
        var sameKey = try ChainFixture.twoDevices()
        let clone = try ChainFixture.device(4, key: sameKey.2.key)
        try sameKey.0.append(.add(clone.entry), by: sameKey.1)
        #expect(throws: DeviceChainError.duplicate(index: 2, reason: "its signing key is already another live device's")) {
            try DeviceChain.verify(sameKey.0.statements, user: sameKey.0.user)
        }
    }

    @Test("removing a device that is not live, or the last one, is refused")
    func badRemove() throws {
        let (start, one, two) = try ChainFixture.twoDevices()
        var chain = start
        try chain.append(.remove(deviceId: two.entry.id), by: one)
        var again = chain
        try again.append(.remove(deviceId: two.entry.id), by: one)
        #expect(throws: DeviceChainError.duplicate(index: 3, reason: "device \(two.entry.id) is not live")) {
            try DeviceChain.verify(again.statements, user: chain.user)
        }
        try chain.append(.remove(deviceId: one.entry.id), by: one)
        #expect(throws: DeviceChainError.duplicate(index: 3, reason: "it would remove the last device")) {
            try DeviceChain.verify(chain.statements, user: chain.user)
        }
    }

    @Test("a reordered chain, a broken link, a skipped sequence number or another user's chain is refused")
    func ordering() throws {
        let (start, one, two) = try ChainFixture.twoDevices()
        var chain = start
        let three = try ChainFixture.device(3)
        try chain.append(.add(three.entry), by: two)
        #expect(throws: DeviceChainError.badSequence(index: 1, found: 2)) {
            try DeviceChain.verify([chain.statements[0], chain.statements[2], chain.statements[1]], user: chain.user)
        }
        #expect(throws: DeviceChainError.badSequence(index: 0, found: 1)) {
            try DeviceChain.verify([chain.statements[1], chain.statements[0]], user: chain.user)
        }
        let relinked = try chain.statement(.add(try ChainFixture.device(4).entry), by: one, previous: chain.statements[1].hash)
        #expect(throws: DeviceChainError.brokenLink(index: 3)) { try DeviceChain.verify(chain.statements + [relinked], user: chain.user) }
        let skipped = try chain.statement(.add(try ChainFixture.device(4).entry), by: one, sequence: 4)
        #expect(throws: DeviceChainError.badSequence(index: 3, found: 4)) { try DeviceChain.verify(chain.statements + [skipped], user: chain.user) }
        #expect(throws: DeviceChainError.wrongUser(index: 0, expected: "bob@example.com", found: chain.user)) {
            try DeviceChain.verify(chain.statements, user: "bob@example.com")
        }
        #expect(throws: DeviceChainError.malformed(index: nil, reason: "an empty chain")) { try DeviceChain.verify([], user: chain.user) }
    }

    @Test("a root signed by another key than the one it adds is refused")
    func badRootSignature() throws {
        let one = try ChainFixture.device(1), other = try ChainFixture.device(1)
        let chain = ChainFixture()
        var root = try chain.statement(.add(one.entry), by: other)
        #expect(throws: DeviceChainError.badSignature(index: 0)) { try DeviceChain.verify([root], user: chain.user) }
        root = try chain.statement(.remove(deviceId: one.entry.id), by: one)
        #expect(throws: DeviceChainError.badRoot(reason: "the first statement must add the device that signs it")) { try DeviceChain.verify([root], user: chain.user) }
    }

    @Test("a pinned head: the same or a longer chain passes; a truncated or forked one is refused")
    func pinnedHead() throws {
        let (start, one, two) = try ChainFixture.twoDevices()
        var chain = start
        let pinned = try DeviceChain.verify(chain.statements, user: chain.user).head
        #expect(try DeviceChain.verify(chain.statements, user: chain.user, extending: pinned).head == pinned)
        var longer = chain
        try longer.append(.remove(deviceId: two.entry.id), by: one)
        #expect(try DeviceChain.verify(longer.statements, user: chain.user, extending: pinned).head.sequence == 2)
        let longerHead = try DeviceChain.verify(longer.statements, user: chain.user).head
        #expect(throws: DeviceChainError.rolledBack(pinned: 2, served: 1)) {
            try DeviceChain.verify(chain.statements, user: chain.user, extending: longerHead)
        }
        // A fork: the same root, another statement 1 (the relay's own shadow device, validly signed by the root).
        chain.statements.removeLast()
        try chain.append(.add(try ChainFixture.device(6).entry), by: one)
        #expect(throws: DeviceChainError.forked(sequence: 1)) {
            try DeviceChain.verify(chain.statements, user: chain.user, extending: pinned)
        }
        // Another user's chain served in its place is a fork at the root.
        var other = ChainFixture()
        let stranger = try ChainFixture.device(1)
        try other.append(.add(stranger.entry), by: stranger)
        try other.append(.add(two.entry), by: stranger)
        #expect(throws: DeviceChainError.forked(sequence: 1)) { try DeviceChain.verify(other.statements, user: chain.user, extending: pinned) }
    }

    @Test("oversized, malformed or non-canonical fields are refused before anything is trusted")
    func bounds() throws {
        let one = try ChainFixture.device(1)
        let chain = ChainFixture()
        func refused(_ entry: DeviceChain.DeviceEntry, user: String? = nil) throws -> Bool {
            let statement = try chain.statement(.add(entry), by: one, user: user)
            do { _ = try DeviceChain.verify([statement], user: user ?? chain.user) } catch DeviceChainError.malformed(index: .some(0), _) { return true }
            return false
        }
        var entry = one.entry
        entry.name = String(repeating: "n", count: DeviceChain.maxNameBytes + 1)
        #expect(try refused(entry))
        entry = one.entry; entry.recipient = String(repeating: "r", count: DeviceChain.maxRecipientBytes + 1)
        #expect(try refused(entry))
        entry = one.entry; entry.name = "invoice\u{202E}fdp.exe"
        #expect(try refused(entry))
        entry = one.entry; entry.name = ""
        #expect(try refused(entry))
        #expect(try refused(one.entry, user: String(repeating: "u", count: DeviceChain.maxUserBytes + 1)))
        entry = one.entry; entry.signingKey = one.entry.signingKey + [0]
        #expect(try refused(entry))
        // The device id must be 32 lowercase hex digits: the signer's too.
        var bad = try chain.statement(.add(one.entry), by: one)
        bad.signer = String(repeating: "A", count: 32)
        #expect(throws: DeviceChainError.malformed(index: 0, reason: "a device id that is not 32 lowercase hex digits")) {
            try DeviceChain.verify([bad], user: chain.user)
        }
        // Decoding: truncation, trailing bytes, an unknown kind or version, an oversized statement.
        let good = try chain.statement(.add(one.entry), by: one).encoded
        #expect(throws: DeviceChainError.malformed(index: nil, reason: "truncated statement")) { try DeviceChain.Statement.decode(Array(good.dropLast())) }
        #expect(throws: DeviceChainError.malformed(index: nil, reason: "bytes after the signature")) { try DeviceChain.Statement.decode(good + [0]) }
        var kind = good; kind[1] = 9
        #expect(throws: DeviceChainError.malformed(index: nil, reason: "unknown statement kind 9")) { try DeviceChain.Statement.decode(kind) }
        var version = good; version[0] = 2
        #expect(throws: DeviceChainError.malformed(index: nil, reason: "unknown statement version 2")) { try DeviceChain.Statement.decode(version) }
        let big = [UInt8](repeating: 1, count: DeviceChain.maxStatementBytes + 1)
        #expect(throws: DeviceChainError.malformed(index: nil, reason: "a statement of \(big.count) bytes (the limit is \(DeviceChain.maxStatementBytes))")) {
            try DeviceChain.Statement.decode(big)
        }
    }

    @Test("a chain of valid statements larger than 1 MiB in all is refused at the statement that crosses it")
    func tooManyBytes() throws {
        var chain = ChainFixture()
        let one = try ChainFixture.device(1)
        try chain.append(.add(one.entry), by: one)
        let big = try ChainFixture.device(2, recipient: String(repeating: "r", count: DeviceChain.maxRecipientBytes))
        var total = chain.statements[0].encoded.count
        while total <= DeviceChain.maxChainBytes {
            try chain.append(.add(big.entry), by: one)
            try chain.append(.remove(deviceId: big.entry.id), by: one)
            total += chain.statements.suffix(2).reduce(0) { $0 + $1.encoded.count }
        }
        var crossing = 0, sum = 0
        for (index, statement) in chain.statements.enumerated() {
            sum += statement.encoded.count
            if sum > DeviceChain.maxChainBytes { crossing = index; break }
        }
        #expect(throws: DeviceChainError.malformed(index: crossing, reason: "the chain is larger than \(DeviceChain.maxChainBytes) bytes")) {
            try DeviceChain.verify(chain.statements, user: chain.user)
        }
        // One statement short of it verifies.
        #expect(try DeviceChain.verify(Array(chain.statements.prefix(crossing)), user: chain.user).head.sequence == UInt64(crossing - 1))
    }

    @Test("the statement limit at its boundary, as a client reads a chain: 1,024 valid statements verify, the 1,025th is refused (the relay's side: ChainRouteTests)")
    func statementBoundary() throws {
        var chain = ChainFixture()
        let one = try ChainFixture.device(1), two = try ChainFixture.device(2)
        try chain.append(.add(one.entry), by: one)
        while chain.statements.count <= DeviceChain.maxStatements {
            try chain.append(chain.statements.count % 2 == 1 ? .add(two.entry) : .remove(deviceId: two.entry.id), by: one)
        }
        #expect(DeviceChain.maxStatements == 1024)
        #expect(chain.statements.count == 1025)
        let limit = Array(chain.statements.prefix(1024))
        // 1,024: the whole chain verifies, from its wire form too.
        #expect(try DeviceChain.verify(limit, user: chain.user).head.sequence == 1023)
        #expect(try DeviceChain.decodeWire(DeviceChain.encodeWire(limit)) == limit)
        // 1,025: refused whole, and a client keeping the verified prefix keeps 1,024.
        let refusal = DeviceChainError.malformed(index: nil, reason: "1025 statements (the limit is 1024)")
        #expect(throws: refusal) { try DeviceChain.verify(chain.statements, user: chain.user) }
        let prefix = try DeviceChain.verifyPrefix(chain.statements, user: chain.user)
        #expect(prefix.head.sequence == 1023)
        #expect(prefix.refusedTail == .malformed(index: 1024, reason: "1025 statements (the limit is 1024)"))
        let wire = try DeviceChain.decodeWirePrefix(DeviceChain.encodeWire(chain.statements))
        #expect(wire.statements == limit)
        #expect(wire.refused == .malformed(index: 1024, reason: "1025 statements (the limit is 1024)"))
        // The relay parses its stored chains with the same function.
        let stored = DeviceChain.decodeStatements(chain.statements.map { Data($0.encoded).base64EncodedString() })
        #expect(stored.statements == limit && stored.refused == wire.refused)
    }

    @Test("a chain of more statements than the limit is refused before any signature is checked")
    func tooManyStatements() throws {
        let (chain, _, _) = try ChainFixture.twoDevices()
        let many = Array(repeating: chain.statements[1], count: DeviceChain.maxStatements + 1)
        #expect(throws: DeviceChainError.malformed(index: nil, reason: "\(many.count) statements (the limit is \(DeviceChain.maxStatements))")) {
            try DeviceChain.verify(many, user: chain.user)
        }
        let wire = try DeviceChain.encodeWire(many)
        #expect(throws: DeviceChainError.self) { try DeviceChain.decodeWire(wire) }
    }
}
