import Foundation
import Testing
import VFSTestSupport
@testable import VFSBundle
@testable import VFSCore

@Suite("bundles: tar's member patterns, selection, leaving out a changed file")
struct BundleSelectionTests {
    @Test("--exclude matches as GNU tar: '*' crosses '/', any tail that starts at a component, what is below a match")
    func excludes() {
        let cases: [(String, String, Bool)] = [
            ("*.o", "a/b/c.o", true), ("*.o", "a/b/c.oo", false), ("sub", "docs/sub", true), ("sub", "docs/sub/x", true),
            ("sub", "docs/subway", false), ("b", "ab", false), ("docs/c*", "docs/cache/x", true), ("c*", "docs/cache/x", true),
            ("ache", "docs/cache", false), ("docs", "docs", true), ("x/y", "a/x/y/z", true), ("[ab].txt", "d/b.txt", true),
        ]
        for (pattern, path, expected) in cases {
            #expect(MemberPattern.excludes(pattern, path) == expected, "\(pattern) \(path)")
        }
    }

    @Test("members: literal unless wildcards; a folder brings what is below it; anchored at the start")
    func members() {
        #expect(MemberPattern.selects("docs/*.txt", "docs/*.txt", wildcards: false))
        #expect(!MemberPattern.selects("docs/*.txt", "docs/a.txt", wildcards: false))
        #expect(MemberPattern.selects("docs/*.txt", "docs/a.txt", wildcards: true))
        #expect(MemberPattern.selects("docs/", "docs/sub/x", wildcards: false))
        #expect(!MemberPattern.selects("doc", "docs/x", wildcards: false))
        #expect(!MemberPattern.selects("sub", "docs/sub", wildcards: true))
        #expect(MemberPattern.selects("d*", "docs/sub/x", wildcards: true))
    }

    @Test("a selection brings the folders above a member; strip leaves out short names and refuses names made unsafe")
    func selection() throws {
        let m = BundleManifest(group: nil, accessID: nil, sender: nil, entries: [
            manifestEntry("d", .directory, mode: 0o755), manifestEntry("d/a", content: "a"), manifestEntry("d/s", .directory, mode: 0o755),
            manifestEntry("d/s/b", content: "b"), manifestEntry("d/s/l", .symlink, mode: 0o777, target: "../a"),
        ])
        let picked = try BundleSelection(members: ["d/s/b"]).outputs(of: m)
        #expect(picked.map { $0?.path } == ["d", nil, "d/s", "d/s/b", nil])
        let stripped = try BundleSelection(members: ["d/s/b"], stripComponents: 1).outputs(of: m)
        #expect(stripped.map { $0?.path } == [nil, nil, "s", "s/b", nil])
        #expect { try BundleSelection(stripComponents: 2).outputs(of: m) } throws: {
            ($0 as? BundleError) == .unsafeEntry(path: "l", reason: "the symbolic link points outside the folder (\"../a\")")
        }
        #expect(try BundleSelection(stripComponents: 2).outputs(of: m, validate: false).compactMap { $0?.path } == ["b", "l"])
        #expect { try BundleSelection(members: ["x", "d/a", "d/*"]).outputs(of: m) } throws: {
            ($0 as? BundleError) == .notInBundle(members: ["x", "d/*"], wildcards: false)
        }
    }

    @Test("a file that changed after hashing can be left out and the bundle written again; an output file rewinds")
    func leaveOut() throws {
        let tmp = try TestFolder("bundle")
        try tmp.write("keep.txt", "kept")
        try tmp.write("f.txt", "before")
        try tmp.write("skip.log", "excluded")
        let plan = try BundlePlan(paths: [tmp.path("keep.txt"), tmp.path("f.txt"), tmp.path("skip.log")], excluding: ["*.log"])
        #expect(plan.entries.map(\.path) == ["keep.txt", "f.txt"])
        try tmp.write("f.txt", "after!")
        let out = try AtomicOutputFile(path: tmp.path("b.bundle"))
        #expect { try BundleWriter.write(plan, manifest: plan.manifest(group: nil, accessID: nil, sender: nil), to: out) } throws: {
            ($0 as? BundleError) == .changedWhileWrapping(path: tmp.path("f.txt"))
        }
        #expect(plan.leaveOut(path: tmp.path("f.txt")))
        #expect(!plan.leaveOut(path: tmp.path("nothing")))
        #expect(plan.leftOut == [tmp.path("f.txt")] && plan.contentBytes == 4)
        try out.rewind()
        try BundleWriter.write(plan, manifest: plan.manifest(group: nil, accessID: nil, sender: nil), to: out)
        try out.commit()
        let reader = try BundleReader(source: MemorySource(Array(try tmp.read("b.bundle"))))
        #expect(reader.manifest.entries.map(\.path) == ["keep.txt"])
        let sink = MemorySink()
        try reader.writeFiles(to: sink)
        #expect(sink.bytes == Array("kept".utf8))
    }
}
