import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore

@Suite("bundle signatures")
struct BundleSignatureTests {
    static func manifest(digest: String) -> [UInt8] {
        try! BundleManifest(group: nil, accessID: nil, sender: nil, created: Date(timeIntervalSince1970: 1_790_000_000), entries: [
            .init(path: "a.txt", type: .file, size: 3, permissions: 0o644, mtime: 1, sha256: digest),
        ]).encoded()
    }

    let manifest = Self.manifest(digest: String(repeating: "ab", count: 32))

    @Test("a live device's signature of the manifest verifies to that device, and survives its entry's round trip")
    func verifies() throws {
        let (chain, _, two) = try ChainFixture.twoDevices()
        let verified = try DeviceChain.verify(chain.statements, user: chain.user)
        let signature = try BundleSignature.sign(manifest: manifest, user: chain.user, device: two.entry.id, key: two.key)
        let entry = try signature.encoded()
        let decoded = try BundleSignature.decode(entry)
        #expect(decoded == signature)
        #expect(try decoded.verify(manifest: manifest, chain: verified) == two.entry)
        let raw = try #require(Data(base64Encoded: signature.signature))
        #expect(Ed25519.verify(signature: Array(raw), of: Array("vfs bundle signature v1\0".utf8) + SHA256.hash(manifest), publicKey: two.entry.signingKey))
    }

    @Test("a changed manifest (a changed file digest) or a forged signature is refused")
    func tampered() throws {
        let (chain, _, two) = try ChainFixture.twoDevices()
        let verified = try DeviceChain.verify(chain.statements, user: chain.user)
        let signature = try BundleSignature.sign(manifest: manifest, user: chain.user, device: two.entry.id, key: two.key)
        let changed = Self.manifest(digest: String(repeating: "ab", count: 31) + "ac")
        #expect(throws: BundleSignatureError.badSignature(user: chain.user, device: "device2")) { try signature.verify(manifest: changed, chain: verified) }
        // The relay's shadow key, claiming to be device 2.
        let forged = try BundleSignature.sign(manifest: manifest, user: chain.user, device: two.entry.id, key: try Ed25519.SigningKey())
        #expect(throws: BundleSignatureError.badSignature(user: chain.user, device: "device2")) { try forged.verify(manifest: manifest, chain: verified) }
        var garbled = signature
        garbled.signature = "%%"
        #expect(throws: BundleSignatureError.badSignature(user: chain.user, device: "device2")) { try garbled.verify(manifest: manifest, chain: verified) }
    }

    @Test("a signer not live in the chain (removed, or never added) or of another user is refused")
    func notLive() throws {
        let (start, one, two) = try ChainFixture.twoDevices()
        var chain = start
        let signature = try BundleSignature.sign(manifest: manifest, user: chain.user, device: two.entry.id, key: two.key)
        try chain.append(.remove(deviceId: two.entry.id), by: one)
        let verified = try DeviceChain.verify(chain.statements, user: chain.user)
        #expect(throws: BundleSignatureError.unknownDevice(user: chain.user, device: two.entry.id)) { try signature.verify(manifest: manifest, chain: verified) }
        var bob = ChainFixture(user: "bob@example.com")
        try bob.append(.add(two.entry), by: two)
        let bobs = try DeviceChain.verify(bob.statements, user: bob.user)
        #expect(throws: BundleSignatureError.wrongUser(claimed: chain.user, chain: bob.user)) { try signature.verify(manifest: manifest, chain: bobs) }
    }

    @Test("an oversized, unparsable or future signature entry is refused")
    func malformed() throws {
        #expect(throws: BundleSignatureError.malformed("a signature entry of 4097 bytes")) {
            try BundleSignature.decode([UInt8](repeating: 0x20, count: 4097))
        }
        #expect(throws: BundleSignatureError.malformed("not a signature entry")) { try BundleSignature.decode(Array("{}".utf8)) }
        let future = Array(#"{"device":"d","signature":"","user":"u","version":2}"#.utf8)
        #expect(throws: BundleSignatureError.malformed("unknown signature version 2")) { try BundleSignature.decode(future) }
    }
}
