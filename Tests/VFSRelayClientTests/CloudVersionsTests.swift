import Foundation
import Testing
import VFSRelayProtocol
import VFSTestSupport
@testable import VFSRelayClient

/// Issue 50's client side: the names conflict copies get, the pairs `conflicts` lists,
/// and the versions a device's puts are based on.
@Suite("cloud versions: conflict names and bases")
struct CloudVersionsTests {
    let date = Date(timeIntervalSince1970: 1_795_960_501)  // 2026-11-29 13:55:01 UTC

    @Test("a conflict copy's name: the device and the UTC time before the extension; parsed back; the stem gives way to stay within 255 bytes")
    func names() {
        #expect(ConflictName.make("report.pdf", device: "laptop", at: date) == "report (conflict laptop 2026-11-29 135501).pdf")
        #expect(ConflictName.make("archive.tar.gz", device: "my phone", at: date) == "archive.tar (conflict my phone 2026-11-29 135501).gz")
        #expect(ConflictName.make(".profile", device: "pc", at: date) == ".profile (conflict pc 2026-11-29 135501)")
        #expect(ConflictName.make("plan", device: "pc", at: date) == "plan (conflict pc 2026-11-29 135501)")
        for (name, device) in [("report.pdf", "laptop"), ("archive.tar.gz", "my phone"), (".profile", "pc"), ("a (conflict x).txt", "b (c)")] {
            let made = ConflictName.make(name, device: device, at: date)
            #expect(ConflictName.parse(made) == .init(original: name, device: device, date: "2026-11-29 135501"), "\(made)")
        }
        let long = String(repeating: "é", count: 127) + ".txt"
        let made = ConflictName.make(long, device: "laptop", at: date)
        #expect(made.utf8.count <= 255 && made.hasSuffix(" (conflict laptop 2026-11-29 135501).txt"))
        for other in ["report.pdf", "report (conflict).pdf", "report (conflict laptop 2026-11-29).pdf", "report (conflict laptop 2026-1-29 135501).pdf",
                      "report (conflict  2026-11-29 135501).pdf", "report (conflict laptop 2026-11-29 13550x).pdf", "(conflict laptop 2026-11-29 135501)"] {
            #expect(ConflictName.parse(other) == nil, "\(other)")
        }
    }

    @Test("conflicts: each copy with the file it stands beside, whether that still exists; other files are no conflict")
    func pairs() {
        func file(_ path: String) -> CloudEntry {
            CloudEntry(id: path, name: String(path.split(separator: "/").last!), path: path, kind: .file, created: date, updated: date)
        }
        let entries = [file("/a.txt"), file("/a (conflict phone 2026-11-29 135501).txt"), file("/a (conflict pc 2026-11-30 010203).txt"),
                       CloudEntry(id: "d", name: "d", path: "/d", kind: .folder, created: date, updated: date),
                       file("/d/gone (conflict phone 2026-11-29 135501)"), file("/d/plain.txt")]
        #expect(ConflictPair.pairs(entries) == [
            ConflictPair(path: "/a.txt", exists: true, conflicts: [.init(path: "/a (conflict pc 2026-11-30 010203).txt", device: "pc", date: "2026-11-30 010203"),
                                                                   .init(path: "/a (conflict phone 2026-11-29 135501).txt", device: "phone", date: "2026-11-29 135501")]),
            ConflictPair(path: "/d/gone", exists: false, conflicts: [.init(path: "/d/gone (conflict phone 2026-11-29 135501)", device: "phone", date: "2026-11-29 135501")]),
        ])
    }

    @Test("bases: recorded per path, moved with a folder, forgotten with it; another path's is not taken")
    func bases() throws {
        let home = try TestFolder("bases")
        let bases = CloudBases(home: home.path)
        #expect(bases.base(of: "/a") == nil)
        try bases.record("v1", for: "/docs/a.txt")
        try bases.record("v2", for: "/docs/sub/b.txt")
        try bases.record("v3", for: "/docsx/c.txt")
        try bases.record(nil, for: "/none")
        #expect(bases.base(of: "/docs/a.txt") == "v1" && bases.base(of: "/none") == nil)
        bases.moved("/docs", to: "/archive/docs")
        #expect(bases.base(of: "/docs/a.txt") == nil && bases.base(of: "/archive/docs/a.txt") == "v1")
        #expect(bases.base(of: "/archive/docs/sub/b.txt") == "v2" && bases.base(of: "/docsx/c.txt") == "v3")
        bases.forget("/archive/docs/sub")
        #expect(bases.base(of: "/archive/docs/sub/b.txt") == nil && bases.base(of: "/archive/docs/a.txt") == "v1")
        withExtendedLifetime(home) {}
    }
}
