import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

/// A statement in the chain's canonical layout (docs/device-chain.md), with a signature
/// of zeros: the relay checks the layout and the order, never the signature.
struct LaidOutStatement {
    var kind: UInt8 = 1
    var user: String
    var sequence: UInt64
    var previous = [UInt8](repeating: 0, count: 32)
    var signer: String
    var device: String
    var name = "laptop"

    var bytes: [UInt8] {
        func field(_ value: [UInt8]) -> [UInt8] { [UInt8(value.count >> 8), UInt8(value.count & 0xff)] + value }
        func number(_ value: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) } }
        var out: [UInt8] = [1, kind] + field(Array(user.utf8)) + number(sequence) + previous + number(1_800_000_000)
        out += field(Array(signer.utf8))
        if kind == 1 {
            out += field(Array(device.utf8)) + field(Array(name.utf8)) + field(Array("age1test".utf8)) + [UInt8](repeating: 7, count: 32)
        } else {
            out += field(Array(device.utf8))
        }
        return out + [UInt8](repeating: 0, count: 64)
    }
    var json: String { #"{"statement":"\#(Data(bytes).base64EncodedString())"}"# }
}

@Suite("device chain routes")
struct ChainRouteTests {
    @Test("append: the caller's user, signed by the caller, next in order; junk is 400, out of order 409; readable in the organisation only")
    func appendAndRead() async throws {
        try await RelayFixture().test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let bob = try await client.user("bob@acme.example", org: "acme")
            let carol = try await client.user("carol@other.example", org: "other")
            let alice = "alice@acme.example"
            #expect(try await client.request(.get, RelayPaths.userChain(alice), token: laptop.token).status == .notFound)
            let empty = try await client.request(.get, RelayPaths.chain, token: phone.token)
            #expect(try decode(ChainDocument.self, empty) == ChainDocument(user: alice, statements: []))

            let root = LaidOutStatement(user: alice, sequence: 0, signer: laptop.id, device: laptop.id)
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
            let phoneRoot = LaidOutStatement(user: alice, sequence: 0, signer: phone.id, device: phone.id)
            #expect(try await client.request(.post, RelayPaths.chain, token: phone.token, json: phoneRoot.json).status == .conflict)
            var add = LaidOutStatement(user: alice, sequence: 1, signer: laptop.id, device: phone.id, name: "phone")
            #expect(try await client.request(.post, RelayPaths.chain, token: laptop.token, json: add.json).status == .conflict)
            add.previous = SHA256Digest.of(root.bytes)
            #expect(try await client.request(.post, RelayPaths.chain, token: laptop.token, json: add.json).status == .created)
            let remove = LaidOutStatement(kind: 2, user: alice, sequence: 2, previous: SHA256Digest.of(add.bytes), signer: phone.id,
                                          device: laptop.id)
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
