import Foundation
import Testing
import VFSTestSupport
@testable import VFSBundle
@testable import VFSCore

private func entry(_ path: String, _ type: BundleManifest.Entry.Kind = .file, mode: UInt32 = 0o644, content: String = "",
                   target: String? = nil) -> BundleManifest.Entry {
    manifestEntry(path, type, content: content, mode: mode, target: target)
}

/// A plaintext bundle that may lie: `manifest` is stored first, then `entries` as given.
private func rawBundle(manifest: BundleManifest, entries: [(BundleManifest.Entry, String)]) throws -> [UInt8] {
    try rawBundleBytes(manifest: manifest, entries: entries.map { e, content in
        RawEntry(path: e.path, kind: e.type == .file ? .file : e.type == .directory ? .directory : .symlink, content: content,
                 mode: mode_t(e.permissions ?? 0), target: e.target, mtime: e.mtime)
    })
}

@Suite("bundles: manifest, writer, reader, safe extraction")
struct BundleTests {
    @Test("the manifest round-trips through JSON")
    func manifestRoundTrip() throws {
        let m = BundleManifest(group: "team", accessID: "viewer", sender: nil, created: Date(timeIntervalSince1970: 1_700_000_000),
                               entries: [entry("d", .directory, mode: 0o755), entry("d/a.txt", content: "hi"), entry("d/l", .symlink, mode: 0o777, target: "a.txt")])
        let decoded = try BundleManifest.decode(try m.encoded())
        #expect(decoded == m)
        let text = String(decoding: try m.encoded(), as: UTF8.self)
        #expect(text.contains("\"access_id\" : \"viewer\"") && text.contains("\"mode\" : \"0644\"") && text.contains("2023-11-14T22:13:20Z"))
    }

    @Test("the manifest refuses unsafe or malformed entries", arguments: [
        ([entry("/etc/passwd")], "absolute"),
        ([entry("../x")], "\"..\""),
        ([entry("d", .directory), entry("d/../../x")], "\"..\""),
        ([entry("./x")], "normal form"),
        ([entry("a//b")], "normal form"),
        ([entry("x"), entry("x")], "twice"),
        ([entry("d/x")], "not an earlier entry"),
        ([entry("l", .symlink, mode: 0o777, target: "."), entry("l/x")], "below the symbolic link"),
        ([entry("f"), entry("f/x")], "below the file"),
        ([entry("x", mode: 0o4755)], "setuid"),
        ([entry("x", mode: 0o2755)], "setuid"),
        ([entry("l", .symlink, mode: 0o777, target: "../out")], "outside"),
        ([entry("l", .symlink, mode: 0o777, target: "/etc")], "outside"),
        ([entry(BundleManifest.entryName)], "reserved"),
    ] as [([BundleManifest.Entry], String)])
    func manifestRefuses(entries: [BundleManifest.Entry], why: String) throws {
        let m = BundleManifest(group: nil, accessID: nil, sender: nil, entries: entries)
        #expect { try BundleManifest.decode(try m.encoded()) } throws: { error in
            "\(error)".contains(why) && isBadBundle(error)
        }
    }

    @Test("the manifest refuses a newer version, a bad digest and junk")
    func manifestFormat() throws {
        var m = BundleManifest(group: nil, accessID: nil, sender: nil, entries: [entry("x")])
        m.version = 2
        #expect(throws: BundleError.self) { try BundleManifest.decode(try m.encoded()) }
        m.version = 1
        m.entries[0].sha256 = "ABC"
        #expect(throws: BundleError.self) { try BundleManifest.decode(try m.encoded()) }
        #expect(throws: BundleError.self) { try BundleManifest.decode(Array("{\"version\":1}".utf8)) }
        #expect(throws: BundleError.self) { try BundleManifest.decode(Array("not json".utf8)) }
    }

    @Test("links must stay inside, also through other links of the bundle")
    func linkResolution() {
        #expect(BundlePath.linkStaysInside(path: "src/sub/link", target: "../a.txt", links: [:]))
        #expect(BundlePath.linkStaysInside(path: "l", target: "./x/../y", links: [:]))
        #expect(!BundlePath.linkStaysInside(path: "src/l", target: "../../x", links: [:]))
        #expect(!BundlePath.linkStaysInside(path: "l", target: "/etc", links: [:]))
        // a/b/s -> ../../c is inside; a/t -> b/s/../.. looks inside but walks through s out of the folder.
        let links = ["a/b/s": "../../c", "a/t": "b/s/../.."]
        #expect(BundlePath.linkStaysInside(path: "a/b/s", target: "../../c", links: links))
        #expect(!BundlePath.linkStaysInside(path: "a/t", target: "b/s/../..", links: links))
        // A loop of links is refused, not followed forever.
        #expect(!BundlePath.linkStaysInside(path: "x", target: "y/z", links: ["x": "y/z", "y": "x"]))
    }

    @Test("a tree round-trips: contents, modes, mtimes, links", arguments: [true, false])
    func treeRoundTrip(compress: Bool) throws {
        let tmp = try TestFolder("bundle")
        try FileManager.default.createDirectory(atPath: tmp.path + "/src/sub", withIntermediateDirectories: true)
        try tmp.write("src/a.txt", "alpha\n")
        try Data(testPattern(300_000)).write(to: URL(fileURLWithPath: tmp.path + "/src/sub/big.bin"))
        try FileManager.default.createSymbolicLink(atPath: tmp.path + "/src/sub/link", withDestinationPath: "../a.txt")
        chmod(tmp.path + "/src/sub", 0o750)
        chmod(tmp.path + "/src/a.txt", 0o600)
        var times = [timespec(tv_sec: 1_600_000_000, tv_nsec: 0), timespec(tv_sec: 1_600_000_000, tv_nsec: 0)]
        utimensat(AT_FDCWD, tmp.path + "/src/a.txt", &times, 0)

        let plan = try BundlePlan(paths: [tmp.path + "/src/"])
        #expect(plan.entries.map(\.path) == ["src", "src/a.txt", "src/sub", "src/sub/big.bin", "src/sub/link"])
        #expect(plan.contentBytes == 300_006)
        let manifest = plan.manifest(group: "g", accessID: nil, sender: nil)
        let sink = MemorySink()
        try BundleWriter.write(plan, manifest: manifest, compress: compress, to: sink)
        // Compressed, it is one clean zstd frame (no padding after it).
        #expect((sink.bytes.prefix(4) == [0x28, 0xB5, 0x2F, 0xFD]) == compress)

        // One stream takes one file only; the library's words name no flag of a tool.
        #expect { try BundleReader(source: MemorySource(sink.bytes)).writeSingleFile(to: MemorySink()) } throws: { error in
            "\(error)" == "only a bundle of exactly one file can be written as one stream; this one has 5 entries"
        }

        try FileManager.default.createDirectory(atPath: tmp.path + "/out", withIntermediateDirectories: true)
        let reader = try BundleReader(source: MemorySource(sink.bytes))
        #expect(reader.manifest == manifest)
        #expect(try reader.extract(into: tmp.path + "/out", force: false) == 5)
        #expect(try tmp.listing("out") == ["src"])
        #expect(try tmp.text("out/src/a.txt") == "alpha\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: tmp.path + "/out/src/sub/big.bin")) == Data(testPattern(300_000)))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: tmp.path + "/out/src/sub/link") == "../a.txt")
        var info = stat()
        stat(tmp.path + "/out/src/a.txt", &info)
        #expect(info.st_mode & 0o7777 == 0o600 && info.st_mtim.tv_sec == 1_600_000_000)
        stat(tmp.path + "/out/src/sub", &info)
        #expect(info.st_mode & 0o7777 == 0o750)
    }

    @Test("a file larger than the write-behind windows extracts byte-identical, with its mode and time")
    func largeFileWrittenBehind() throws {
        let tmp = try TestFolder("bundle")
        let size = Int(5 * WriteBehind.defaultWindow) + 12_345
        let data = Array(testBytes(size))
        try Data(data).write(to: URL(fileURLWithPath: tmp.path + "/large.bin"))
        chmod(tmp.path + "/large.bin", 0o640)
        let plan = try BundlePlan(paths: [tmp.path + "/large.bin"])
        let sink = MemorySink()
        try BundleWriter.write(plan, manifest: plan.manifest(group: nil, accessID: nil, sender: nil), compress: false, to: sink)
        try FileManager.default.createDirectory(atPath: tmp.path + "/out", withIntermediateDirectories: true)
        #expect(try BundleReader(source: MemorySource(sink.bytes)).extract(into: tmp.path + "/out", force: false) == 1)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: tmp.path + "/out/large.bin"))) == data)
        var info = stat()
        stat(tmp.path + "/out/large.bin", &info)
        let mask: mode_t = geteuid() == 0 ? 0 : AtomicOutputFile.currentUmask()
        #expect(info.st_mode & 0o7777 == 0o640 & ~mask)
        #expect(try tmp.listing("out") == ["large.bin"])
    }

    @Test("extraction never overwrites without force, replaces with it, merges folders")
    func conflicts() throws {
        let tmp = try TestFolder("bundle")
        try FileManager.default.createDirectory(atPath: tmp.path + "/in/d", withIntermediateDirectories: true)
        try tmp.write("in/d/new.txt", "new")
        let plan = try BundlePlan(paths: [tmp.path + "/in/d"])
        let sink = MemorySink()
        try BundleWriter.write(plan, manifest: plan.manifest(group: nil, accessID: nil, sender: nil), to: sink)
        try FileManager.default.createDirectory(atPath: tmp.path + "/out/d", withIntermediateDirectories: true)
        try tmp.write("out/d/mine.txt", "mine")
        // A folder that exists is merged into.
        try BundleReader(source: MemorySource(sink.bytes)).extract(into: tmp.path + "/out", force: false)
        #expect(try tmp.listing("out/d") == ["mine.txt", "new.txt"])
        try tmp.write("out/d/new.txt", "changed")
        #expect { try BundleReader(source: MemorySource(sink.bytes)).extract(into: tmp.path + "/out", force: false) } throws: {
            ($0 as? BundleError) == .exists(path: tmp.path + "/out/d/new.txt", folder: false)
        }
        #expect(try tmp.text("out/d/new.txt") == "changed")
        #expect(try tmp.listing("out") == ["d"])
        try BundleReader(source: MemorySource(sink.bytes)).extract(into: tmp.path + "/out", force: true)
        #expect(try tmp.text("out/d/new.txt") == "new")
        #expect(try tmp.listing("out") == ["d"])
    }

    @Test("lying bundles are refused and leave the folder empty", arguments: [
        ("extra", "not in the manifest"),
        ("digest", "does not match its SHA-256"),
        ("order", "out of the manifest's order"),
        ("type", "the manifest says it is a file"),
        ("missing", "missing from the archive"),
        ("mode", "mode differs"),
        ("target", "link target differs"),
    ])
    func lyingBundles(kind: String, why: String) throws {
        let a = entry("a.txt", content: "aaa"), b = entry("b.txt", content: "bbb")
        let link = entry("l", .symlink, mode: 0o777, target: "a.txt")
        var listed = [a, b], stored = [(a, "aaa"), (b, "bbb")]
        switch kind {
        case "extra": stored.append((entry("c.txt", content: "c"), "c"))
        case "digest": stored[1].1 = "bbX"
        case "order": stored.swapAt(0, 1)
        case "type": stored[1].0.type = .directory; stored[1].1 = ""
        case "missing": stored.removeLast()
        case "mode": stored[0].0.mode = "0755"
        case "target": listed.append(link); stored.append((entry("l", .symlink, mode: 0o777, target: "b.txt"), ""))
        default: Issue.record("unknown case")
        }
        let bytes = try rawBundle(manifest: BundleManifest(group: nil, accessID: nil, sender: nil, entries: listed), entries: stored)
        let tmp = try TestFolder("bundle")
        #expect { try BundleReader(source: MemorySource(bytes)).extract(into: tmp.path, force: false) } throws: { error in
            "\(error)".contains(why) && isBadBundle(error)
        }
        #expect(try tmp.listing() == [])
    }

    @Test("a plain tar without a manifest is not a bundle")
    func notABundle() throws {
        let sink = MemorySink()
        let writer = try ArchiveWriter(sink: sink, compress: false)
        try writer.writeHeader(path: "x", kind: .file, size: 1, permissions: 0o644, mtime: 0, mtimeNanoseconds: 0)
        try [UInt8(65)].withUnsafeBytes { try writer.writeData($0) }
        try writer.close()
        #expect { try BundleReader(source: MemorySource(sink.bytes)) } throws: { "\($0)".contains("not a vfs bundle") }
        #expect { try BundleReader(source: MemorySource(Array("hello world".utf8))) } throws: { isBadBundle($0) }
    }

    @Test("a file that changes between hashing and archiving fails the wrap")
    func changedFile() throws {
        let tmp = try TestFolder("bundle")
        try tmp.write("f.txt", "before")
        let plan = try BundlePlan(paths: [tmp.path + "/f.txt"])
        try tmp.write("f.txt", "after!")
        #expect { try BundleWriter.write(plan, manifest: plan.manifest(group: nil, accessID: nil, sender: nil), to: MemorySink()) } throws: {
            ($0 as? BundleError) == .changedWhileWrapping(path: tmp.path + "/f.txt")
        }
    }

    @Test("standard input is spooled encrypted, hashed, and archived under its name")
    func standardInput() throws {
        let data = testPattern(200_000)
        let plan = try BundlePlan(paths: [], standardInputName: "dump.sql", standardInput: MemorySource(data))
        #expect(plan.entries.map(\.path) == ["dump.sql"])
        #expect(plan.entries[0].sha256 == SHA256.hash(data).hexString && plan.contentBytes == data.count)
        let sink = MemorySink()
        try BundleWriter.write(plan, manifest: plan.manifest(group: nil, accessID: nil, sender: nil), to: sink)
        let out = MemorySink()
        try BundleReader(source: MemorySource(sink.bytes)).writeSingleFile(to: out)
        #expect(out.bytes == data)
    }

    @Test("sealed with age and opened again through the pipes")
    func sealAndOpen() throws {
        let tmp = try TestFolder("bundle")
        try Data(testPattern(1_000_000)).write(to: URL(fileURLWithPath: tmp.path + "/big.bin"))
        let identity = try X25519Identity.generate()
        let plan = try BundlePlan(paths: [tmp.path + "/big.bin"])
        let sealed = MemorySink()
        try BundleWriter.seal(plan, manifest: plan.manifest(group: "g", accessID: "a", sender: nil), recipients: [identity.recipient], to: sealed)
        let decryptor = try AgeDecryptor(source: MemorySource(sealed.bytes))
        let key = try decryptor.fileKey(identities: [identity])
        let out = MemorySink()
        let group = try BundleReader.openSealed(decryptor, fileKey: key) { reader in
            try reader.writeSingleFile(to: out)
            return reader.manifest.group
        }
        #expect(group == "g" && out.bytes == testPattern(1_000_000))
        // A truncated file fails at the end even though every entry was read.
        let cut = try AgeDecryptor(source: MemorySource(sealed.bytes.dropLast(100)))
        let cutKey = try cut.fileKey(identities: [identity])
        #expect(throws: AgeError.self) { try BundleReader.openSealed(cut, fileKey: cutKey) { try $0.writeSingleFile(to: MemorySink()) } }
    }

    @Test("the pipe carries everything and passes failures both ways")
    func pipe() throws {
        let data = testPattern(3_000_000)
        let got = try BytePipe.run(producerOnThread: { sink in
            for start in stride(from: 0, to: data.count, by: 70_000) {
                try sink.write(Array(data[start..<min(data.count, start + 70_000)]))
            }
        }, consumer: { source in try source.readAll() })
        #expect(got == data)
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try BytePipe.run(producerOnThread: { _ in throw Boom() }, consumer: { source in try source.readAll() })
        }
        // A consumer that fails stops a producer that would otherwise write forever.
        #expect(throws: Boom.self) {
            try BytePipe.run(producerOnThread: { sink in while true { try sink.write([UInt8](repeating: 1, count: 65536)) } },
                             consumer: { source -> Void in
                var first = [UInt8](repeating: 0, count: 10)
                _ = try first.withUnsafeMutableBytes { try source.read(into: $0) }
                throw Boom()
            })
        }
    }

    @Test("the pipe hands the writer's bytes over in place, in order, under reads and borrows of any size")
    func pipeHandsOverInPlace() throws {
        let data = testPattern(1_000_003)
        // The writer reuses one buffer: a write that returned before the reader was done
        // with its bytes (copied or borrowed) would show up as the next slice's bytes.
        let got = try BytePipe.run(producerOnThread: { sink in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 70_001, alignment: 16)
            defer { buffer.deallocate() }
            for start in stride(from: 0, to: data.count, by: buffer.count) {
                let n = min(buffer.count, data.count - start)
                data.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + start, byteCount: n) }
                try sink.write(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                buffer.initializeMemory(as: UInt8.self, repeating: 0xEE)
            }
        }, consumer: { source -> [UInt8] in
            var out: [UInt8] = []
            var step = 0
            var small = [UInt8](repeating: 0, count: 1_000)
            while true {
                step += 1
                if step % 3 == 0 {
                    let n = try small.withUnsafeMutableBytes { try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<(step % 997 + 1)])) }
                    if n == 0 { break }
                    out += small[0..<n]
                } else {
                    let lent = try #require(try source.borrow())
                    if lent.count == 0 { break }
                    out += lent
                }
            }
            return out
        })
        #expect(got == data)
    }

    @Test("a write waits until the reader is back from what it borrowed")
    func pipeWriteWaitsForBorrower() throws {
        let returned = Flag()
        let chunk = [UInt8](repeating: 7, count: 5_000)
        let (lentCount, returnedWhileLent) = try BytePipe.run(producerOnThread: { sink in
            try sink.write(chunk)
            returned.set()
            try sink.write([1, 2, 3])
        }, consumer: { source -> (Int, Bool) in
            let lent = try #require(try source.borrow())
            let whileLent = returned.isSet
            #expect(Array(lent) == chunk)
            // Back for more: the first write is done with and returns.
            var next = [UInt8](repeating: 0, count: 10)
            let n = try next.withUnsafeMutableBytes { try source.read(into: $0) }
            #expect(Array(next[0..<n]) == [1, 2, 3])
            #expect(returned.isSet)
            return (lent.count, whileLent)
        })
        #expect(lentCount == chunk.count)
        #expect(!returnedWhileLent)
    }

    @Test("the pipe passes the writer's failure after its bytes, and stops a writer whose bytes the reader left")
    func pipeFailures() throws {
        struct Boom: Error {}
        var seen: [UInt8] = []
        #expect(throws: Boom.self) {
            try BytePipe.run(producerOnThread: { sink in
                try sink.write([1, 2, 3, 4])
                try sink.write([5, 6])
                throw Boom()
            }, consumer: { source -> Void in
                while true {
                    let lent = try #require(try source.borrow())
                    if lent.count == 0 { return }
                    seen += lent
                }
            })
        }
        #expect(seen == [1, 2, 3, 4, 5, 6])
        // The reader returns holding borrowed bytes: the write they belong to throws.
        let writeError = ErrorBox()
        try BytePipe.run(producerOnThread: { sink in
            do { try sink.write([9, 9, 9]) } catch { writeError.set(error); throw error }
        }, consumer: { source throws -> Void in
            let lent = try source.borrow()
            #expect(lent?.count == 3)
        })
        #expect(writeError.get() is BytePipe.Closed)
    }

    @Test("a buffered source lends its base's bytes only once its own are read")
    func bufferedSourceBorrows() throws {
        let data = testPattern(200_000)
        let got = try BytePipe.run(producerOnThread: { sink in try sink.write(data) }, consumer: { source -> [UInt8] in
            let buffered = BufferedSource(source)
            #expect(Array(try buffered.peek(4)) == Array(data[0..<4]))
            #expect(try buffered.borrow() == nil)
            var out = [UInt8](repeating: 0, count: 100)
            let n = try out.withUnsafeMutableBytes { try buffered.read(into: $0) }
            var got = Array(out[0..<n])
            while got.count < 4096 {
                let m = try out.withUnsafeMutableBytes { try buffered.read(into: $0) }
                got += out[0..<m]
            }
            while let lent = try buffered.borrow(), lent.count > 0 { got += lent }
            return got
        })
        #expect(got == data)
    }
}

/// Set once by one thread, read by another.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

private final class ErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Error?
    func set(_ error: Error) { lock.withLock { value = error } }
    func get() -> Error? { lock.withLock { value } }
}

private func testPattern(_ count: Int) -> [UInt8] {
    var state: UInt64 = 0x9E3779B97F4A7C15
    return (0..<count).map { _ in state ^= state << 13; state ^= state >> 7; state ^= state << 17; return UInt8(truncatingIfNeeded: state) }
}

/// The errors that say the input is not a valid bundle (the tools report them as 65),
/// as opposed to I/O or extraction-target problems.
func isBadBundle(_ error: Error) -> Bool {
    switch error as? BundleError {
    case .notABundle?, .manifest?, .unsafeEntry?, .digestMismatch?, .archive(_, writing: false)?: return true
    default: return false
    }
}
