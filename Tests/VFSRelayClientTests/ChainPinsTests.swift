import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore
@testable import VFSRelayClient
import VFSRelayProtocol

@Suite("chain pins")
struct ChainPinsTests {
    @Test("the first chain pins its root and head in a 0600 file; a longer one moves the pin")
    func pinsAndExtends() throws {
        let folder = try TestFolder()
        let (start, one, two) = try ChainFixture.twoDevices()
        var chain = start
        var pins = try ChainPins(home: folder.path)
        #expect(pins.head(of: chain.user) == nil)
        let verified = try pins.accept(chain.statements, user: chain.user)
        try pins.save()
        var attributes = stat()
        #expect(stat(folder.path + "/chain-pins.json", &attributes) == 0)
        #expect(attributes.st_mode & 0o777 == 0o600)
        var reloaded = try ChainPins(home: folder.path)
        #expect(reloaded.head(of: chain.user) == verified.head)
        #expect(reloaded.pins[chain.user]?.rootKey == Data(one.entry.signingKey))
        try chain.append(.remove(deviceId: two.entry.id), by: one)
        #expect(try reloaded.accept(chain.statements, user: chain.user).head.sequence == 2)
        #expect(reloaded.head(of: chain.user)?.hash == chain.statements[2].hash)
    }

    @Test("a truncated, forked or re-rooted chain is refused and the pin stays")
    func refuses() throws {
        let folder = try TestFolder()
        let (start, one, two) = try ChainFixture.twoDevices()
        var chain = start
        let shorter = chain.statements
        try chain.append(.remove(deviceId: two.entry.id), by: one)
        var pins = try ChainPins(home: folder.path)
        let pinned = try pins.accept(chain.statements, user: chain.user).head
        #expect(throws: DeviceChainError.rolledBack(pinned: 2, served: 1)) { try pins.accept(shorter, user: chain.user) }
        var fork = chain
        fork.statements.removeLast()
        try fork.append(.add(try ChainFixture.device(6).entry), by: one)
        #expect(throws: DeviceChainError.forked(sequence: 2)) { try pins.accept(fork.statements, user: chain.user) }
        // The relay makes a whole new chain for the user, with its own root.
        var rerooted = ChainFixture(user: chain.user)
        let shadow = try ChainFixture.device(1, name: "device1")
        try rerooted.append(.add(shadow.entry), by: shadow)
        try rerooted.append(.add(try ChainFixture.device(2).entry), by: shadow)
        try rerooted.append(.add(try ChainFixture.device(3).entry), by: shadow)
        #expect(throws: DeviceChainError.rootChanged(user: chain.user)) { try pins.accept(rerooted.statements, user: chain.user) }
        #expect(pins.head(of: chain.user) == pinned)
        // Forgetting the pin (after an out-of-band check) accepts the new root.
        pins.forget(chain.user)
        #expect(try pins.accept(rerooted.statements, user: chain.user).rootKey == shadow.entry.signingKey)
    }

    @Test("users are pinned apart, and a damaged pin file is refused, not replaced")
    func usersAndDamage() throws {
        let folder = try TestFolder()
        let (alice, _, _) = try ChainFixture.twoDevices()
        var bob = ChainFixture(user: "bob@example.com")
        let bobs = try ChainFixture.device(7)
        try bob.append(.add(bobs.entry), by: bobs)
        var pins = try ChainPins(home: folder.path)
        _ = try pins.accept(alice.statements, user: alice.user)
        _ = try pins.accept(bob.statements, user: bob.user)
        #expect(pins.head(of: alice.user)?.sequence == 1 && pins.head(of: bob.user)?.sequence == 0)
        try pins.save()
        try Data("{\"x\":{\"rootKey\":\"AA==\",\"sequence\":0,\"hash\":\"AA==\"}}".utf8).write(to: URL(fileURLWithPath: folder.path + "/chain-pins.json"))
        #expect(throws: RelayClientError.self) { try ChainPins(home: folder.path) }
        try Data("not json".utf8).write(to: URL(fileURLWithPath: folder.path + "/chain-pins.json"))
        #expect(throws: RelayClientError.self) { try ChainPins(home: folder.path) }
    }
}
