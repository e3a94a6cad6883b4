import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore
@testable import VFSRelayClient
import VFSRelayProtocol

@Suite("pins")
struct PinStoreTests {
    @Test("the first chain pins its root and head in a 0600 file; a longer one moves the pin")
    func pinsAndExtends() throws {
        let folder = try TestFolder()
        let (start, one, two) = try ChainFixture.twoDevices()
        var chain = start
        var pins = try PinStore(home: folder.path)
        #expect(pins.head(of: chain.user) == nil)
        let verified = try pins.accept(chain.statements, user: chain.user)
        try pins.save()
        var attributes = stat()
        #expect(stat(folder.path + "/pins.json", &attributes) == 0)
        #expect(attributes.st_mode & 0o777 == 0o600)
        var reloaded = try PinStore(home: folder.path)
        #expect(reloaded.head(of: chain.user) == verified.head)
        #expect(reloaded.chains[chain.user]?.rootKey == Data(one.entry.signingKey))
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
        var pins = try PinStore(home: folder.path)
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
        var pins = try PinStore(home: folder.path)
        _ = try pins.accept(alice.statements, user: alice.user)
        _ = try pins.accept(bob.statements, user: bob.user)
        #expect(pins.head(of: alice.user)?.sequence == 1 && pins.head(of: bob.user)?.sequence == 0)
        try pins.save()
        try Data("{\"devices\":{},\"chains\":{\"x\":{\"rootKey\":\"AA==\",\"sequence\":0,\"hash\":\"AA==\"}}}".utf8).write(to: URL(fileURLWithPath: folder.path + "/pins.json"))
        #expect(throws: RelayClientError.self) { try PinStore(home: folder.path) }
        try Data("not json".utf8).write(to: URL(fileURLWithPath: folder.path + "/pins.json"))
        #expect(throws: RelayClientError.self) { try PinStore(home: folder.path) }
    }

    static func device(_ id: String, _ name: String, _ recipient: String) -> Device {
        Device(id: id, name: name, platform: "linux", recipient: recipient, created: Date(timeIntervalSince1970: 0))
    }

    @Test("a device's key is pinned on first sight, a changed one is refused (keyChanged) until trusted, a rename is followed")
    func deviceKeys() throws {
        let folder = try TestFolder()
        var pins = try PinStore(home: folder.path)
        #expect(try pins.check(Self.device("d1", "phone", "age1one")))
        #expect(try !pins.check(Self.device("d1", "phone", "age1one")))
        try pins.save()
        var reloaded = try PinStore(home: folder.path)
        #expect(throws: RelayClientError.keyChanged(device: "phone", pinned: "age1one", reported: "age1two")) {
            try reloaded.check(Self.device("d1", "phone", "age1two"))
        }
        #expect(try !reloaded.check(Self.device("d1", "renamed", "age1one")))
        #expect(reloaded.devices["d1"] == PinStore.DevicePin(name: "renamed", recipient: "age1one"))
        reloaded.trust(Self.device("d1", "renamed", "age1two"))
        try reloaded.save()
        var trusted = try PinStore(home: folder.path)
        #expect(try !trusted.check(Self.device("d1", "renamed", "age1two")))
    }

    @Test("device and chain pins share one file, and two values loaded at once lose nothing of each other's on save")
    func oneFile() throws {
        let folder = try TestFolder()
        let (chain, _, _) = try ChainFixture.twoDevices()
        var devicePins = try PinStore(home: folder.path)
        var chainPins = try PinStore(home: folder.path)
        try devicePins.check(Self.device("d1", "phone", "age1one"))
        _ = try chainPins.accept(chain.statements, user: chain.user)
        try devicePins.save()
        try chainPins.save()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.path + "/pins.json"))) as? [String: Any])
        #expect(Set(object.keys) == ["devices", "chains"])
        #expect((object["devices"] as? [String: Any])?.keys.sorted() == ["d1"])
        #expect((object["chains"] as? [String: Any])?.keys.sorted() == [chain.user])
        // A pin forgotten by one value stays forgotten when another, loaded before, saves.
        var forgetting = try PinStore(home: folder.path)
        var other = try PinStore(home: folder.path)
        forgetting.forget(chain.user)
        try forgetting.save()
        other.trust(Self.device("d2", "tablet", "age1three"))
        try other.save()
        let final = try PinStore(home: folder.path)
        #expect(final.head(of: chain.user) == nil && final.devices.keys.sorted() == ["d1", "d2"])
    }

    @Test("a home of before (relay-pins.json and chain-pins.json) is read with every pin and check, and moved into pins.json on the first save")
    func legacyHome() throws {
        let folder = try TestFolder()
        let (start, one, two) = try ChainFixture.twoDevices()
        var chain = start
        let shorter = chain.statements
        try chain.append(.remove(deviceId: two.entry.id), by: one)
        // Written as the code of before wrote them.
        let head = chain.statements[2]
        let chainFile = """
        {"\(chain.user)":{"hash":"\(Data(head.hash).base64EncodedString())","rootKey":"\(Data(one.entry.signingKey).base64EncodedString())","sequence":2,"verified":true}}
        """
        try Data(chainFile.utf8).write(to: URL(fileURLWithPath: folder.path + "/chain-pins.json"))
        try Data(#"{"d1":{"name":"phone","recipient":"age1one"}}"#.utf8).write(to: URL(fileURLWithPath: folder.path + "/relay-pins.json"))
        var pins = try PinStore(home: folder.path)
        #expect(pins.devices["d1"] == PinStore.DevicePin(name: "phone", recipient: "age1one"))
        #expect(pins.head(of: chain.user)?.sequence == 2 && pins.isVerified(chain.user))
        // The checks hold as before: a changed key, a shorter chain.
        #expect(throws: RelayClientError.self) { try pins.check(Self.device("d1", "phone", "age1two")) }
        #expect(throws: DeviceChainError.rolledBack(pinned: 2, served: 1)) { try pins.accept(shorter, user: chain.user) }
        try pins.check(Self.device("d2", "tablet", "age1three"))
        try pins.save()
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/chain-pins.json"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/relay-pins.json"))
        var moved = try PinStore(home: folder.path)
        #expect(moved.devices.keys.sorted() == ["d1", "d2"])
        #expect(moved.head(of: chain.user)?.sequence == 2 && moved.isVerified(chain.user))
        #expect(throws: RelayClientError.self) { try moved.check(Self.device("d1", "phone", "age1two")) }
        #expect(throws: DeviceChainError.rolledBack(pinned: 2, served: 1)) { try moved.accept(shorter, user: chain.user) }
        var attributes = stat()
        #expect(stat(folder.path + "/pins.json", &attributes) == 0 && attributes.st_mode & 0o777 == 0o600)
    }

    @Test("a damaged file of before is refused, not replaced, and nothing is moved")
    func legacyDamage() throws {
        let folder = try TestFolder()
        try Data(#"{"d1":{"name":"phone","recipient":"age1one"}}"#.utf8).write(to: URL(fileURLWithPath: folder.path + "/relay-pins.json"))
        try Data(#"{"x":{"rootKey":"AA==","sequence":0,"hash":"AA=="}}"#.utf8).write(to: URL(fileURLWithPath: folder.path + "/chain-pins.json"))
        #expect(throws: RelayClientError.self) { try PinStore(home: folder.path) }
        try Data("not json".utf8).write(to: URL(fileURLWithPath: folder.path + "/relay-pins.json"))
        try FileManager.default.removeItem(atPath: folder.path + "/chain-pins.json")
        #expect(throws: RelayClientError.self) { try PinStore(home: folder.path) }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/pins.json"))
        #expect(FileManager.default.fileExists(atPath: folder.path + "/relay-pins.json"))
    }
}
