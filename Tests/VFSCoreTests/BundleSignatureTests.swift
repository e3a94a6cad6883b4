import Foundation
import Testing
import VFSTestSupport
@testable import VFSBundle
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
        #expect(throws: BundleSignatureError.malformed("a signature entry of 65537 bytes")) {
            try BundleSignature.decode([UInt8](repeating: 0x20, count: 65537))
        }
        #expect(throws: BundleSignatureError.malformed("not a signature entry")) { try BundleSignature.decode(Array("{}".utf8)) }
        let future = Array(#"{"device":"d","signature":"","user":"u","version":4}"#.utf8)
        #expect(throws: BundleSignatureError.malformed("unknown signature version 4")) { try BundleSignature.decode(future) }
        // Version 3 needs its recipients (sorted, unique) and time; earlier versions may not carry them.
        let bare = Array(#"{"device":"d","signature":"","user":"u","version":3}"#.utf8)
        #expect(throws: BundleSignatureError.malformed("a version 3 signature without its sorted recipients and time")) { try BundleSignature.decode(bare) }
        let unsorted = Array(#"{"device":"d","recipients":["b","a"],"signature":"","time":1,"user":"u","version":3}"#.utf8)
        #expect(throws: BundleSignatureError.malformed("a version 3 signature without its sorted recipients and time")) { try BundleSignature.decode(unsorted) }
        let smuggled = Array(#"{"device":"d","recipients":["a"],"signature":"","time":1,"user":"u","version":2}"#.utf8)
        #expect(throws: BundleSignatureError.malformed("recipients or a time in a version 2 signature (they are signed in version 3 only)")) {
            try BundleSignature.decode(smuggled)
        }
    }

    @Test("version 3 signs the recipients and the time: changing either, or passing it off as version 2, breaks the signature (issue 43, item 8)")
    func addressed() throws {
        let (chain, _, two) = try ChainFixture.twoDevices()
        let verified = try DeviceChain.verify(chain.statements, user: chain.user)
        let manifest = Array("manifest".utf8), digests = Array("digests".utf8)
        let signed = try BundleSignature.sign(manifest: manifest, digests: digests, user: chain.user, device: two.entry.id, key: two.key,
                                              recipients: ["bbbb", "aaaa", "bbbb"], time: 1_800_000_000)
        #expect(signed.version == 3)
        #expect(signed.recipients == ["aaaa", "bbbb"])
        #expect(signed.time == 1_800_000_000)
        let decoded = try BundleSignature.decode(try signed.encoded())
        #expect(decoded == signed)
        #expect(try decoded.verify(manifest: manifest, digests: digests, chain: verified) == two.entry)
        var forwarded = signed
        forwarded.recipients = ["aaaa", "cccc"]
        #expect(throws: BundleSignatureError.badSignature(user: chain.user, device: two.entry.name)) {
            try forwarded.verify(manifest: manifest, digests: digests, chain: verified)
        }
        var later = signed
        later.time = 1_800_000_001
        #expect(throws: BundleSignatureError.badSignature(user: chain.user, device: two.entry.name)) {
            try later.verify(manifest: manifest, digests: digests, chain: verified)
        }
        var downgraded = signed
        downgraded.version = 2
        downgraded.recipients = nil
        downgraded.time = nil
        #expect(throws: BundleSignatureError.badSignature(user: chain.user, device: two.entry.name)) {
            try downgraded.verify(manifest: manifest, digests: digests, chain: verified)
        }
        // A bundle whose digests do not come last is signed in version 1, without them.
        #expect(try BundleSignature.sign(manifest: manifest, user: chain.user, device: two.entry.id, key: two.key,
                                         recipients: ["aaaa"], time: 1).version == 1)
    }

    @Test("a signed bundle: the entry follows the manifest, the reader keeps it apart (never extracted) and it verifies over the manifest's exact bytes")
    func signedBundle() throws {
        let tmp = try TestFolder("signed")
        try tmp.write("a.txt", "alpha\n")
        let (chain, _, two) = try ChainFixture.twoDevices()
        let verified = try DeviceChain.verify(chain.statements, user: chain.user)
        let plan = try BundlePlan(paths: [tmp.path + "/a.txt"])
        let manifest = plan.manifest(group: nil, accessID: nil, sender: nil)
        let sink = MemorySink()
        try BundleWriter.write(plan, manifest: manifest, signer: .init(user: chain.user, device: two.entry.id, key: two.key), to: sink)
        let reader = try BundleReader(source: MemorySource(sink.bytes))
        #expect(reader.manifestBytes == (try manifest.encoded()))
        let entry = try #require(reader.signatureEntry)
        #expect(try BundleSignature.decode(entry).verify(manifest: reader.manifestBytes, chain: verified) == two.entry)
        try FileManager.default.createDirectory(atPath: tmp.path + "/out", withIntermediateDirectories: true)
        #expect(try reader.extract(into: tmp.path + "/out", force: false) == 1)
        #expect(try tmp.listing("out") == ["a.txt"])
        // Unsigned, as vfs-wrap writes it: no entry.
        let unsigned = MemorySink()
        try BundleWriter.write(plan, manifest: manifest, to: unsigned)
        #expect(try BundleReader(source: MemorySource(unsigned.bytes)).signatureEntry == nil)
    }

    @Test("a signature entry anywhere but right after the manifest is refused as not in the manifest (what a reader from before signatures does with any)")
    func misplacedEntry() throws {
        let tmp = try TestFolder("misplaced")
        let manifest = try BundleManifest(group: nil, accessID: nil, sender: nil, created: Date(timeIntervalSince1970: 1_790_000_000), entries: [
            manifestEntry("a.txt", .file, content: "alpha"),
        ])
        let bytes = try rawBundleBytes(manifest: manifest, entries: [
            RawEntry(path: "a.txt", content: "alpha", mtime: manifest.entries[0].mtime),
            RawEntry(path: BundleSignature.entryName, content: "{}"),
        ])
        #expect { try BundleReader(source: MemorySource(bytes)).extract(into: tmp.path, force: false) } throws: { error in
            "\(error)".contains("\(BundleSignature.entryName)") && "\(error)".contains("it is not in the manifest")
        }
        let oversized = try rawBundleBytes(manifest: manifest, entries: [
            RawEntry(path: BundleSignature.entryName, content: String(repeating: " ", count: 65537)),
            RawEntry(path: "a.txt", content: "alpha", mtime: manifest.entries[0].mtime),
        ])
        #expect(throws: BundleSignatureError.malformed("a signature entry of 65537 bytes")) { try BundleReader(source: MemorySource(oversized)) }
    }
}
