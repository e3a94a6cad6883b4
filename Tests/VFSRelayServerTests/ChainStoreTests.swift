import Foundation
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

/// The device chain's storage on both back-ends: statements kept in order, one number
/// after the other, each naming the stored head; signing keys published once.
@Suite("relay store: device chains (SQLite and PostgreSQL)", .serialized)
struct ChainStoreTests {
    static let zeros = String(repeating: "0", count: 64)

    @Test("append in order only: the next number and the head's hash, else conflict; read by the user or by email in the organisation",
          arguments: Backend.allCases)
    func appendInOrder(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example", devices: 2)
        let carol = try await fixture.user("carol@other.example", org: "other")
        let user = alice[0].userID
        #expect(try await store.chain(user: user).isEmpty)

        func append(_ sequence: Int64, after previous: String, _ statement: String, by device: Int = 0) async throws -> [String] {
            try await store.appendChainStatement(user: user, sequence: sequence, previous: previous, statement: statement,
                                                 hash: "h" + statement.dropFirst(), device: alice[device].deviceID, now: Date())
        }
        let outOfOrder = { (length: Int, sequence: Int) in StoreError.conflict("the chain has \(length) statements: the next is number \(length), not \(sequence)") }
        let notAfterHead = StoreError.conflict("the statement does not follow the chain's last statement")

        // The root must be number 0 and name 64 zeros.
        await #expect(throws: outOfOrder(0, 1)) { _ = try await append(1, after: Self.zeros, "s1") }
        await #expect(throws: notAfterHead) { _ = try await append(0, after: "ab", "s0") }
        #expect(try await append(0, after: Self.zeros, "s0") == ["s0"])
        // A second root (another device raced) is refused; so is a statement naming another head.
        await #expect(throws: outOfOrder(1, 0)) { _ = try await append(0, after: Self.zeros, "sx", by: 1) }
        await #expect(throws: notAfterHead) { _ = try await append(1, after: "h9", "sx", by: 1) }
        #expect(try await append(1, after: "h0", "s1") == ["s0", "s1"])
        #expect(try await store.chain(user: user) == ["s0", "s1"])
        #expect(try await store.chain(email: "alice@acme.example", org: alice[0].orgID) == ["s0", "s1"])
        // Another organisation's user is not found; a user without a chain has none.
        await #expect(throws: StoreError.notFound("no user \"alice@acme.example\"")) {
            _ = try await store.chain(email: "alice@acme.example", org: carol[0].orgID)
        }
        #expect(try await store.chain(email: "carol@other.example", org: carol[0].orgID).isEmpty)
        #expect(try await store.chain(user: carol[0].userID).isEmpty)
        // An operator removes a user with a chain: the chain goes with them.
        _ = try await store.removeUser(email: "alice@acme.example", now: Date())
        #expect(try await store.chain(user: user).isEmpty)
        await #expect(throws: StoreError.notFound("no user \"alice@acme.example\"")) {
            _ = try await store.chain(email: "alice@acme.example", org: alice[0].orgID)
        }
    }

    @Test("signing keys: published once, again the same is fine, another is a conflict; listed with the device", arguments: Backend.allCases)
    func signingKeys(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example", devices: 2)
        let bob = try await fixture.user("bob@acme.example")
        let device = alice[1].deviceID
        #expect(try await store.device(id: device, user: alice[0].userID).signingKey == nil)
        #expect(try await store.setSigningKey(device: device, user: alice[0].userID, key: "key-a", now: Date()).signingKey == "key-a")
        #expect(try await store.setSigningKey(device: device, user: alice[0].userID, key: "key-a", now: Date()).signingKey == "key-a")
        await #expect(throws: StoreError.conflict("device \"device1\" already published another signing key")) {
            _ = try await store.setSigningKey(device: device, user: alice[0].userID, key: "key-b", now: Date())
        }
        await #expect(throws: StoreError.notFound("no device \"\(device)\"")) {
            _ = try await store.setSigningKey(device: device, user: bob[0].userID, key: "key-b", now: Date())
        }
        let listed = Dictionary(uniqueKeysWithValues: try await store.devices(user: alice[0].userID).map { ($0.id, $0.signingKey) })
        #expect(listed == [alice[0].deviceID: nil, device: "key-a"])
    }

    @Test("cut: the statements from a number on go if the one before is the head named, else conflict; nothing before it", arguments: Backend.allCases)
    func cutChain(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example")
        let user = alice[0].userID
        var previous = Self.zeros
        for n in 0..<4 {
            _ = try await store.appendChainStatement(user: user, sequence: Int64(n), previous: previous, statement: "s\(n)", hash: "h\(n)",
                                                     device: alice[0].deviceID, now: Date())
            previous = "h\(n)"
        }
        await #expect(throws: StoreError.conflict("the chain changed: its statement 1 is not the one verified")) {
            _ = try await store.cutChain(user: user, keeping: 2, head: "h0", actor: "operator", now: Date())
        }
        #expect(try await store.chain(user: user) == ["s0", "s1", "s2", "s3"])
        #expect(try await store.cutChain(user: user, keeping: 2, head: "h1", actor: "operator", now: Date()) == 2)
        #expect(try await store.chain(user: user) == ["s0", "s1"])
        #expect(try await store.cutChain(user: user, keeping: 2, head: "h1", actor: "operator", now: Date()) == 0)
        // The next statement follows the kept head.
        #expect(try await store.appendChainStatement(user: user, sequence: 2, previous: "h1", statement: "t2", hash: "k2",
                                                     device: alice[0].deviceID, now: Date()) == ["s0", "s1", "t2"])
        // Keeping none needs no head (a root that does not verify).
        #expect(try await store.cutChain(user: user, keeping: 0, head: nil, actor: "operator", now: Date()) == 3)
        #expect(try await store.chain(user: user).isEmpty)
    }
}
