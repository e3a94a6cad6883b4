import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSDeviceChain
import VFSRelayProtocol
@testable import VFSRelayServer

/// A statement in the chain's canonical layout (docs/device-chain.md), written byte by
/// byte (not with the library's encoder), signed by `key` (swift-crypto's Ed25519) or,
/// without one, with 64 random bytes for a signature: what a stolen token can send.
struct LaidOutStatement {
    var kind: UInt8 = 1
    var user: String
    var sequence: UInt64
    var previous = [UInt8](repeating: 0, count: 32)
    var signer: String
    var device: String
    var name = "laptop"
    /// The added device's signing key (its public half goes in the statement).
    var added: Curve25519.Signing.PrivateKey? = nil
    /// The signer's key; nil: a random signature.
    var key: Curve25519.Signing.PrivateKey? = nil
    private let randomSignature = (0..<64).map { _ in UInt8.random(in: 0...255) }

    var bytes: [UInt8] {
        let body = body
        guard let key else { return body + randomSignature }
        return body + Array(try! key.signature(for: Array("vfs device chain statement v1\0".utf8) + body))
    }

    var body: [UInt8] {
        func field(_ value: [UInt8]) -> [UInt8] { [UInt8(value.count >> 8), UInt8(value.count & 0xff)] + value }
        func number(_ value: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) } }
        var out: [UInt8] = [1, kind] + field(Array(user.utf8)) + number(sequence) + previous + number(1_800_000_000)
        out += field(Array(signer.utf8))
        if kind == 1 {
            out += field(Array(device.utf8)) + field(Array(name.utf8)) + field(Array("age1test".utf8))
            out += added.map { Array($0.publicKey.rawRepresentation) } ?? [UInt8](repeating: 7, count: 32)
        } else {
            out += field(Array(device.utf8))
        }
        return out
    }
    var json: String { #"{"statement":"\#(Data(bytes).base64EncodedString())"}"# }
}

@Suite("device chain routes")
struct ChainRouteTests {
    @Test("append: the caller's user, signed by the caller, next in order; junk is 400, out of order 409; readable in the organisation only")
    func appendAndRead() async throws {
        let laptopKey = Curve25519.Signing.PrivateKey(), phoneKey = Curve25519.Signing.PrivateKey()
        try await RelayFixture().test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let bob = try await client.user("bob@acme.example", org: "acme")
            let carol = try await client.user("carol@other.example", org: "other")
            let alice = "alice@acme.example"
            #expect(try await client.request(.get, RelayPaths.userChain(alice), token: laptop.token).status == .notFound)
            let empty = try await client.request(.get, RelayPaths.chain, token: phone.token)
            #expect(try decode(ChainDocument.self, empty) == ChainDocument(user: alice, statements: []))

            let root = LaidOutStatement(user: alice, sequence: 0, signer: laptop.id, device: laptop.id, added: laptopKey, key: laptopKey)
            // Junk: not base64, truncated, bytes after the signature, another user, signed by another device.
            #expect(try await client.request(.post, RelayPaths.chain, token: laptop.token, json: #"{"statement":"%%%"}"#).status == .badRequest)
            #expect(try await client.request(.post, RelayPaths.chain, token: laptop.token,
                                             json: #"{"statement":"\#(Data(root.bytes.dropLast()).base64EncodedString())"}"#).status == .badRequest)
            #expect(try await client.request(.post, RelayPaths.chain, token: laptop.token,
                                             json: #"{"statement":"\#(Data(root.bytes + [0]).base64EncodedString())"}"#).status == .badRequest)
            var other = root
            other.user = "bob@acme.example"
            #expect(try await client.request(.post, RelayPaths.chain, token: laptop.token, json: other.json).status == .badRequest)
            #expect(try await client.request(.post, RelayPaths.chain, token: phone.token, json: root.json).status == .badRequest)
            #expect(try await client.request(.post, RelayPaths.chain, token: laptop.token, json: #"{"statement":"","x":1}"#).status == .badRequest)

            let created = try await client.request(.post, RelayPaths.chain, token: laptop.token, json: root.json)
            #expect(created.status == .created)
            #expect(try decode(ChainDocument.self, created) == ChainDocument(user: alice, statements: [Data(root.bytes).base64EncodedString()]))
            // A second root loses; so does a statement naming another head.
            let phoneRoot = LaidOutStatement(user: alice, sequence: 0, signer: phone.id, device: phone.id, added: phoneKey, key: phoneKey)
            #expect(try await client.request(.post, RelayPaths.chain, token: phone.token, json: phoneRoot.json).status == .conflict)
            var add = LaidOutStatement(user: alice, sequence: 1, signer: laptop.id, device: phone.id, name: "phone", added: phoneKey, key: laptopKey)
            #expect(try await client.request(.post, RelayPaths.chain, token: laptop.token, json: add.json).status == .conflict)
            add.previous = SHA256Digest.of(root.bytes)
            #expect(try await client.request(.post, RelayPaths.chain, token: laptop.token, json: add.json).status == .created)
            let remove = LaidOutStatement(kind: 2, user: alice, sequence: 2, previous: SHA256Digest.of(add.bytes), signer: phone.id,
                                          device: laptop.id, key: phoneKey)
            #expect(try await client.request(.post, RelayPaths.chain, token: phone.token, json: remove.json).status == .created)

            let expected = ChainDocument(user: alice, statements: [root, add, remove].map { Data($0.bytes).base64EncodedString() })
            #expect(try decode(ChainDocument.self, try await client.request(.get, RelayPaths.chain, token: phone.token)) == expected)
            for reader in [laptop, phone, bob] {
                let read = try await client.request(.get, RelayPaths.userChain(alice), token: reader.token)
                #expect(read.status == .ok)
                #expect(try decode(ChainDocument.self, read) == expected)
            }
            // Another organisation's device does not see it.
            #expect(try await client.request(.get, RelayPaths.userChain(alice), token: carol.token).status == .notFound)
            #expect(try await client.request(.get, RelayPaths.userChain(alice)).status == .unauthorized)
        }
    }

    /// Alice's laptop and her phone (enrolled, still pending), and the chain's root (the
    /// laptop adding itself, signed with `laptopKey`) appended by the laptop: the set-up of
    /// the tests that then append, cut or log out past it.
    struct RootedChain {
        let alice: String
        let laptop: TestDevice
        let phone: TestDevice
        let root: LaidOutStatement
        /// The root's hash: what statement 1 names as its previous one.
        let head: [UInt8]
    }

    static func rootedChain(_ client: TestClient, laptopKey: Curve25519.Signing.PrivateKey) async throws -> RootedChain {
        let alice = "alice@acme.example"
        let laptop = try await client.user(alice, org: "acme")
        let phone = try await client.device(of: alice, name: "phone")
        let root = LaidOutStatement(user: alice, sequence: 0, signer: laptop.id, device: laptop.id, added: laptopKey, key: laptopKey)
        #expect(try await client.request(.post, RelayPaths.chain, token: laptop.token, json: root.json).status == .created)
        return RootedChain(alice: alice, laptop: laptop, phone: phone, root: root, head: SHA256Digest.of(root.bytes))
    }

    @Test("a stolen token appends nothing: a random signature, a pending device's add of itself or its remove of a live device are 403, the chain unchanged")
    func appendVerifies() async throws {
        let laptopKey = Curve25519.Signing.PrivateKey(), phoneKey = Curve25519.Signing.PrivateKey()
        try await RelayFixture().test { client in
            let chain = try await Self.rootedChain(client, laptopKey: laptopKey)
            let (alice, laptop, phone, root, head) = (chain.alice, chain.laptop, chain.phone, chain.root, chain.head)
            // The laptop's token, stolen: no signing key, so a signature of random bytes.
            let forged = LaidOutStatement(user: alice, sequence: 1, previous: head, signer: laptop.id, device: phone.id, name: "phone", added: phoneKey)
            let refused = try await client.request(.post, RelayPaths.chain, token: laptop.token, json: forged.json)
            #expect(refused.status == .forbidden)
            #expect(String(decoding: refused.body.readableBytesView, as: UTF8.self).contains("statement 1: bad signature"))
            // The user's own pending device: an add of itself, signed by itself; a remove of the laptop.
            let selfAdd = LaidOutStatement(user: alice, sequence: 1, previous: head, signer: phone.id, device: phone.id, name: "phone",
                                           added: phoneKey, key: phoneKey)
            let pending = try await client.request(.post, RelayPaths.chain, token: phone.token, json: selfAdd.json)
            #expect(pending.status == .forbidden)
            #expect(String(decoding: pending.body.readableBytesView, as: UTF8.self).contains("which is not in the chain at that point"))
            let removal = LaidOutStatement(kind: 2, user: alice, sequence: 1, previous: head, signer: phone.id, device: laptop.id, key: phoneKey)
            #expect(try await client.request(.post, RelayPaths.chain, token: phone.token, json: removal.json).status == .forbidden)
            let expected = ChainDocument(user: alice, statements: [Data(root.bytes).base64EncodedString()])
            #expect(try decode(ChainDocument.self, try await client.request(.get, RelayPaths.chain, token: laptop.token)) == expected)
            // The real approval still goes in.
            let approval = LaidOutStatement(user: alice, sequence: 1, previous: head, signer: laptop.id, device: phone.id, name: "phone",
                                            added: phoneKey, key: laptopKey)
            #expect(try await client.request(.post, RelayPaths.chain, token: laptop.token, json: approval.json).status == .created)
        }
    }

    @Test("a root signed by another key than the one it adds is 403")
    func rootVerifies() async throws {
        try await RelayFixture().test { client in
            let alice = "alice@acme.example"
            let laptop = try await client.user(alice, org: "acme")
            let root = LaidOutStatement(user: alice, sequence: 0, signer: laptop.id, device: laptop.id,
                                        added: Curve25519.Signing.PrivateKey(), key: Curve25519.Signing.PrivateKey())
            #expect(try await client.request(.post, RelayPaths.chain, token: laptop.token, json: root.json).status == .forbidden)
            let user = try #require(try await client.fixture.store.users().first { $0.email == alice }).id
            #expect(try await client.fixture.store.chain(user: user).isEmpty)
        }
    }

    @Test("a stored tail that does not verify (from before the relay verified) is cut by the next append after the verified statements")
    func storedTailCut() async throws {
        let laptopKey = Curve25519.Signing.PrivateKey(), phoneKey = Curve25519.Signing.PrivateKey()
        try await RelayFixture().test { client in
            let chain = try await Self.rootedChain(client, laptopKey: laptopKey)
            let (alice, laptop, phone, root, head) = (chain.alice, chain.laptop, chain.phone, chain.root, chain.head)
            // What a relay before this one took from a stolen token: stored as is.
            let forged = LaidOutStatement(user: alice, sequence: 1, previous: head, signer: laptop.id, device: phone.id, name: "phone", added: phoneKey)
            let store = client.fixture.store
            let user = try #require(try await store.users().first { $0.email == alice }).id
            _ = try await store.appendChainStatement(user: user, sequence: 1, previous: Secrets.hex(head),
                                                     statement: Data(forged.bytes).base64EncodedString(),
                                                     hash: Secrets.hex(SHA256Digest.of(forged.bytes)), device: laptop.id, now: Date())
            let prefix = RelayChain.verifiedPrefix(try await store.chain(user: user), user: alice)
            #expect(prefix.statements.count == 1 && prefix.dropped == 1)
            #expect(prefix.refused == .badSignature(index: 1))
            // Following the forged statement is refused; following the verified root goes in, and the tail is gone.
            let afterForged = LaidOutStatement(user: alice, sequence: 2, previous: SHA256Digest.of(forged.bytes), signer: laptop.id,
                                               device: phone.id, name: "phone", added: phoneKey, key: laptopKey)
            #expect(try await client.request(.post, RelayPaths.chain, token: laptop.token, json: afterForged.json).status == .conflict)
            let approval = LaidOutStatement(user: alice, sequence: 1, previous: head, signer: laptop.id, device: phone.id, name: "phone",
                                            added: phoneKey, key: laptopKey)
            let created = try await client.request(.post, RelayPaths.chain, token: laptop.token, json: approval.json)
            #expect(created.status == .created)
            #expect(try decode(ChainDocument.self, created).statements == [root, approval].map { Data($0.bytes).base64EncodedString() })
        }
    }

    @Test("a pending device logs out no other device (403); an approved one does; a logged-out token reads its user's chain and nothing else")
    func logoutRules() async throws {
        let laptopKey = Curve25519.Signing.PrivateKey()
        try await RelayFixture().test { client in
            let rooted = try await Self.rootedChain(client, laptopKey: laptopKey)
            let (alice, laptop, phone, root) = (rooted.alice, rooted.laptop, rooted.phone, rooted.root)
            let tablet = try await client.device(of: alice, name: "tablet")
            // The phone is pending: it logs out neither the laptop nor the tablet.
            #expect(try await client.request(.delete, RelayPaths.devices + "/" + laptop.id, token: phone.token).status == .forbidden)
            #expect(try await client.request(.delete, RelayPaths.devices + "/" + tablet.id, token: phone.token).status == .forbidden)
            #expect(try await client.request(.get, RelayPaths.devices, token: laptop.token).status == .ok)
            // The laptop, in the chain, logs the phone out.
            #expect(try await client.request(.delete, RelayPaths.devices + "/" + phone.id, token: laptop.token).status == .noContent)
            // The phone's dead token reads its user's chain (to learn whether it was removed), and nothing else.
            let chain = try await client.request(.get, RelayPaths.chain, token: phone.token)
            #expect(chain.status == .ok)
            #expect(try decode(ChainDocument.self, chain) == ChainDocument(user: alice, statements: [Data(root.bytes).base64EncodedString()]))
            #expect(try await client.request(.get, RelayPaths.devices, token: phone.token).status == .unauthorized)
            #expect(try await client.request(.get, RelayPaths.userChain(alice), token: phone.token).status == .unauthorized)
            #expect(try await client.request(.post, RelayPaths.chain, token: phone.token, json: root.json).status == .unauthorized)
            // A pending device may still log itself out.
            #expect(try await client.request(.delete, RelayPaths.devices + "/" + tablet.id, token: tablet.token).status == .noContent)
        }
    }

    @Test("the relay stores no more statements than clients accept: the 1025th is refused (403), the bound is the clients' DeviceChain.maxStatements")
    func statementBound() async throws {
        let laptopKey = Curve25519.Signing.PrivateKey(), phoneKey = Curve25519.Signing.PrivateKey()
        try await RelayFixture().test { client in
            let alice = "alice@acme.example"
            let laptop = try await client.user(alice, org: "acme")
            let phone = try await client.device(of: alice, name: "phone")
            let store = client.fixture.store
            let user = try #require(try await store.users().first { $0.email == alice }).id
            // A chain of 1024 valid statements (the root, then the phone added and removed in
            // turn, all by the laptop), stored as the relay keeps it.
            var previous = [UInt8](repeating: 0, count: 32)
            func statement(_ n: Int) -> LaidOutStatement {
                n == 0 ? LaidOutStatement(user: alice, sequence: 0, signer: laptop.id, device: laptop.id, added: laptopKey, key: laptopKey)
                    : LaidOutStatement(kind: n % 2 == 1 ? 1 : 2, user: alice, sequence: UInt64(n), previous: previous, signer: laptop.id,
                                       device: phone.id, name: "phone", added: n % 2 == 1 ? phoneKey : nil, key: laptopKey)
            }
            for n in 0..<DeviceChain.maxStatements {
                let bytes = statement(n).bytes
                _ = try await store.appendChainStatement(user: user, sequence: Int64(n), previous: Secrets.hex(previous),
                                                         statement: Data(bytes).base64EncodedString(), hash: Secrets.hex(SHA256Digest.of(bytes)),
                                                         device: laptop.id, now: Date())
                previous = SHA256Digest.of(bytes)
            }
            #expect(DeviceChain.maxStatements == 1024)
            #expect(RelayChain.verifiedPrefix(try await store.chain(user: user), user: alice).statements.count == 1024)
            let next = statement(DeviceChain.maxStatements)
            let refused = try await client.request(.post, RelayPaths.chain, token: laptop.token, json: next.json)
            #expect(refused.status == .forbidden)
            #expect(String(decoding: refused.body.readableBytesView, as: UTF8.self).contains("the limit is 1024"))
            #expect(try await store.chain(user: user).count == 1024)
            // A 1,025th stored behind the routes' back (as a relay before the limit could have):
            // the relay's parse of its stored chain stops at the same limit, the clients' own.
            _ = try await store.appendChainStatement(user: user, sequence: 1024, previous: Secrets.hex(previous),
                                                     statement: Data(next.bytes).base64EncodedString(),
                                                     hash: Secrets.hex(SHA256Digest.of(next.bytes)), device: laptop.id, now: Date())
            let prefix = RelayChain.verifiedPrefix(try await store.chain(user: user), user: alice)
            #expect(prefix.statements.count == 1024 && prefix.dropped == 1)
            #expect(prefix.refused == .malformed(index: 1024, reason: "1025 statements (the limit is 1024)"))
        }
    }

    @Test("signing key: a device publishes its own, once; listed with it")
    func signingKey() async throws {
        try await RelayFixture().test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let key = Data(repeating: 5, count: 32).base64EncodedString()
            let body = #"{"signingKey":"\#(key)"}"#
            #expect(try await client.request(.put, RelayPaths.deviceSigningKey(phone.id), token: laptop.token, json: body).status == .forbidden)
            #expect(try await client.request(.put, RelayPaths.deviceSigningKey(phone.id), token: phone.token,
                                             json: #"{"signingKey":"AAAA"}"#).status == .badRequest)
            let published = try await client.request(.put, RelayPaths.deviceSigningKey(phone.id), token: phone.token, json: body)
            #expect(published.status == .ok)
            #expect(try decode(Device.self, published).signingKey == key)
            #expect(try await client.request(.put, RelayPaths.deviceSigningKey(phone.id), token: phone.token, json: body).status == .ok)
            let another = #"{"signingKey":"\#(Data(repeating: 6, count: 32).base64EncodedString())"}"#
            #expect(try await client.request(.put, RelayPaths.deviceSigningKey(phone.id), token: phone.token, json: another).status == .conflict)
            let listed = try decode([Device].self, try await client.request(.get, RelayPaths.devices, token: laptop.token))
            #expect(listed.first { $0.id == phone.id }?.signingKey == key)
            #expect(listed.first { $0.id == laptop.id }?.signingKey == nil)
        }
    }
}
