import Foundation
import Testing
import VFSCore
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A fake, hostile relay (Tests/tools/hostile-relay.py MODE) on 127.0.0.1, port 0,
/// stopped when released. Any token passes; see the script for the modes.
final class HostileRelay: @unchecked Sendable {
    static let tools = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools")
    let server: BackgroundServer

    /// `upstream`: a real relay whose chain and device list it passes on; `file`: the
    /// content of mode `sealed` (which needs `upstream`).
    init(_ mode: String, upstream: String? = nil, file: String? = nil) throws {
        server = try BackgroundServer("/usr/bin/python3", [Self.tools.appendingPathComponent("hostile-relay.py").path, mode]
                                      + (upstream.map { [$0] } ?? []) + (file.map { [$0] } ?? []))
    }

    var url: String { "http://127.0.0.1:\(server.port)" }
    deinit { server.stop() }
}

/// A tool run under Tests/tools/peak-rss.py: its peak resident memory and the bytes it
/// wrote to files, from wait4.
struct MeasuredRun {
    let run: Run
    /// KiB.
    let peak: Int
    /// Bytes written to files (counted as written, also of a file removed since).
    let written: Int
    let how: String

    /// Runs `tool` as `machine` would; a run past `killMiB` (of memory or of bytes
    /// written) or 60 s is killed (and fails).
    init(_ machine: Machine, _ tool: String, _ arguments: [String], killMiB: Int = 256) throws {
        let report = machine.home.appendingPathComponent("peak-\(UUID().uuidString)").path
        // Under a sanitizer (Tools.memoryBoundsHold false) the kill stays as a guard only.
        let kill = Tools.memoryBoundsHold ? killMiB : killMiB * 8
        run = try Tools.run("python3", [HostileRelay.tools.appendingPathComponent("peak-rss.py").path, report, String(kill), "60",
                                        Tools.binDir.appendingPathComponent(tool).path] + arguments,
                            environment: machine.environment)
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        let words = text.split(separator: " ", maxSplits: 2)
        peak = words.first.flatMap { Int($0) } ?? Int.max
        written = words.count > 1 ? Int(words[1]) ?? Int.max : Int.max
        how = words.count > 2 ? words[2].trimmingCharacters(in: .whitespacesAndNewlines) : "no report"
        unlink(report)
    }
}

/// Nothing the relay says becomes a path unchecked (issue 24, item 5): the real vfs-fetch,
/// vfs-fetch --watch and vfs-cloud get against a fake hostile relay.
@Suite("clients against a hostile relay", .serialized)
struct HostileRelayTests {
    static let limit = 64 * 1024

    /// A machine enrolled with a real relay (then stopped), a victim `*.age` file where
    /// `../../victim/taxes.age` from its partial-download folders points, and an output folder.
    final class Setup: @unchecked Sendable {
        let scratch: TestFolder
        let machine: Machine
        let victim: URL
        let victimBytes = Data("the user's own encrypted taxes\n".utf8)
        let out: URL
        /// The real relay, kept running when asked (a hostile relay passes its chain on).
        let relay: RelayProcess?

        init(keepRelay: Bool = false) throws {
            scratch = try TestFolder()
            let data = scratch.url.appendingPathComponent("data")
            let code = try RelayAdmin(data: data).addUser("alice@acme.example", org: "acme")
            let relay = try RelayProcess(data: data)
            machine = try Machine("laptop", in: scratch)
            try machine.enroll(port: relay.port, code: code)
            if keepRelay {
                self.relay = relay
            } else {
                relay.stop()
                self.relay = nil
            }
            try FileManager.default.createDirectory(at: scratch.url.appendingPathComponent("victim"), withIntermediateDirectories: true)
            victim = scratch.url.appendingPathComponent("victim/taxes.age")
            try victimBytes.write(to: victim)
            out = scratch.url.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        }

        /// Every file outside the machine's home, with its bytes.
        func outside() -> [String: Data] {
            var files = [String: Data]()
            let walker = FileManager.default.enumerator(atPath: scratch.path)
            while let name = walker?.nextObject() as? String {
                guard !name.hasPrefix("home-"), !name.hasPrefix("data") else { continue }
                var isFolder: ObjCBool = false
                FileManager.default.fileExists(atPath: scratch.path(name), isDirectory: &isFolder)
                files[name] = isFolder.boolValue ? Data() : FileManager.default.contents(atPath: scratch.path(name))
            }
            return files
        }

        /// Runs `tool` against `relay`; expects exit 65 with `message` in its error, no
        /// file outside its home created, changed or removed, and a peak under 64 MiB.
        @discardableResult
        func expectRefusal(_ relay: HostileRelay, _ tool: String, _ arguments: [String], message: String,
                           sourceLocation: SourceLocation = #_sourceLocation) throws -> MeasuredRun {
            machine.relayURL = relay.url
            let before = outside()
            let measured = try MeasuredRun(machine, tool, arguments)
            let what = "\(tool) \(arguments.joined(separator: " "))"
            #expect(measured.run.status == 65, "\(what): \(measured.run.status) \(measured.how) \(measured.run.stderr)",
                    sourceLocation: sourceLocation)
            #expect(measured.run.stderr.contains("\(tool): error: \(message)"), "\(what): \(measured.run.stderr)", sourceLocation: sourceLocation)
            #expect(!measured.run.stderr.contains("\u{1B}"), "\(what): a raw escape reached stderr", sourceLocation: sourceLocation)
            #expect(outside() == before, "\(what) changed files outside its home", sourceLocation: sourceLocation)
            #expect(FileManager.default.contents(atPath: victim.path) == victimBytes, sourceLocation: sourceLocation)
            #expect(!Tools.memoryBoundsHold || measured.peak < HostileRelayTests.limit, "\(what): peak \(measured.peak) KiB (\(measured.how))",
                    sourceLocation: sourceLocation)
            return measured
        }

        /// The partial downloads left in the machine's incoming folder.
        func partials() -> [String] {
            let incoming = machine.home.appendingPathComponent("incoming").path
            return ((try? FileManager.default.contentsOfDirectory(atPath: incoming)) ?? []).filter { $0.hasSuffix(".age") }
        }

        /// `expectRefusal`, then: nothing on stdout, no partial download left, and fewer
        /// than `written` bytes written to files (what was taken, before it was removed).
        func expectBoundedRefusal(_ relay: HostileRelay, _ arguments: [String], message: String, written: Int,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
            let measured = try expectRefusal(relay, "vfs-fetch", arguments, message: message, sourceLocation: sourceLocation)
            let what = "vfs-fetch \(arguments.joined(separator: " "))"
            #expect(measured.run.stdout.isEmpty, "\(what) wrote \(measured.run.stdout.count) bytes to stdout", sourceLocation: sourceLocation)
            #expect(partials().isEmpty, "\(what) left \(partials())", sourceLocation: sourceLocation)
            #expect(measured.written < written, "\(what) wrote \(measured.written) bytes (\(measured.how))", sourceLocation: sourceLocation)
        }
    }

    @Test("a transfer id and a cloud digest of \"../../victim/taxes\": exit 65 naming it, the victim *.age file untouched")
    func traversal() throws {
        let setup = try Setup()
        let relay = try HostileRelay("traversal")
        let message = #"the relay sent an invalid transfer id "../../victim/taxes" (not 32 lowercase hex digits)"#
        try setup.expectRefusal(relay, "vfs-fetch", ["--all", "-C", setup.out.path], message: message)
        try setup.expectRefusal(relay, "vfs-fetch", ["--watch", "-C", setup.out.path], message: message)
        try setup.expectRefusal(relay, "vfs-fetch", [], message: message)
        try setup.expectRefusal(relay, "vfs-cloud", ["get", "/f.age", "-o", setup.out.appendingPathComponent("f").path],
                                message: #"the relay sent an invalid SHA-256 of a cloud file "../../victim/taxes""#)
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.out.path).isEmpty)
    }

    @Test("digests that are not 64 lowercase hex digits (one with an escape sequence): exit 65, escaped, nothing written")
    func digests() throws {
        let setup = try Setup()
        let relay = try HostileRelay("digests")
        try setup.expectRefusal(relay, "vfs-fetch", ["--all", "-C", setup.out.path],
                                message: #"the relay sent an invalid SHA-256 of transfer 0123456789abcdef0123456789abcdef "2CF24DBA\x1b[2J""#)
        try setup.expectRefusal(relay, "vfs-cloud", ["get", "/f.age", "-o", setup.out.appendingPathComponent("f").path],
                                message: #"the relay sent an invalid SHA-256 of a cloud file "gggg"#)
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.out.path).isEmpty)
    }

    @Test("an endless event line: vfs-fetch --watch stops with 65 under 64 MiB")
    func endlessEventLine() throws {
        let setup = try Setup()
        let relay = try HostileRelay("events")
        try setup.expectRefusal(relay, "vfs-fetch", ["--watch", "-C", setup.out.path],
                                message: "unexpected answer from the relay at \(relay.url)/v1/events: an event line or event longer than 1048576 bytes")
    }

    @Test("an endless JSON answer: vfs-fetch and vfs-cloud stop with 65 under 64 MiB")
    func endlessJSON() throws {
        let setup = try Setup()
        let relay = try HostileRelay("json")
        let message = "unexpected answer from the relay at \(relay.url): an answer longer than 8388608 bytes"
        try setup.expectRefusal(relay, "vfs-fetch", ["--all", "-C", setup.out.path], message: message)
        try setup.expectRefusal(relay, "vfs-fetch", [], message: message)
        try setup.expectRefusal(relay, "vfs-cloud", ["ls"], message: message)
        try setup.expectRefusal(relay, "vfs-cloud", ["get", "/f.age", "-o", setup.out.appendingPathComponent("f").path], message: message)
    }

    @Test("a transfer listed uploading whose content never ends (random bytes): vfs-fetch stops reading with 65 under 64 MiB and places nothing")
    func endlessUploadingContent() throws {
        let setup = try Setup(keepRelay: true)
        defer { setup.relay?.stop() }
        let relay = try HostileRelay("uploading", upstream: "http://127.0.0.1:\(try #require(setup.relay).port)")
        try setup.expectRefusal(relay, "vfs-fetch", ["--all", "-C", setup.out.path], message: "invalid header: not an age file (no \"age-encryption.org/v1\" line)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.out.path).isEmpty)
    }

    static let transfer = "0123456789abcdef0123456789abcdef"
    static let pastLimit = "transfer \"\(transfer)\" ran past 1048576 bytes while it uploaded, the most taken of a transfer not checked as it arrives: nothing was kept"

    @Test("--raw of a transfer listed uploading whose content never ends: exit 65 at --max-size (1 MiB), naming it, about 1 MiB written, nothing on stdout, no partial download left")
    func rawEndlessUploading() throws {
        let setup = try Setup()
        let relay = try HostileRelay("uploading")
        try setup.expectBoundedRefusal(relay, ["--raw", Self.transfer, "--max-size", "1M"], message: Self.pastLimit, written: 4 << 20)
    }

    @Test("a finished transfer of 5 bytes whose content never ends: --raw and --allow-unverified stop at the size listed with 65, no partial download left, almost nothing written")
    func longerThanListed() throws {
        let setup = try Setup(keepRelay: true)
        defer { setup.relay?.stop() }
        let relay = try HostileRelay("long", upstream: "http://127.0.0.1:\(try #require(setup.relay).port)")
        let message = "unexpected answer from the relay at \(relay.url)/v1/transfers/\(Self.transfer)/content: more than the 5 bytes it listed"
        try setup.expectBoundedRefusal(relay, ["--raw", Self.transfer], message: message, written: 1 << 20)
        try setup.expectBoundedRefusal(relay, [Self.transfer, "--allow-unverified", "-C", setup.out.path], message: message, written: 1 << 20)
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.out.path).isEmpty)
    }

    @Test("--allow-unverified of a transfer listed uploading whose content is a real unsigned bundle for this device (16 MiB): exit 65 at --max-size (1 MiB), nothing placed or staged in DIR, no partial download left, a few MiB written at most")
    func unverifiedPastLimit() throws {
        let setup = try Setup(keepRelay: true)
        defer { setup.relay?.stop() }
        // 16 MiB that do not compress, sealed for the device (as a relay that knows its
        // recipient can seal anything): the age stream and the bundle are sound, only
        // their sender is nobody's.
        let big = setup.scratch.url.appendingPathComponent("data/big.bin")
        var generator = SystemRandomNumberGenerator()
        try Data((0..<(16 << 20) / 8).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }).write(to: big)
        let identity = setup.machine.home.appendingPathComponent("identity.txt").path
        try setup.machine.exportIdentity(to: identity)
        let sealed = setup.scratch.url.appendingPathComponent("data/sealed.age").path
        let wrap = try setup.machine.run("vfs-wrap", ["--no-compress", "-i", identity, "-o", sealed, big.path])
        #expect(wrap.status == 0, "\(wrap.stderr)")
        #expect(try #require(FileManager.default.attributesOfItem(atPath: sealed)[.size] as? Int) > 16 << 20)
        let relay = try HostileRelay("sealed", upstream: "http://127.0.0.1:\(try #require(setup.relay).port)", file: sealed)
        try setup.expectBoundedRefusal(relay, [Self.transfer, "--allow-unverified", "--max-size", "1M", "-C", setup.out.path],
                                       message: Self.pastLimit, written: 4 << 20)
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.out.path).isEmpty)
    }

    @Test("--max-size: only with --raw or --allow-unverified, and a size (64 otherwise)")
    func maxSizeUsage() throws {
        let setup = try Setup()
        let alone = try setup.machine.run("vfs-fetch", [Self.transfer, "--max-size", "1M"])
        #expect(alone.status == 64)
        #expect(alone.stderr.contains("vfs-fetch: error: --max-size goes with --raw and --allow-unverified"), "\(alone.stderr)")
        let bad = try setup.machine.run("vfs-fetch", ["--raw", Self.transfer, "--max-size", "1X"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("vfs-fetch: error: invalid size \"1X\""), "\(bad.stderr)")
    }
}
