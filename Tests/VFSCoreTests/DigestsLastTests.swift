import Foundation
import Testing
import VFSTestSupport
@testable import VFSBundle
@testable import VFSCore

/// The paths of a plaintext bundle's entries, in order, as libarchive reads them.
private func entryNames(_ bytes: [UInt8]) throws -> [String] {
    let reader = try ArchiveReader(source: MemorySource(bytes))
    var names: [String] = []
    // Folders as pax stores them, with a slash.
    while let header = try reader.nextHeader() { names.append(header.path.hasSuffix("/") ? String(header.path.dropLast()) : header.path) }
    return names
}

/// A version 2 manifest of `entries` (no digests inside).
private func manifestV2(_ entries: [BundleManifest.Entry]) -> BundleManifest {
    BundleManifest(group: nil, accessID: nil, sender: nil, created: Date(timeIntervalSince1970: 1_790_000_000),
                   entries: entries.map { var e = $0; e.sha256 = nil; return e }, version: BundleManifest.digestsLastVersion)
}

/// A forged version 2 bundle: the manifest, `files` (path, content) as files, then `trailer` as given.
private func forgedV2(_ files: [(String, String)], trailer: [RawEntry]) throws -> [UInt8] {
    let manifest = manifestV2(files.map { manifestEntry($0.0, content: $0.1) })
    return try rawBundleBytes(manifest: manifest, entries: files.map { RawEntry(path: $0.0, content: $0.1, mtime: 1_700_000_000) } + trailer)
}

private func digestsEntry(_ digests: [String]) throws -> RawEntry {
    RawEntry(path: BundleDigests.entryName, content: String(decoding: try BundleDigests(sha256: digests).encoded(), as: UTF8.self))
}

private func hex(_ text: String) -> String { SHA256.hash(Array(text.utf8)).hexString }

@Suite("bundles whose digests come last (manifest version 2)")
struct DigestsLastTests {
    @Test("a plan with digestsLast reads no file before the write; the digests entry follows the last file, then the signature; it extracts and streams as version 1 does")
    func roundTrip() throws {
        let tmp = try TestFolder("digests-last")
        try FileManager.default.createDirectory(atPath: tmp.path + "/src/sub", withIntermediateDirectories: true)
        try tmp.write("src/a.txt", "alpha\n")
        try tmp.write("src/sub/big.bin", testBytes(3 << 20, seed: 3))
        try FileManager.default.createSymbolicLink(atPath: tmp.path + "/src/sub/link", withDestinationPath: "../a.txt")
        let plan = try BundlePlan(paths: [tmp.path + "/src"], standardInputName: "in.txt", standardInput: MemorySource(Array("piped\n".utf8)),
                                  digestsLast: true)
        #expect(plan.entries.allSatisfy { $0.sha256 == nil })
        let manifest = plan.manifest(group: "g", accessID: nil, sender: nil)
        #expect(manifest.version == 2 && manifest.digestsLast)
        let (chain, _, two) = try ChainFixture.twoDevices()
        let verified = try DeviceChain.verify(chain.statements, user: chain.user)
        let sink = MemorySink()
        try BundleWriter.write(plan, manifest: manifest, signer: .init(user: chain.user, device: two.entry.id, key: two.key), to: sink)
        #expect(try entryNames(sink.bytes) == [BundleManifest.entryName, "src", "src/a.txt", "src/sub", "src/sub/big.bin", "src/sub/link",
                                               "in.txt", BundleDigests.entryName, BundleSignature.entryName])

        let reader = try BundleReader(source: MemorySource(sink.bytes))
        #expect(reader.signatureEntry == nil && reader.digestsEntry == nil, "known only after the last file")
        var checked = 0
        try reader.whenSignatureRead { read in
            let entry = try #require(read.signatureEntry)
            let digests = try BundleDigests.decode(try #require(read.digestsEntry), files: 3)
            #expect(digests.sha256 == [hex("alpha\n"), SHA256.hash(Array(testBytes(3 << 20, seed: 3))).hexString, hex("piped\n")])
            #expect(try BundleSignature.decode(entry).verify(manifest: read.manifestBytes, digests: read.digestsEntry, chain: verified) == two.entry)
            checked += 1
        }
        #expect(checked == 0)
        try FileManager.default.createDirectory(atPath: tmp.path + "/out", withIntermediateDirectories: true)
        #expect(try reader.extract(into: tmp.path + "/out", force: false) == 6)
        #expect(checked == 1)
        #expect(try tmp.listing("out") == ["in.txt", "src"])
        #expect(try tmp.text("out/src/a.txt") == "alpha\n")
        #expect(try tmp.text("out/in.txt") == "piped\n")
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: tmp.path + "/out/src/sub/big.bin"))) == Array(testBytes(3 << 20, seed: 3)))

        // Every file to one stream, as tar -xO.
        let stream = MemorySink()
        try BundleReader(source: MemorySource(sink.bytes)).writeFiles(to: stream)
        #expect(stream.bytes == Array("alpha\n".utf8) + Array(testBytes(3 << 20, seed: 3)) + Array("piped\n".utf8))
    }

    @Test("a digest that does not match, a missing digests entry, a wrong count or anything after the trailer: refused, and an extraction places nothing")
    func refused() throws {
        let tmp = try TestFolder("digests-last")
        let files = [("a.txt", "alpha"), ("b.txt", "bravo")]
        let out = tmp.path + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        func extract(_ bytes: [UInt8]) throws { try BundleReader(source: MemorySource(bytes)).extract(into: out, force: false) }

        let good = try forgedV2(files, trailer: [try digestsEntry([hex("alpha"), hex("bravo")])])
        try extract(good)
        #expect(try tmp.listing("out") == ["a.txt", "b.txt"])
        try FileManager.default.removeItem(atPath: out)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)

        let swapped = try forgedV2(files, trailer: [try digestsEntry([hex("alpha"), hex("brave")])])
        #expect(throws: BundleError.digestMismatch(path: "b.txt")) { try extract(swapped) }
        #expect(throws: BundleError.digestMismatch(path: "b.txt")) { try BundleReader(source: MemorySource(swapped)).writeFiles(to: MemorySink()) }
        let missing = try forgedV2(files, trailer: [])
        #expect { try extract(missing) } throws: { "\($0)".contains("ends without \(BundleDigests.entryName)") }
        let short = try forgedV2(files, trailer: [try digestsEntry([hex("alpha")])])
        #expect { try extract(short) } throws: { "\($0)".contains("lists 1 digests for 2 files") }
        let uppercase = try forgedV2(files, trailer: [try digestsEntry([hex("alpha").uppercased(), hex("bravo")])])
        #expect { try extract(uppercase) } throws: { "\($0)".contains("not SHA-256 in lowercase hex") }
        let extra = try forgedV2(files, trailer: [try digestsEntry([hex("alpha"), hex("bravo")]), RawEntry(path: "c.txt", content: "more")])
        #expect { try extract(extra) } throws: { "\($0)".contains("c.txt") && "\($0)".contains("not in the manifest") }
        let afterSignature = try forgedV2(files, trailer: [try digestsEntry([hex("alpha"), hex("bravo")]),
                                                           RawEntry(path: BundleSignature.entryName, content: "{}"), RawEntry(path: "c.txt", content: "more")])
        #expect { try extract(afterSignature) } throws: { "\($0)".contains("c.txt") && "\($0)".contains("not in the manifest") }
        #expect(try tmp.listing("out") == [], "nothing placed, no staging folder left")

        // A version 2 manifest that holds digests, a version 1 manifest that lacks one: refused.
        var withDigest = manifestV2([manifestEntry("a.txt", content: "alpha")])
        withDigest.entries[0].sha256 = hex("alpha")
        #expect { try withDigest.validate() } throws: { "\($0)".contains("has a sha256 in a version 2 manifest") }
        var v1 = withDigest
        v1.version = 1
        v1.entries[0].sha256 = nil
        #expect { try v1.validate() } throws: { "\($0)".contains("has no valid sha256") }
    }

    @Test("the signature of a version 2 bundle is checked after the last file and before anything is placed; it signs the digests too")
    func signatureLast() throws {
        let tmp = try TestFolder("digests-last")
        try tmp.write("a.txt", "alpha\n")
        let (chain, _, two) = try ChainFixture.twoDevices()
        let verified = try DeviceChain.verify(chain.statements, user: chain.user)
        let plan = try BundlePlan(paths: [tmp.path + "/a.txt"], digestsLast: true)
        let sink = MemorySink()
        try BundleWriter.write(plan, manifest: plan.manifest(group: nil, accessID: nil, sender: nil),
                               signer: .init(user: chain.user, device: two.entry.id, key: two.key), to: sink)
        let out = tmp.path + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        struct Refused: Error {}
        let reader = try BundleReader(source: MemorySource(sink.bytes))
        try reader.whenSignatureRead { _ in throw Refused() }
        #expect(throws: Refused.self) { try reader.extract(into: out, force: false) }
        #expect(try tmp.listing("out") == [], "a refused signature places nothing")

        let read = try BundleReader(source: MemorySource(sink.bytes))
        try read.readThrough()
        let manifest = read.manifestBytes, digests = try #require(read.digestsEntry)
        let signature = try BundleSignature.decode(try #require(read.signatureEntry))
        #expect(signature.version == 2)
        #expect(try signature.verify(manifest: manifest, digests: digests, chain: verified) == two.entry)
        let raw = try #require(Data(base64Encoded: signature.signature))
        #expect(Ed25519.verify(signature: Array(raw), of: Array("vfs bundle signature v2\0".utf8) + SHA256.hash(manifest) + SHA256.hash(digests),
                               publicKey: two.entry.signingKey))
        // Other digests (the same manifest): not this signature.
        let other = try BundleDigests(sha256: [hex("other\n")]).encoded()
        #expect(throws: BundleSignatureError.badSignature(user: chain.user, device: "device2")) {
            try signature.verify(manifest: manifest, digests: other, chain: verified)
        }
        // A version 1 signature (of the manifest alone) never stands for a version 2 bundle,
        // nor a version 2 one for a version 1 bundle.
        let v1 = try BundleSignature.sign(manifest: manifest, user: chain.user, device: two.entry.id, key: two.key)
        #expect(throws: BundleSignatureError.malformed("a version 1 signature on a bundle that takes version 2 or 3")) {
            try v1.verify(manifest: manifest, digests: digests, chain: verified)
        }
        #expect(throws: BundleSignatureError.malformed("a version 2 signature on a bundle that takes version 1")) {
            try signature.verify(manifest: manifest, chain: verified)
        }
    }

    @Test("a file that changes after the plan fails the write: what is sealed is what was hashed")
    func changedAfterPlan() throws {
        let tmp = try TestFolder("digests-last")
        try tmp.write("f.txt", "first\n")
        let plan = try BundlePlan(paths: [tmp.path + "/f.txt"], digestsLast: true)
        try tmp.write("f.txt", "second, longer\n")
        #expect(throws: BundleError.changedWhileWrapping(path: tmp.path + "/f.txt")) {
            try BundleWriter.write(plan, manifest: plan.manifest(group: nil, accessID: nil, sender: nil), to: MemorySink())
        }
    }

    @Test("a file named .vfs-signature.json first in an unsigned bundle is the file, not a signature (either version)", arguments: [false, true])
    func fileNamedLikeTheSignature(digestsLast: Bool) throws {
        let tmp = try TestFolder("digests-last")
        try FileManager.default.createDirectory(atPath: tmp.path + "/in", withIntermediateDirectories: true)
        try tmp.write("in/" + BundleSignature.entryName, "not a signature\n")
        try tmp.write("in/b.txt", "bravo\n")
        let plan = try BundlePlan(paths: [tmp.path + "/in/" + BundleSignature.entryName, tmp.path + "/in/b.txt"], digestsLast: digestsLast)
        let sink = MemorySink()
        try BundleWriter.write(plan, manifest: plan.manifest(group: nil, accessID: nil, sender: nil), to: sink)
        let reader = try BundleReader(source: MemorySource(sink.bytes))
        try FileManager.default.createDirectory(atPath: tmp.path + "/out", withIntermediateDirectories: true)
        #expect(try reader.extract(into: tmp.path + "/out", force: false) == 2)
        #expect(reader.signatureEntry == nil)
        #expect(try tmp.text("out/" + BundleSignature.entryName) == "not a signature\n")
    }
}
