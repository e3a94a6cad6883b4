import Foundation
import Testing
import VFSTestSupport

/// vfs-shred as a user (and cron) runs it.
@Suite("vfs-shred end to end")
struct ShredTests {
    // MARK: helpers

    /// Writes `data` and syncs it, so the file has its blocks on disk.
    @discardableResult
    func writeSynced(_ path: String, _ data: Data) throws -> String {
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(contentsOf: data)
        try handle.synchronize()
        try handle.close()
        return path
    }

    /// The file's extents as FIEMAP reports them (filefrag -v): logical and physical
    /// block ranges, one string each.
    func extents(_ path: String) throws -> [String] {
        let run = try Tools.run("filefrag", ["-v", path])
        #expect(run.status == 0, "\(run.stderr)")
        return run.out.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == ":" }).map(String.init)
            guard fields.count >= 6, fields[0].allSatisfy(\.isNumber) else { return nil }
            // ext, logical start, .., logical end, physical start, .., physical end, length
            return fields[1...5].joined(separator: " ")
        }
    }

    /// The longest run of positions where two byte strings agree.
    func longestAgreement(_ a: Data, _ b: Data) -> Int {
        var best = 0, run = 0
        for (x, y) in zip(a, b) { run = x == y ? run + 1 : 0; best = max(best, run) }
        return best
    }

    func setModified(_ path: String, daysAgo: Double) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -daysAgo * 86400)], ofItemAtPath: path)
    }

    /// Every entry under `root` with its type, content and modification time.
    func snapshot(_ root: String) throws -> [String: String] {
        var out: [String: String] = [:]
        let fm = FileManager.default
        for rel in try fm.subpathsOfDirectory(atPath: root) {
            let path = root + "/" + rel
            let attrs = try fm.attributesOfItem(atPath: path)
            let type = attrs[.type] as! FileAttributeType
            var value = "\(type.rawValue) \((attrs[.modificationDate] as! Date).timeIntervalSince1970)"
            if type == .typeRegular { value += " " + (try Data(contentsOf: URL(fileURLWithPath: path))).base64EncodedString() }
            if type == .typeSymbolicLink { value += " -> " + (try fm.destinationOfSymbolicLink(atPath: path)) }
            out[rel] = value
        }
        return out
    }

    func json(_ run: Run) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: run.stdout) as! [String: Any]
    }

    // MARK: overwriting

    @Test("--keep: every byte of the content is replaced, the file keeps its size and its blocks")
    func keepOverwritesInPlace() throws {
        let scratch = try TestFolder()
        let sizes = [10_000, (1 << 20) + 17, 9 << 20]
        var originals: [String: Data] = [:]
        var before: [String: [String]] = [:]
        for (i, size) in sizes.enumerated() {
            let path = try writeSynced(scratch.path("f\(i)"), testBytes(size, seed: UInt64(i) + 3))
            originals[path] = testBytes(size, seed: UInt64(i) + 3)
            before[path] = try extents(path)
            #expect(!before[path]!.isEmpty)
        }
        // A sparse file: 8 KiB of data, a 2 MiB hole, 100 bytes of data.
        let sparse = scratch.path("sparse")
        FileManager.default.createFile(atPath: sparse, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: sparse))
        try handle.write(contentsOf: testBytes(8192, seed: 11))
        try handle.seek(toOffset: 8192 + (2 << 20))
        try handle.write(contentsOf: testBytes(100, seed: 12))
        try handle.synchronize()
        try handle.close()
        let sparseBefore = try extents(sparse)
        #expect(sparseBefore.count == 2, "\(sparseBefore)")
        let paths = originals.keys.sorted()
        let run = try Tools.run("vfs-shred", ["-k", "-v"] + paths + [sparse])
        #expect(run.status == 0, "\(run.stderr)")
        for path in paths {
            let now = try Data(contentsOf: URL(fileURLWithPath: path))
            let original = originals[path]!
            #expect(now.count == original.count)
            // Random: agreement with the original is chance (1/256 a byte), never a run.
            #expect(longestAgreement(now, original) < 8)
            #expect(zip(now, original).filter { $0 == $1 }.count < original.count / 100 + 8)
            #expect(try extents(path) == before[path], "\(path) moved to other blocks")
            #expect(run.stderr.contains("overwrote \"\(path)\""))
        }
        // The holes stay holes: the same two extents, zeros between them.
        #expect(try extents(sparse) == sparseBefore)
        let sparseNow = try scratch.read("sparse")
        #expect(sparseNow.count == 8192 + (2 << 20) + 100)
        #expect(sparseNow[8192..<(8192 + (2 << 20))].allSatisfy { $0 == 0 })
        #expect(longestAgreement(sparseNow.prefix(8192), testBytes(8192, seed: 11)) < 8)
        #expect(longestAgreement(sparseNow.suffix(100), testBytes(100, seed: 12)) < 8)
        // Zeros when asked, after two random passes, read back and checked.
        let zeroed = try Tools.run("vfs-shred", ["-k", "-n", "2", "-z", "--verify"] + paths)
        #expect(zeroed.status == 0, "\(zeroed.stderr)")
        for path in paths {
            let now = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(now == Data(count: originals[path]!.count))
            #expect(try extents(path) == before[path])
        }
        #expect(try scratch.listing() == ["f0", "f1", "f2", "sparse"])
    }

    // MARK: removal

    /// Kernel notices of renames and removals in one folder (inotify).
    final class FolderWatch {
        let fd: Int32
        init(_ folder: String) {
            fd = inotify_init1(Int32(IN_NONBLOCK))
            _ = inotify_add_watch(fd, folder, UInt32(IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_CREATE))
        }
        deinit { close(fd) }

        /// Everything noticed so far, in order: (kind, name).
        func events() -> [(String, String)] {
            var out: [(String, String)] = []
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { break }
                var offset = 0
                while offset < n {
                    let (mask, length) = buffer.withUnsafeBytes { raw in
                        (raw.load(fromByteOffset: offset + 4, as: UInt32.self), Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self)))
                    }
                    let nameBytes = buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    let kind = mask & UInt32(IN_MOVED_FROM) != 0 ? "from" : mask & UInt32(IN_MOVED_TO) != 0 ? "to"
                        : mask & UInt32(IN_DELETE) != 0 ? "delete" : "create"
                    out.append((kind, name))
                    offset += 16 + length
                }
            }
            return out
        }
    }

    /// Follows one entry's renames from `name`: the names it went through, and whether
    /// its last name was then deleted.
    func chain(from name: String, in events: [(String, String)]) -> (names: [String], deleted: Bool) {
        var names: [String] = []
        var current = name
        var i = 0
        while i < events.count {
            if events[i] == ("from", current), i + 1 < events.count, events[i + 1].0 == "to" {
                current = events[i + 1].1
                names.append(current)
                i += 2
                continue
            }
            if events[i] == ("delete", current) { return (names, true) }
            i += 1
        }
        return (names, false)
    }

    @Test("removal wipes the name through shorter and shorter names, then deletes; no entry of the name's length is left")
    func nameWipe() throws {
        let scratch = try TestFolder()
        let secret = "confidential-plan.txt"  // 21 characters
        try writeSynced(scratch.path(secret), testBytes(20_000))
        try writeSynced(scratch.path("notes.md"), testBytes(10, seed: 2))
        try FileManager.default.createDirectory(atPath: scratch.path("private-folder"), withIntermediateDirectories: false)
        try writeSynced(scratch.path("private-folder/x"), testBytes(10, seed: 3))
        let watch = FolderWatch(scratch.url.path)
        let run = try Tools.run("vfs-shred", ["-r", scratch.path(secret), scratch.path("private-folder")])
        #expect(run.status == 0, "\(run.stderr)")
        let events = watch.events()
        for (name, count) in [(secret, 21), ("private-folder", 14)] {
            let (names, deleted) = chain(from: name, in: events)
            let lengths = names.map(\.count)
            #expect(lengths.first == count, "\(name): \(names)")
            #expect(zip(lengths, lengths.dropFirst()).allSatisfy { $0 > $1 }, "\(name): \(names)")
            #expect(lengths.last == 1, "\(name): \(names)")
            #expect(names.allSatisfy { $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } })
            #expect(deleted, "\(name): its last name was not deleted")
        }
        let left = try scratch.listing()
        #expect(left == ["notes.md"])
        #expect(!left.contains { $0.count == 21 || $0.count == 14 })
        #expect(try scratch.read("notes.md") == testBytes(10, seed: 2))
    }

    // MARK: trees and filters

    /// A generated tree: names, ages in days, and whether the filters
    /// `--older-than 7d --include '*.csv' --include '*.tsv' --exclude 'keep*'` select them.
    static let tree: [(path: String, days: Double, selected: Bool)] = [
        ("old.csv", 10, true),
        ("new.csv", 1, false),
        ("old.txt", 10, false),
        ("keep-old.csv", 10, false),
        (".hidden.tsv", 30, true),
        ("sub/old2.csv", 8, true),
        ("sub/deeper/old3.tsv", 100, true),
        ("mixed/old4.csv", 9, true),
        ("mixed/new3.csv", 6.9, false),
        ("only-new/new2.csv", 0, false),
    ]

    func makeTree(_ root: String) throws {
        let fm = FileManager.default
        for (i, item) in Self.tree.enumerated() {
            let path = root + "/" + item.path
            try fm.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try writeSynced(path, testBytes(100 + i * 1000, seed: UInt64(i)))
            try setModified(path, daysAgo: item.days)
        }
        try fm.createDirectory(atPath: root + "/already-empty", withIntermediateDirectories: true)
    }

    static let filters = ["--older-than", "7d", "--include", "*.csv", "--include", "*.tsv", "--exclude", "keep*"]

    @Test("age filters and globs select exactly the right files; every folder stays; --dry-run touches nothing")
    func filters() throws {
        let scratch = try TestFolder()
        let root = scratch.path("exports")
        try makeTree(root)
        let before = try snapshot(root)
        let selected = Self.tree.filter(\.selected).map { "\(root)/\($0.path)" }

        let dry = try Tools.run("vfs-shred", ["-r", "--dry-run"] + Self.filters + [root])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(Set(dry.out.split(separator: "\n").map(String.init)) == Set(selected))
        #expect(try snapshot(root) == before)

        let dryJSON = try json(try Tools.run("vfs-shred", ["-r", "--dry-run", "--json"] + Self.filters + [root]))
        #expect(dryJSON["dryRun"] as? Bool == true)
        #expect(dryJSON["files"] as? Int == selected.count)
        #expect(try snapshot(root) == before)

        let run = try Tools.run("vfs-shred", ["-r", "--json", "-v"] + Self.filters + [root])
        #expect(run.status == 0, "\(run.stderr)")
        let summary = try json(run)
        #expect(summary["files"] as? Int == selected.count)
        #expect(summary["folders"] as? Int == 0)
        #expect((summary["errors"] as? [Any])?.isEmpty == true)
        #expect((summary["skipped"] as? [Any])?.isEmpty == true)
        let sizes = Self.tree.enumerated().filter { $0.element.selected }.map { 100 + $0.offset * 1000 }
        #expect(summary["bytes"] as? Int == sizes.reduce(0, +))
        let after = try snapshot(root)
        var expected = before
        for item in Self.tree where item.selected { expected[item.path] = nil }
        // The folders the filters emptied (sub, sub/deeper) stay; those that lost files
        // changed their times: compare names, and the files' content.
        #expect(Set(after.keys) == Set(expected.keys))
        for (path, value) in expected where value.hasPrefix(FileAttributeType.typeRegular.rawValue) {
            #expect(after[path] == value, "\(path) changed")
        }
        for path in selected { #expect(run.stderr.contains("destroyed \"\(path)\"")) }

        // Without filters the rest goes, the already-empty folder and the root too.
        let rest = try Tools.run("vfs-shred", ["-r", root])
        #expect(rest.status == 0, "\(rest.stderr)")
        #expect(try scratch.listing().isEmpty)
    }

    @Test("a filtered run never removes the folder named (cron on a spool of old files); --prune-empty and --remove-root do")
    func filteredRunKeepsFolders() throws {
        let scratch = try TestFolder()
        let spool = scratch.path("spool")
        func plantOld(_ names: [String]) throws {
            for name in names {
                try FileManager.default.createDirectory(atPath: ((spool + "/" + name) as NSString).deletingLastPathComponent,
                                                        withIntermediateDirectories: true)
                try setModified(try writeSynced(spool + "/" + name, testBytes(3000, seed: 4)), daysAgo: 10)
            }
        }
        // Only old files: the README's cron line. The spool and its emptied day folder stay.
        try plantOld(["a.csv", "b.csv", "day1/c.csv"])
        let nightly = try Tools.run("vfs-shred", ["-r", "--older-than", "7d", spool])
        #expect(nightly.status == 0, "\(nightly.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool) == ["day1"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool + "/day1").isEmpty)
        // The dry run of the same says the same: files only.
        try plantOld(["d.csv", "day2/e.csv"])
        let dry = try Tools.run("vfs-shred", ["-r", "--dry-run", "--older-than", "7d", spool])
        #expect(Set(dry.out.split(separator: "\n")) == ["\(spool)/d.csv", "\(spool)/day2/e.csv"], "\(dry.out)")
        // --prune-empty: the subfolders this run emptied go (day1, already empty, stays).
        let pruned = try Tools.run("vfs-shred", ["-r", "--prune-empty", "--older-than", "7d", spool])
        #expect(pruned.status == 0, "\(pruned.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool) == ["day1"])
        // --remove-root: the folder named goes too once all in it went.
        try FileManager.default.removeItem(atPath: spool + "/day1")
        try plantOld(["f.csv"])
        let root = try Tools.run("vfs-shred", ["-r", "--remove-root", "--include", "*.csv", spool])
        #expect(root.status == 0, "\(root.stderr)")
        #expect(!FileManager.default.fileExists(atPath: spool))
        let withoutR = try Tools.run("vfs-shred", ["--prune-empty", "--older-than", "7d", scratch.url.path])
        #expect(withoutR.status == 64 && withoutR.stderr.contains("add -r"), "\(withoutR.stderr)")
    }

    @Test("GNU shred's long options: --iterations, --remove=unlink|wipe|wipesync, -x/--exact")
    func gnuLongOptions() throws {
        let scratch = try TestFolder()
        let a = try writeSynced(scratch.path("a"), testBytes(5000))
        let three = try json(try Tools.run("vfs-shred", ["--iterations=3", "--json", a]))
        #expect(three["passes"] as? Int == 3)
        let b = try writeSynced(scratch.path("b"), testBytes(5000))
        #expect(try json(try Tools.run("vfs-shred", ["--iterations", "2", "--json", b]))["passes"] as? Int == 2)
        // --remove=unlink: the name is removed at once, never renamed.
        let name = "unlinked-at-once.txt"
        try writeSynced(scratch.path(name), testBytes(5000, seed: 2))
        var watch = FolderWatch(scratch.url.path)
        let unlink = try Tools.run("vfs-shred", ["--remove=unlink", scratch.path(name)])
        #expect(unlink.status == 0, "\(unlink.stderr)")
        #expect(watch.events().map { "\($0.0) \($0.1)" } == ["delete \(name)"])
        // --remove=wipe: renamed down to one character, then deleted.
        try writeSynced(scratch.path(name), testBytes(5000, seed: 3))
        watch = FolderWatch(scratch.url.path)
        let wipe = try Tools.run("vfs-shred", ["--remove=wipe", scratch.path(name)])
        #expect(wipe.status == 0, "\(wipe.stderr)")
        let (names, deleted) = chain(from: name, in: watch.events())
        #expect(names.first?.count == name.count && names.last?.count == 1 && deleted, "\(names)")
        let bad = try Tools.run("vfs-shred", ["--remove=shout", scratch.path("none")])
        #expect(bad.status == 64 && bad.stderr.contains("unlink, wipe or wipesync"), "\(bad.stderr)")
        // -x: only the file's own bytes are written. Under a file size limit of 2 KiB a
        // 1000-byte file can't be overwritten to the end of its 4 KiB block; with -x it can.
        let limited = try writeSynced(scratch.path("limited"), testBytes(1000, seed: 5))
        let other = try writeSynced(scratch.path("other"), testBytes(1000, seed: 5))
        let script = "ulimit -f 2; exec \"$0\" \"$@\""
        let tool = Tools.binDir.appendingPathComponent("vfs-shred").path
        let exact = try Tools.run("bash", ["-c", script, tool, "-k", "-x", limited])
        #expect(exact.status == 0, "\(exact.stderr)")
        let rounded = try Tools.run("bash", ["-c", script, tool, "-k", other])
        #expect(rounded.status != 0)
        let after = try scratch.read("limited")
        #expect(after.count == 1000 && longestAgreement(after, testBytes(1000, seed: 5)) < 16)
    }

    @Test("--dry-run on files lists them and changes nothing")
    func dryRunFiles() throws {
        let scratch = try TestFolder()
        let a = try writeSynced(scratch.path("a.key"), testBytes(5000))
        try FileManager.default.createSymbolicLink(atPath: scratch.path("l"), withDestinationPath: a)
        let before = try snapshot(scratch.url.path)
        let run = try Tools.run("vfs-shred", ["--dry-run", a, scratch.path("l")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.out == "\(a)\n\(scratch.path("l"))\n")
        #expect(try snapshot(scratch.url.path) == before)
    }

    // MARK: what is refused

    @Test("symbolic links are removed, never followed: their targets stay")
    func links() throws {
        let scratch = try TestFolder()
        let outside = try writeSynced(scratch.path("target.txt"), testBytes(3000, seed: 9))
        try FileManager.default.createDirectory(atPath: scratch.path("target-folder"), withIntermediateDirectories: false)
        try writeSynced(scratch.path("target-folder/inner"), testBytes(300, seed: 10))
        try FileManager.default.createDirectory(atPath: scratch.path("tree"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: scratch.path("tree/to-file"), withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: scratch.path("tree/to-folder"), withDestinationPath: scratch.path("target-folder"))
        try FileManager.default.createSymbolicLink(atPath: scratch.path("tree/dangling"), withDestinationPath: scratch.path("nowhere"))
        try FileManager.default.createSymbolicLink(atPath: scratch.path("top-link"), withDestinationPath: outside)

        let kept = try Tools.run("vfs-shred", ["-k", scratch.path("top-link")])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.path("top-link")) == outside)

        let run = try Tools.run("vfs-shred", ["-r", "-v", scratch.path("tree"), scratch.path("top-link")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try scratch.listing() == ["target-folder", "target.txt"])
        #expect(try scratch.read("target.txt") == testBytes(3000, seed: 9))
        #expect(try scratch.read("target-folder/inner") == testBytes(300, seed: 10))
        #expect(run.stderr.contains("removed link \"\(scratch.path("tree/to-folder"))\""))
        #expect(run.stderr.contains("removed link \"\(scratch.path("top-link"))\""))
    }

    @Test("a hard-linked file is refused with a hint unless --force")
    func hardLinks() throws {
        let scratch = try TestFolder()
        let a = try writeSynced(scratch.path("a"), testBytes(8000, seed: 4))
        try FileManager.default.linkItem(atPath: a, toPath: scratch.path("b"))
        let run = try Tools.run("vfs-shred", [a])
        #expect(run.status == 1)
        #expect(run.stderr.contains("skipped \"\(a)\": it has 1 other hard link"))
        #expect(run.stderr.contains("vfs-shred: hint: its data stays reachable through the other names"))
        #expect(run.stderr.contains("--force"))
        #expect(try scratch.read("a") == testBytes(8000, seed: 4))
        #expect(try scratch.read("b") == testBytes(8000, seed: 4))

        let forced = try Tools.run("vfs-shred", ["--force", a])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try scratch.listing() == ["b"])
        #expect(longestAgreement(try scratch.read("b"), testBytes(8000, seed: 4)) < 8)
    }

    @Test("a set of hard links goes when every name is in the run: named together, or in a tree under -r")
    func hardLinkSets() throws {
        let scratch = try TestFolder()
        let a = try writeSynced(scratch.path("a"), testBytes(8000, seed: 5))
        try FileManager.default.linkItem(atPath: a, toPath: scratch.path("b"))
        let both = try Tools.run("vfs-shred", [a, scratch.path("b")])
        #expect(both.status == 0, "\(both.stderr)")
        #expect(try scratch.listing().isEmpty)
        // A tree holding every name of the set: as vfs-shred -r "$VFS_HOME" after a passcode change.
        let home = scratch.path("home")
        try FileManager.default.createDirectory(atPath: home + "/sub", withIntermediateDirectories: true)
        let keychain = try writeSynced(home + "/keychain", testBytes(4000, seed: 6))
        try FileManager.default.linkItem(atPath: keychain, toPath: home + "/keychain.prev")
        try FileManager.default.linkItem(atPath: keychain, toPath: home + "/sub/third")
        // A name outside the run keeps the set refused.
        try FileManager.default.linkItem(atPath: keychain, toPath: scratch.path("outside"))
        let partial = try Tools.run("vfs-shred", ["-r", home])
        #expect(partial.status == 1 && partial.stderr.contains("it has 3 other hard links"), "\(partial.stderr)")
        #expect(try scratch.read("outside") == testBytes(4000, seed: 6))
        try FileManager.default.removeItem(atPath: scratch.path("outside"))
        let tree = try Tools.run("vfs-shred", ["-r", home])
        #expect(tree.status == 0, "\(tree.stderr)")
        #expect(try scratch.listing().isEmpty)
        // One name of a pair alone is still refused.
        let c = try writeSynced(scratch.path("c"), testBytes(100, seed: 7))
        try FileManager.default.linkItem(atPath: c, toPath: scratch.path("d"))
        #expect(try Tools.run("vfs-shred", [c, c]).status == 1)
        #expect(try scratch.read("d") == testBytes(100, seed: 7))
    }

    @Test("a real keychain folder after a passcode change is destroyed by -r")
    func keychainFolder() throws {
        let scratch = try TestFolder()
        let home = scratch.path("vfs")
        let env = ["VFS_HOME": home, "VFS_PASSCODE": "one", "XDG_RUNTIME_DIR": scratch.path("run")]
        #expect(try Tools.run("vfs-keychain", ["init", "--work-factor", "4"], environment: env).status == 0)
        #expect(try Tools.run("vfs-keychain", ["passcode"], environment: env.merging(["VFS_NEW_PASSCODE": "two"]) { $1 }).status == 0)
        var info = stat()
        #expect(stat(home + "/keychain", &info) == 0 && info.st_nlink == 2, "keychain and keychain.prev are one file")
        let run = try Tools.run("vfs-shred", ["-r", home])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home))
    }

    @Test("FIFOs, sockets and character devices are refused; the other files still go")
    func specialFiles() throws {
        let scratch = try TestFolder()
        #expect(mkfifo(scratch.path("fifo"), 0o600) == 0)
        let socket = try Tools.run("python3", ["-c", "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", scratch.path("sock")])
        #expect(socket.status == 0, "\(socket.stderr)")
        let plain = try writeSynced(scratch.path("plain"), testBytes(100))
        let run = try Tools.run("vfs-shred", ["--json", scratch.path("fifo"), scratch.path("sock"), "/dev/null", plain, scratch.path("missing")])
        #expect(run.status == 1)
        #expect(run.stderr.contains("skipped \"\(scratch.path("fifo"))\": is a FIFO"))
        #expect(run.stderr.contains("skipped \"\(scratch.path("sock"))\": is a socket"))
        #expect(run.stderr.contains("skipped \"/dev/null\": is a character device"))
        #expect(run.stderr.contains("error: cannot shred \"\(scratch.path("missing"))\": no such file or directory"))
        #expect(try scratch.listing() == ["fifo", "sock"])
        #expect(FileManager.default.fileExists(atPath: "/dev/null"))
        let summary = try json(run)
        #expect(summary["files"] as? Int == 1)
        let skipped = (summary["skipped"] as? [[String: String]])?.map { $0["path"]! }
        #expect(skipped == [scratch.path("fifo"), scratch.path("sock"), "/dev/null"])
        let errors = summary["errors"] as? [[String: String]]
        #expect(errors?.first?["path"] == scratch.path("missing"))
        #expect(errors?.first?["reason"]?.contains("no such file") == true)

        // In a tree, the same; the folder that still holds them stays.
        let tree = try Tools.run("vfs-shred", ["-r", scratch.url.path])
        #expect(tree.status == 1)
        #expect(try scratch.listing() == ["fifo", "sock"])
    }

    @Test("a folder needs -r; '.', '..' and '/' are never shredded")
    func foldersAndSpecialNames() throws {
        let scratch = try TestFolder()
        try FileManager.default.createDirectory(atPath: scratch.path("d"), withIntermediateDirectories: false)
        let run = try Tools.run("vfs-shred", [scratch.path("d")])
        #expect(run.status == 1)
        #expect(run.stderr.contains("hint: use -r"))
        #expect(scratch.exists("d"))
        for name in [".", "..", "/"] {
            let refused = try Tools.run("vfs-shred", ["-r", "--dry-run", name], cwd: URL(fileURLWithPath: scratch.path("d")))
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("refusing to shred"))
            #expect(refused.out.isEmpty)
        }
    }

    @Test("block devices: refused without --device; with it the device is overwritten and kept", .enabled(if: getuid() == 0, "a loop device takes root"))
    func blockDevice() throws {
        let scratch = try TestFolder()
        let image = try writeSynced(scratch.path("disk.img"), testBytes(2 << 20, seed: 5))
        let attach = try Tools.run("losetup", ["-f", "--show", image])
        #expect(attach.status == 0, "losetup needs root and loop devices: \(attach.stderr)")
        guard attach.status == 0 else { return }
        let device = attach.out.trimmingCharacters(in: .whitespacesAndNewlines)
        defer { _ = try? Tools.run("losetup", ["-d", device]) }

        let refused = try Tools.run("vfs-shred", [device])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("is a block device"))
        #expect(refused.stderr.contains("--device"))
        let dry = try Tools.run("vfs-shred", ["--device", "--dry-run", "--json", device])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(try self.json(dry)["bytes"] as? Int == 2 << 20)
        #expect(try Data(contentsOf: URL(fileURLWithPath: image)) == testBytes(2 << 20, seed: 5))
        let json = try Tools.run("vfs-shred", ["--device", "-n", "1", "-z", "--verify", "--json", device])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(try self.json(json)["bytes"] as? Int == 2 << 20)
        #expect(FileManager.default.fileExists(atPath: device))
        _ = try Tools.run("losetup", ["-d", device])
        #expect(try Data(contentsOf: URL(fileURLWithPath: image)) == Data(count: 2 << 20))
    }

    @Test("a file that can't be opened is reported and the others still go; --force makes own read-only files writable")
    func unopenable() throws {
        let scratch = try TestFolder()
        let folder = scratch.path("spool")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let mine = try writeSynced(folder + "/mine", testBytes(5000, seed: 6))
        let theirs = try writeSynced(folder + "/theirs", testBytes(5000, seed: 7))
        let readOnly = try writeSynced(folder + "/read-only", testBytes(5000, seed: 8))
        // Run as an unprivileged user: as root, drop to nobody, who owns the folder, `mine`
        // and `read-only`; `theirs` stays root's.
        let asRoot = getuid() == 0
        var prefix: [String] = []
        if asRoot {
            for path in [folder, mine, readOnly] { #expect(chown(path, 65534, 65534) == 0) }
            prefix = OtherUser.setpriv + [try OtherUser.tool("vfs-shred")]
        } else {
            #expect(chmod(theirs, 0o444) == 0)
        }
        #expect(chmod(readOnly, 0o400) == 0)
        func shred(_ args: [String]) throws -> Run {
            asRoot ? try Tools.run("setpriv", prefix + args) : try Tools.run("vfs-shred", args)
        }
        let run = try shred(["-r", "--json", folder])
        #expect(run.status == 1)
        #expect(run.stderr.contains("error: cannot open \"\(theirs)\": permission denied"))
        #expect(run.stderr.contains("error: cannot open \"\(readOnly)\": permission denied"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["read-only", "theirs"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: theirs)) == testBytes(5000, seed: 7))
        let summary = try json(run)
        #expect(summary["files"] as? Int == 1)
        #expect((summary["errors"] as? [[String: String]])?.map { $0["path"]! }.sorted() == [readOnly, theirs])

        let forced = try shred(["--force", readOnly])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["theirs"])
    }

    @Test("on tmpfs a warning says overwriting may not reach old data, with the remedy")
    func weakFileSystemWarning() throws {
        let path = "/dev/shm/vfs-shred-test-\(UUID().uuidString)"
        try Data("secret".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try Tools.run("vfs-shred", ["--json", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("vfs-shred: warning: \"\(path)\" is on tmpfs"))
        #expect(run.stderr.contains("hint: keep such files encrypted with vfs-encrypt and destroy the key"))
        #expect((try json(run)["warnings"] as? [Any])?.count == 1)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    // MARK: names that are not UTF-8

    /// Runs vfs-shred with arguments given as bytes (Process takes only Strings).
    func shredRaw(_ arguments: [[UInt8]], cwd: String? = nil) throws -> Run {
        let script = "import os, sys; os.execv(sys.argv[1], [sys.argv[1]] + [bytes.fromhex(a) for a in sys.argv[2:]])"
        return try Tools.run("python3", ["-c", script, Tools.binDir.appendingPathComponent("vfs-shred").path]
                                          + arguments.map { $0.map { String(format: "%02x", $0) }.joined() },
                             cwd: cwd.map { URL(fileURLWithPath: $0) })
    }

    func exists(_ folder: String, _ name: [UInt8]) -> Bool {
        var info = stat()
        return (Array(folder.utf8) + [UInt8(ascii: "/")] + name + [0]).withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &info) == 0 }
        }
    }

    func create(_ folder: String, _ name: [UInt8]) {
        let fd = (Array(folder.utf8) + [UInt8(ascii: "/")] + name + [0]).withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        }
        #expect(fd >= 0)
        _ = "secret".withCString { write(fd, $0, 6) }
        close(fd)
    }

    @Test("--exclude and paths with names that are not UTF-8 keep their bytes: the excluded file stays, the named one goes")
    func nonUTF8Names() throws {
        let scratch = try TestFolder()
        let folder = scratch.path("spool")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        // Two names that ArgumentParser's strings can't tell apart ("x\u{FFFD}").
        let kept: [UInt8] = [0x78, 0xFF], named: [UInt8] = [0x78, 0xFE], other: [UInt8] = [0x79, 0xFF]
        for name in [kept, named, other] { create(folder, name) }
        // The named file, with the other name excluded (from inside the folder, so the
        // glob and the path are the same text to ArgumentParser).
        let one = try shredRaw([Array("--exclude".utf8), kept, named], cwd: folder)
        #expect(one.status == 0, "\(one.stderr)")
        #expect(exists(folder, kept), "the excluded file was destroyed")
        #expect(!exists(folder, named))
        // A tree, with the glob as bytes: only the exact bytes are excluded.
        let tree = try shredRaw([Array("-r".utf8), Array("--exclude".utf8), [0x2A, 0xFF], Array(folder.utf8)])
        #expect(tree.status == 0, "\(tree.stderr)")
        #expect(exists(folder, kept) && exists(folder, other), "files matching the glob's bytes stay")
        create(folder, named)
        let again = try shredRaw([Array("-r".utf8), Array("--exclude=".utf8) + kept, Array(folder.utf8)])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(exists(folder, kept) && !exists(folder, named) && !exists(folder, other))
    }

    @Test("--dry-run lists a name that is not UTF-8 as its bytes, -0 ends each path with a NUL (as find -print0), --json and --json-lines write the byte \\xHH: never U+FFFD")
    func dryRunNonUTF8Names() throws {
        let scratch = try TestFolder()
        let folder = scratch.path("spool")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let odd: [UInt8] = [0x78, 0xFF], newline = Array("two\nlines".utf8), plain = Array("plain".utf8)
        for name in [odd, newline, plain] { create(folder, name) }
        let base = Array(folder.utf8) + [UInt8(ascii: "/")]
        let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]
        func holds(_ data: Data, _ piece: [UInt8]) -> Bool {
            let bytes = Array(data)
            return piece.count <= bytes.count && (0...(bytes.count - piece.count)).contains { Array(bytes[$0..<($0 + piece.count)]) == piece }
        }

        let lines = try Tools.run("vfs-shred", ["-r", "--dry-run", folder])
        #expect(lines.status == 0, "\(lines.stderr)")
        #expect(holds(lines.stdout, base + odd + [0x0A]), "\(Array(lines.stdout))")
        #expect(!holds(lines.stdout, replacement))

        let nul = try Tools.run("vfs-shred", ["-r", "--dry-run", "-0", folder])
        #expect(nul.status == 0, "\(nul.stderr)")
        #expect(nul.stdout.last == 0)
        let paths = Array(nul.stdout).split(separator: 0, omittingEmptySubsequences: false).dropLast().map(Array.init)
        // The three files, and the folder itself (its path ending in '/').
        #expect(Set(paths) == Set([odd, newline, plain].map { base + $0 } + [base]), "\(paths)")
        #expect(try Tools.run("vfs-shred", ["-r", "--dry-run", "--null", folder]).stdout == nul.stdout)

        let summary = try json(try Tools.run("vfs-shred", ["-r", "--dry-run", "--json", folder]))
        let destroyed = summary["destroyed"] as? [String] ?? []
        #expect(destroyed.contains(folder + "/x\\xff"), "\(destroyed)")
        #expect(!destroyed.contains { $0.contains("\u{FFFD}") })
        let logged = try Tools.run("vfs-shred", ["-r", "--dry-run", "--json-lines", folder])
        #expect(logged.status == 0, "\(logged.stderr)")
        let loggedPaths = logged.out.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.compactMap { $0["path"] as? String }
        #expect(loggedPaths.contains(folder + "/x\\xff"), "\(logged.out)")
        #expect(!holds(logged.stdout, replacement))
        // -v on stderr shows the byte escaped as well.
        let verbose = try Tools.run("vfs-shred", ["-r", "-k", "-v", "-n", "1", folder])
        #expect(verbose.status == 0, "\(verbose.stderr)")
        #expect(verbose.stderr.contains("\(folder)/x\\xff"), "\(verbose.stderr)")
        #expect(!verbose.stderr.contains("\u{FFFD}"))
        // Nothing went, and -0 has nothing to separate without --dry-run.
        #expect(exists(folder, odd) && exists(folder, newline) && exists(folder, plain))
        let refused = try Tools.run("vfs-shred", ["-0", folder + "/plain"])
        #expect(refused.status == 64 && refused.stderr.hasPrefix("vfs-shred: error: -0 separates the --dry-run list\n"), "\(refused.stderr)")
        #expect(exists(folder, plain))
    }

    // MARK: mounts and pseudo file systems

    /// Mounts with mount(8); false when this process may not mount (not root, or no
    /// CAP_SYS_ADMIN in a container).
    func mount(_ arguments: [String]) throws -> Bool {
        try Tools.run("mount", arguments).status == 0
    }

    func unmount(_ path: String) { _ = try? Tools.run("umount", ["-l", path]) }

    @Test("-r stays on its file system: a tmpfs mounted inside the tree is skipped and reported, its files untouched", .enabled(if: getuid() == 0, "mounting takes root; MountIdentityTests cover the logic"))
    func staysOnFileSystem() throws {
        let scratch = try TestFolder()
        let tree = scratch.path("tree")
        let inner = tree + "/mounted"
        try FileManager.default.createDirectory(atPath: inner, withIntermediateDirectories: true)
        try writeSynced(tree + "/a", testBytes(3000, seed: 1))
        // A tmpfs, or where mounting one is refused, a bind mount of another folder.
        var mounted = try mount(["-t", "tmpfs", "vfs-test", inner])
        if !mounted {
            try FileManager.default.createDirectory(atPath: scratch.path("elsewhere"), withIntermediateDirectories: false)
            mounted = try mount(["--bind", scratch.path("elsewhere"), inner])
        }
        try #require(mounted, "neither a tmpfs nor a bind mount could be mounted; MountIdentityTests cover the logic")
        defer { unmount(inner) }
        try writeSynced(inner + "/precious", testBytes(4000, seed: 2))
        try FileManager.default.createDirectory(atPath: inner + "/sub", withIntermediateDirectories: false)
        try writeSynced(inner + "/sub/more", testBytes(100, seed: 3))

        let run = try Tools.run("vfs-shred", ["-r", "--json", tree])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("vfs-shred: skipped \"\(inner)\": is a mount point (another file system or a bind mount); not crossed"), "\(run.stderr)")
        #expect(run.stderr.contains("hint: vfs-shred -r stays on the file system it starts on"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: inner + "/precious")) == testBytes(4000, seed: 2))
        #expect(try Data(contentsOf: URL(fileURLWithPath: inner + "/sub/more")) == testBytes(100, seed: 3))
        #expect(try FileManager.default.contentsOfDirectory(atPath: tree) == ["mounted"])
        let summary = try json(run)
        #expect(summary["files"] as? Int == 1)
        #expect((summary["skipped"] as? [[String: String]])?.map { $0["path"]! } == [inner])

        // Named on the command line, the mount point's content goes and the folder stays.
        let named = try Tools.run("vfs-shred", ["-r", inner])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stderr.contains("warning: \"\(inner)\" is a mount point: what it held was shredded, the folder itself stays"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: inner).isEmpty)
        #expect(FileManager.default.fileExists(atPath: inner))
    }

    @Test("-r does not cross a bind mount of the same file system (same device, another mount id)", .enabled(if: getuid() == 0, "bind mounts take root; MountIdentityTests cover the logic"))
    func staysOffBindMounts() throws {
        let scratch = try TestFolder()
        let tree = scratch.path("tree")
        let outside = scratch.path("outside")
        for folder in [tree + "/bound", outside] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try writeSynced(outside + "/precious", testBytes(2000, seed: 4))
        try writeSynced(scratch.path("outside-file"), testBytes(500, seed: 5))
        try writeSynced(tree + "/bound-file", Data())
        try writeSynced(tree + "/a", testBytes(700, seed: 6))
        try #require(try mount(["--bind", outside, tree + "/bound"]), "bind mounts need root; MountIdentityTests cover the logic")
        defer { unmount(tree + "/bound") }
        // A file can be bind-mounted too.
        try #require(try mount(["--bind", scratch.path("outside-file"), tree + "/bound-file"]))
        defer { unmount(tree + "/bound-file") }
        var bound = stat(), parent = stat()
        #expect(stat(tree + "/bound", &bound) == 0 && stat(tree, &parent) == 0)
        #expect(bound.st_dev == parent.st_dev, "a bind mount keeps the device: st_dev alone can't tell")

        let run = try Tools.run("vfs-shred", ["-r", tree])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("skipped \"\(tree)/bound\": is a mount point"))
        #expect(run.stderr.contains("skipped \"\(tree)/bound-file\": is a mount point"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: outside + "/precious")) == testBytes(2000, seed: 4))
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path("outside-file"))) == testBytes(500, seed: 5))
        #expect(!FileManager.default.fileExists(atPath: tree + "/a"))
    }

    @Test("sysfs, proc, cgroup and devtmpfs files are refused outright, in a dry run too")
    func pseudoFileSystemsRefused() throws {
        // Dry runs: were the refusal missing, nothing would still be written.
        var targets: [(path: String, kind: String)] = [("/proc/self/status", "proc")]
        if let sysfsFile = try FileManager.default.contentsOfDirectory(atPath: "/sys/kernel").sorted()
            .map({ "/sys/kernel/" + $0 }).first(where: { path in
                var info = stat(); return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG }) {
            targets.append((sysfsFile, "sysfs"))
        }
        for (path, kind) in targets {
            let run = try Tools.run("vfs-shred", ["--dry-run", "--json", path])
            #expect(run.status == 1, "\(path): \(run.stderr)")
            #expect(run.stderr.contains("skipped \"\(path)\": is on \(kind), a kernel pseudo file system, not stored data; refused"), "\(run.stderr)")
            #expect((try json(run)["files"] as? Int) == 0)
        }
        if getuid() == 0 {
            // Not only root: a user's run refuses a pseudo file system too.
            let asUser = try Tools.run("setpriv", OtherUser.setpriv + [
                                                   try OtherUser.tool("vfs-shred"), "--dry-run", "/proc/self/status"])
            #expect(asUser.status == 1, "\(asUser.stderr)")
            #expect(asUser.stderr.contains("is on proc, a kernel pseudo file system"), "\(asUser.stderr)")
            #expect(asUser.out.isEmpty)
        }
        let tree = try Tools.run("vfs-shred", ["-r", "--dry-run", "/proc/self/net"])
        #expect(tree.status == 1)
        #expect(tree.stderr.contains("is on proc, a kernel pseudo file system"))
        #expect(tree.out.isEmpty)

        // devtmpfs reports tmpfs's magic number; the mount table tells them apart.
        if try String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)
            .split(separator: "\n").contains(where: { $0.contains(" /dev ") && $0.contains(" - devtmpfs ") }),
           getuid() == 0 {
            let file = "/dev/vfs-shred-test-\(UUID().uuidString)"
            try Data("x".utf8).write(to: URL(fileURLWithPath: file))
            defer { unlink(file) }
            let run = try Tools.run("vfs-shred", [file])
            #expect(run.status == 1)
            #expect(run.stderr.contains("is on devtmpfs, a kernel pseudo file system"), "\(run.stderr)")
            #expect(FileManager.default.fileExists(atPath: file))
        }
    }

    // MARK: the command line

    @Test("usage errors exit 64 with a hint; --help has an example and the exit statuses")
    func usage() throws {
        for (args, words) in [([String](), "missing PATH"), (["-n", "0", "x"], "-n 0"), (["--include", "a/*.csv", "x"], "base names"),
                              (["--older-than", "7x", "x"], "invalid duration"), (["-n", "101", "x"], "--passes"),
                              (["-r", "--older-than", "7", "--dry-run", "x"], "duration \"7\" has no unit"),
                              (["--bogus", "x"], "unknown option")] {
            let run = try Tools.run("vfs-shred", args)
            #expect(run.status == 64, "\(args)")
            #expect(run.stderr.contains(words), "\(args): \(run.stderr)")
        }
        let help = try Tools.run("vfs-shred", ["--help"])
        #expect(help.status == 0)
        #expect(help.out.contains("vfs-shred -r --older-than 7d"))
        #expect(help.out.contains("Exit status: 0"))
        #expect(help.out.contains("OnCalendar="))
        #expect(try Tools.run("vfs-shred", ["--version"]).out.hasPrefix("vfs-shred 0."))
    }
}
