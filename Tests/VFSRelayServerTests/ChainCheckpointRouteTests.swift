import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSDeviceChain
import VFSRelayProtocol
@testable import VFSRelayServer

/// Checkpoints at the relay (issue 43, item 10; docs/device-chain.md, "Checkpoints"): it
/// verifies and marks them, counts its bound per segment as the clients do, and serves a
/// pinned client the chain from the last checkpoint at or before its pin.
@Suite("device chain checkpoint routes")
struct ChainCheckpointRouteTests {
    static let alice = "alice@acme.example"

    /// A user's chain as the test signs it (swift-crypto), with the state it says.
    struct Signed {
        var statements: [DeviceChain.Statement] = []
        var live: [String: DeviceChain.DeviceEntry] = [:]
        var root: DeviceChain.DeviceEntry?
        var rootTimestamp: Int64 = 0

        func next(_ action: DeviceChain.Action, signer: String, key: Curve25519.Signing.PrivateKey) throws -> DeviceChain.Statement {
            var statement = DeviceChain.Statement(
                user: ChainCheckpointRouteTests.alice, sequence: UInt64(statements.count),
                previous: statements.last.map { SHA256Digest.of($0.encoded) } ?? [UInt8](repeating: 0, count: 32),
                timestamp: 1_800_000_000 + Int64(statements.count), signer: signer, action: action, signature: [])
            statement.signature = Array(try key.signature(for: statement.signedMessage))
            return statement
        }

        /// Takes a statement the test signed (it is what the chain says from now on).
        mutating func took(_ statement: DeviceChain.Statement) {
            switch statement.action {
            case .add(let entry):
                live[entry.id] = entry
                if root == nil { (root, rootTimestamp) = (entry, statement.timestamp) }
            case .remove(let id): live[id] = nil
            case .checkpoint: break
            }
            statements.append(statement)
        }

        var checkpoint: DeviceChain.Checkpoint {
            DeviceChain.Checkpoint(root: root!, rootTimestamp: rootTimestamp, devices: Array(live.values))
        }
    }

    static func entry(_ device: TestDevice, _ key: Curve25519.Signing.PrivateKey) -> DeviceChain.DeviceEntry {
        DeviceChain.DeviceEntry(id: device.id, name: device.device.name, recipient: "age1test", signingKey: Array(key.publicKey.rawRepresentation))
    }

    static func json(_ statement: DeviceChain.Statement) -> String { #"{"statement":"\#(Data(statement.encoded).base64EncodedString())"}"# }

    static func sequences(_ response: TestResponse) throws -> [UInt64] {
        try decode(ChainDocument.self, response).statements.map { try DeviceChain.Statement.decode(Array(Data(base64Encoded: $0)!)).sequence }
    }

    /// Stores statements as the relay's database holder can (no check), `checkpoint` marked.
    static func store(_ statements: [DeviceChain.Statement], user: Int64, marked: Bool, in store: SQLiteRelayStore) async throws {
        try await store.sql.database.write { db in
            for statement in statements {
                let mark = marked && statement.isCheckpoint ? 1 : 0
                try await db.run("""
                    INSERT INTO device_chains(user_id, sequence, statement, hash, created, checkpoint)
                    VALUES (\(user), \(Int64(statement.sequence)), \(Data(statement.encoded).base64EncodedString()),
                            \(Secrets.hex(SHA256Digest.of(statement.encoded))), 0, \(mark))
                    """)
            }
        }
    }

    @Test("a checkpoint is appended (by any device of the user, signed by a live one) only if it restates the chain's state; the relay serves ?pinned=N from the last one at or before N, the whole chain before it, and never from one it did not verify")
    func appendAndServe() async throws {
        let laptopKey = Curve25519.Signing.PrivateKey(), phoneKey = Curve25519.Signing.PrivateKey()
        try await RelayFixture().test { client in
            let laptop = try await client.user(Self.alice, org: "acme")
            let phone = try await client.device(of: Self.alice, name: "phone")
            let tablet = try await client.device(of: Self.alice, name: "tablet")
            let bob = try await client.user("bob@acme.example", org: "acme")
            var chain = Signed()
            func post(_ statement: DeviceChain.Statement, token: String) async throws -> TestResponse {
                try await client.request(.post, RelayPaths.chain, token: token, json: Self.json(statement))
            }
            for (action, signer) in [(DeviceChain.Action.add(Self.entry(laptop, laptopKey)), laptop.id),
                                     (.add(Self.entry(phone, phoneKey)), laptop.id), (.remove(deviceId: phone.id), laptop.id)] {
                let statement = try chain.next(action, signer: signer, key: laptopKey)
                #expect(try await post(statement, token: laptop.token).status == .created)
                chain.took(statement)
            }
            // Restating the phone, which the chain removed, signed by the laptop: 403.
            var stale = chain.checkpoint
            stale.devices = (stale.devices + [Self.entry(phone, phoneKey)]).sorted { $0.id < $1.id }
            let restatesRemoved = try await post(try chain.next(.checkpoint(stale), signer: laptop.id, key: laptopKey), token: laptop.token)
            #expect(restatesRemoved.status == .forbidden)
            #expect(String(decoding: restatesRemoved.body.readableBytesView, as: UTF8.self).contains("is a checkpoint that does not restate the live devices"))
            // Signed by the removed phone, restating itself: 403 too.
            #expect(try await post(try chain.next(.checkpoint(stale), signer: phone.id, key: phoneKey), token: phone.token).status == .forbidden)
            // The true state, signed by the laptop, posted by a device still pending (the
            // new device posts the checkpoint its old key signed): it changes nothing.
            let checkpoint = try chain.next(.checkpoint(chain.checkpoint), signer: laptop.id, key: laptopKey)
            let created = try await post(checkpoint, token: tablet.token)
            #expect(created.status == .created)
            #expect(try Self.sequences(created) == [0, 1, 2, 3], "the answer starts at the last checkpoint before the statement")
            chain.took(checkpoint)
            let after = try chain.next(.add(Self.entry(phone, phoneKey)), signer: laptop.id, key: laptopKey)
            let added = try await post(after, token: laptop.token)
            #expect(added.status == .created)
            #expect(try Self.sequences(added) == [3, 4])
            chain.took(after)

            for path in [RelayPaths.chain, RelayPaths.userChain(Self.alice)] {
                let token = path == RelayPaths.chain ? phone.token : bob.token
                #expect(try Self.sequences(try await client.request(.get, path, token: token)) == [0, 1, 2, 3, 4])
                #expect(try Self.sequences(try await client.request(.get, RelayPaths.chain(path, pinned: 2), token: token)) == [0, 1, 2, 3, 4])
                #expect(try Self.sequences(try await client.request(.get, RelayPaths.chain(path, pinned: 3), token: token)) == [3, 4])
                #expect(try Self.sequences(try await client.request(.get, RelayPaths.chain(path, pinned: 99), token: token)) == [3, 4])
                #expect(try await client.request(.get, path + "?pinned=x", token: token).status == .badRequest)
                #expect(try await client.request(.get, path + "?pinned=-1", token: token).status == .badRequest)
            }

            // A checkpoint stored behind the routes' back is not marked: never served from.
            let user = try #require(try await client.fixture.store.users().first { $0.email == Self.alice }).id
            let unmarked = try chain.next(.checkpoint(chain.checkpoint), signer: laptop.id, key: laptopKey)
            try await Self.store([unmarked], user: user, marked: false, in: client.fixture.store)
            chain.took(unmarked)
            #expect(try Self.sequences(try await client.request(.get, RelayPaths.chain(RelayPaths.chain, pinned: 5), token: laptop.token)) == [3, 4, 5])
            // Appends after it verify it in context, from the marked one.
            let next = try chain.next(.remove(deviceId: phone.id), signer: laptop.id, key: laptopKey)
            #expect(try await post(next, token: laptop.token).status == .created)
        }
    }

    @Test("well over 1,024 statements (1,986, stored directly, then through the routes): the bound counts since the last checkpoint; a segment's 1,025th is refused (403) unless a checkpoint, after which the user changes devices again, and a pinned read is one segment")
    func boundPerSegment() async throws {
        let laptopKey = Curve25519.Signing.PrivateKey(), phoneKey = Curve25519.Signing.PrivateKey()
        try await RelayFixture().test { client in
            let laptop = try await client.user(Self.alice, org: "acme")
            let phone = try await client.device(of: Self.alice, name: "phone")
            let store = client.fixture.store
            let user = try #require(try await store.users().first { $0.email == Self.alice }).id
            var chain = Signed()
            // The root, the phone added and removed in turn, a checkpoint at 960 (where the
            // clients write one), then the phone again until that segment holds 1,024.
            func step() throws -> DeviceChain.Statement {
                if chain.statements.isEmpty { return try chain.next(.add(Self.entry(laptop, laptopKey)), signer: laptop.id, key: laptopKey) }
                if chain.statements.count == DeviceChain.checkpointAfterStatements {
                    return try chain.next(.checkpoint(chain.checkpoint), signer: laptop.id, key: laptopKey)
                }
                let action: DeviceChain.Action = chain.live[phone.id] == nil ? .add(Self.entry(phone, phoneKey)) : .remove(deviceId: phone.id)
                return try chain.next(action, signer: laptop.id, key: laptopKey)
            }
            while chain.statements.count < 960 + DeviceChain.maxStatements { chain.took(try step()) }
            try await Self.store(chain.statements, user: user, marked: true, in: store)
            #expect(chain.statements.count == 1984)

            let over = try step()
            let refused = try await client.request(.post, RelayPaths.chain, token: laptop.token, json: Self.json(over))
            #expect(refused.status == .forbidden)
            #expect(String(decoding: refused.body.readableBytesView, as: UTF8.self).contains("1025 statements since a checkpoint (the limit is 1024)"))
            let checkpoint = try chain.next(.checkpoint(chain.checkpoint), signer: laptop.id, key: laptopKey)
            let created = try await client.request(.post, RelayPaths.chain, token: laptop.token, json: Self.json(checkpoint))
            #expect(created.status == .created)
            #expect(try Self.sequences(created).first == 960)
            chain.took(checkpoint)
            let change = try step()
            let changed = try await client.request(.post, RelayPaths.chain, token: laptop.token, json: Self.json(change))
            #expect(changed.status == .created)
            #expect(try Self.sequences(changed) == [1984, 1985])
            chain.took(change)

            #expect(try await store.chain(user: user).count == 1986)
            let whole = try Self.sequences(try await client.request(.get, RelayPaths.chain, token: phone.token))
            #expect(whole == Array(0...1985))
            // The whole chain verifies as a new device verifies it, segment by segment.
            let verified = try DeviceChain.verify(chain.statements, user: Self.alice, using: RelayChain.primitives)
            #expect(verified.head.sequence == 1985 && verified.segmentStatements == 2)
            #expect(try Self.sequences(try await client.request(.get, RelayPaths.chain(RelayPaths.chain, pinned: 1985), token: phone.token)) == [1984, 1985])
            // What the relay verifies an append against: from its last checkpoint.
            let prefix = RelayChain.verifiedPrefix(try await store.chain(user: user, pinned: Int64.max), user: Self.alice)
            #expect(prefix.first == 1984 && prefix.next == 1986 && prefix.dropped == 0)
        }
    }
}
