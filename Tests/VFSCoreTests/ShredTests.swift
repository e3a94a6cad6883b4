import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore

private extension TestFolder {
    func names() throws -> [String] { try listing() }
    func open() -> Int32 { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
}

@Suite("shred engine")
struct ShredEngineTests {
    @Test("the keystream is AES-256-CTR (NIST SP 800-38A F.5.5) and restarts to the same bytes")
    func keystream() throws {
        let hex = hexBytes
        let key = SecretBytes(copying: hex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"))
        let iv = SecretBytes(copying: hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"))
        let stream = try Keystream(key: key, iv: iv)
        var bytes = [UInt8](repeating: 0xAA, count: 32)
        try bytes.withUnsafeMutableBytes { try stream.fill($0) }
        // Keystream XOR the vector's two plaintext blocks gives its two ciphertext blocks.
        let plain = hex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51")
        let cipher = hex("601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5")
        #expect(zip(bytes, plain).map { $0 ^ $1 } == cipher)

        let random = try Keystream()
        var a = [UInt8](repeating: 0, count: 100_000), b = a
        try a.withUnsafeMutableBytes { try random.fill($0) }
        try b.withUnsafeMutableBytes { try random.restarted().fill($0) }
        #expect(a == b)
        #expect(a.filter { $0 == 0 }.count < 1000)  // about 1/256 are zero
        var c = [UInt8](repeating: 0, count: 100_000)
        try c.withUnsafeMutableBytes { try Keystream().fill($0) }
        #expect(a != c)
    }

    @Test("names go from their own length to half as long each round, down to one")
    func nameLengths() {
        #expect(NameWiper.lengths(from: 14) == [14, 7, 3, 1])
        #expect(NameWiper.lengths(from: 1) == [1])
        #expect(NameWiper.lengths(from: 2) == [2, 1])
        #expect(NameWiper.lengths(from: 255) == [255, 127, 63, 31, 15, 7, 3, 1])
    }

    @Test("the name wipe renames through shorter names and never replaces an entry")
    func nameWipe() throws {
        let folder = try TestFolder("shred")
        // Every one-character name is taken by a file that must survive.
        for c in NameWiper.alphabet { try folder.write(String(UnicodeScalar(c)), [c]) }
        let victims = ["quarterly-report.pdf", "ab", "x.txt"]
        for name in victims { try folder.write(name, Array(name.utf8)) }
        let fd = folder.open()
        defer { close(fd) }
        var seen: [Int: [String]] = [:]
        var wiper = NameWiper(folder: fd)
        wiper.trace = { i, _, new in seen[i, default: []].append(new.description) }
        let results = wiper.wipe(victims.map(FileName.init), paths: victims)
        for (i, name) in victims.enumerated() {
            let final = try results[i].get().description
            let lengths = seen[i]!.map(\.count)
            // Starts at the original length, strictly shorter each time, never reaching
            // one character (all taken) in this folder.
            #expect(lengths.first == name.count)
            #expect(zip(lengths, lengths.dropFirst()).allSatisfy { $0 > $1 })
            #expect(final.count == 2)
            #expect(final.allSatisfy { NameWiper.alphabet.contains(UInt8(ascii: $0.unicodeScalars.first!)) })
        }
        let names = try folder.names()
        for victim in victims { #expect(!names.contains(victim)) }
        for c in NameWiper.alphabet {
            let name = String(UnicodeScalar(c))
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path + "/" + name)) == Data([c]))
        }
        #expect(names.count == NameWiper.alphabet.count + victims.count)
    }

    @Test("selection: age, include and exclude globs on base names")
    func selection() {
        let now = 1_000_000
        let select = ShredSelection(olderThan: 7 * 86400, includes: ["*.csv", "*.tsv"], excludes: ["keep*"], now: now)
        let old = now - 8 * 86400
        let young = now - 6 * 86400
        let edge = now - 7 * 86400
        #expect(select.selects(name: "a.csv", modified: old))
        #expect(select.selects(name: ".hidden.tsv", modified: old))
        #expect(!select.selects(name: "a.csv", modified: young))
        #expect(!select.selects(name: "a.csv", modified: edge))
        #expect(!select.selects(name: "a.txt", modified: old))
        #expect(!select.selects(name: "keep.csv", modified: old))
        // The form the tree walk calls, with stat(2)'s time: whole seconds decide.
        #expect(select.selects(Array("a.csv".utf8CString), modified: timespec(tv_sec: old, tv_nsec: 999_999_999)))
        #expect(!select.selects(Array("a.csv".utf8CString), modified: timespec(tv_sec: edge, tv_nsec: 0)))
        #expect(select.filters)
        let all = ShredSelection()
        #expect(!all.filters)
        #expect(all.selects(name: "anything", modified: young))
        #expect(ShredSelection(excludes: ["*.log"]).selects(name: "a.log.gz", modified: young))
        #expect(!ShredSelection(includes: ["report-??.pdf"]).selects(name: "report-123.pdf", modified: young))
    }

    @Test("paths split into folder and name; '.', '..' and '/' are refused")
    func split() {
        func parts(_ p: String) -> [String]? {
            Shredder.split(Array(p.utf8)).map { [$0.folder.description, $0.name.description, $0.shown] }
        }
        #expect(parts("a.txt") == [".", "a.txt", "a.txt"])
        #expect(parts("dir/sub/") == ["dir", "sub", "dir/sub"])
        #expect(parts("/etc") == ["/", "etc", "/etc"])
        #expect(parts("/a/b//") == ["/a", "b", "/a/b"])
        for refused in ["/", "//", ".", "..", "x/..", "x/.", ""] { #expect(parts(refused) == nil, "\(refused)") }
    }

    @Test("file systems that do not overwrite in place are recognised")
    func fileSystems() throws {
        #expect(FileSystemKind(magic: 0xEF53).overwritesInPlace)
        #expect(FileSystemKind(magic: 0xEF53).name == "ext4")
        for (magic, name) in [(0x9123683E, "btrfs"), (0x2FC12FC1, "zfs"), (0x58465342, "xfs"), (0x794C7630, "overlayfs"),
                              (0x01021994, "tmpfs"), (0x6969, "nfs")] as [(UInt, String)] {
            let kind = FileSystemKind(magic: magic)
            #expect(kind.name == name)
            #expect(!kind.overwritesInPlace)
        }
        #expect(FileSystemKind(magic: 0x12345).name == "0x12345")
        let shm = Glibc.open("/dev/shm", O_RDONLY | O_DIRECTORY)
        defer { close(shm) }
        #expect(FileSystemKind.of(fd: shm)?.name == "tmpfs")
    }

    @Test("pseudo file systems are known by magic number, devtmpfs by the mount table")
    func pseudoFileSystems() throws {
        for (magic, name) in [(0x62656572, "sysfs"), (0x9FA0, "proc"), (0x27E0EB, "cgroup"), (0x63677270, "cgroup2"),
                              (0x64626720, "debugfs"), (0xDE5E81E4, "efivarfs")] as [(UInt, String)] {
            #expect(FileSystemKind(magic: magic).pseudo && FileSystemKind(magic: magic).name == name)
        }
        #expect(!FileSystemKind(magic: 0xEF53).pseudo && !FileSystemKind(magic: 0x01021994).pseudo)
        for (path, name) in [("/proc", "proc"), ("/sys", "sysfs")] {
            let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY)
            defer { close(fd) }
            let kind = FileSystemKind.of(fd: fd)
            #expect(kind?.pseudo == true && kind?.name == name)
        }
        let shm = Glibc.open("/dev/shm", O_RDONLY | O_DIRECTORY)
        defer { close(shm) }
        #expect(FileSystemKind.of(fd: shm)?.pseudo == false)
    }

    @Test("mount identity: the same mount needs the same device and, where known, the same mount id")
    func mountIdentity() throws {
        let a = MountIdentity(device: 5, mount: 40), bindOfA = MountIdentity(device: 5, mount: 41)
        #expect(a.sameMount(as: a))
        #expect(!a.sameMount(as: bindOfA), "a bind mount shares the device, not the mount id")
        #expect(!a.sameMount(as: MountIdentity(device: 6, mount: 40)))
        #expect(a.sameMount(as: MountIdentity(device: 5, mount: nil)), "without mount ids only devices compare")
        // The running kernel: /proc and / are different mounts, and the table names /proc's type.
        let proc = Glibc.open("/proc", O_RDONLY | O_DIRECTORY), root = Glibc.open("/", O_RDONLY | O_DIRECTORY)
        defer { close(proc); close(root) }
        let procMount = try #require(MountIdentity.of(fd: proc)), rootMount = try #require(MountIdentity.of(fd: root))
        #expect(!procMount.sameMount(as: rootMount))
        let id = try #require(procMount.mount, "kernels since 5.8 report mount ids")
        #expect(MountIdentity.typeName(ofMount: id) == "proc")
        var info = stat()
        #expect(fstatat(root, "proc", &info, AT_SYMLINK_NOFOLLOW) == 0)
        #expect(MountIdentity.of(Array("proc".utf8CString), in: root, info: info) == procMount)
    }

    @Test("overwriting writes the keystream over every byte in place, then zeros with a zero pass", arguments: [1, 4095, 4096, 3 << 20, (9 << 20) + 5])
    func overwrite(size: Int) throws {
        let folder = try TestFolder("shred")
        let original = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let path = try folder.write("f", original)
        let fd = Glibc.open(path, O_RDWR)
        defer { close(fd) }
        let length = Overwriter.roundUp(size, to: 4096)
        try Overwriter(passes: 2, zeroPass: false, verify: true).overwrite(fd: fd, length: length, path: path, progress: nil)
        let random = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(random.count == length)
        let same = zip(random, original).filter { $0 == $1 }.count
        #expect(same <= size / 64 + 2)  // chance agreement is 1/256
        try Overwriter(passes: 1, zeroPass: true, verify: true).overwrite(fd: fd, length: length, path: path, progress: nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(count: length))
    }

    @Test("a file swapped for a link after it was looked at is left alone")
    func swappedForLink() throws {
        let folder = try TestFolder("shred")
        let target = try folder.write("target", Array("precious".utf8))
        let victim = try folder.write("victim", Array("secret".utf8))
        var info = stat()
        #expect(lstat(victim, &info) == 0)
        let entry = Shredder.Entry(name: FileName("victim"), path: victim, info: info)
        // Held open, the removed file keeps its inode, so the file renamed into its
        // place below can't be given the same inode number (ext4 reuses freed ones).
        let original = Glibc.open(victim, O_RDONLY)
        #expect(original >= 0)
        defer { close(original) }
        // The attacker's swap: the file becomes a link to another file.
        try FileManager.default.removeItem(atPath: victim)
        try FileManager.default.createSymbolicLink(atPath: victim, withDestinationPath: target)
        let fd = folder.open()
        defer { close(fd) }
        var options = ShredOptions()
        options.force = true
        guard case .refused(.changedMeanwhile) = FileOverwrite.one(entry, in: fd, options: options, progress: nil) else {
            Issue.record("the swapped entry was not refused")
            return
        }
        // A different regular file renamed into its place is refused too.
        let other = try folder.write("other", Array("other".utf8))
        #expect(rename(other, victim) == 0)
        guard case .refused(.changedMeanwhile) = FileOverwrite.one(entry, in: fd, options: options, progress: nil) else {
            Issue.record("the replaced entry was not refused")
            return
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "other")
    }

    @Test("a folder's files share the name-wipe rounds; the summary counts what went")
    func batchRounds() throws {
        let folder = try TestFolder("shred")
        for i in 0..<40 { try folder.write("file-\(i).dat", Array(repeating: UInt8(i), count: 100 + i)) }
        var options = ShredOptions()
        options.recursive = true
        var events: [ShredEvent] = []
        let shredder = Shredder(options: options, onEvent: { events.append($0) })
        var renames: [(String, String)] = []
        shredder.traceRename = { _, old, new in renames.append((old, new)) }
        let summary = shredder.shred([folder.path])
        #expect(summary.files == 40)
        #expect(summary.folders == 1)
        #expect(summary.bytes == (0..<40).reduce(0) { $0 + 100 + $1 })
        #expect(summary.complete)
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        // Every file went through names of its length, then shorter ones.
        for i in 0..<40 {
            var name = "file-\(i).dat"
            var lengths: [Int] = []
            while let step = renames.first(where: { $0.0 == name && $0.1 != name }) {
                lengths.append(step.1.count)
                name = step.1
                renames.removeAll { $0 == step }
            }
            #expect(lengths.first == "file-\(i).dat".count)
            #expect(lengths.last == 1 || lengths.last == 2)
        }
        let json = try JSONEncoder().encode(summary)
        let keys = try JSONSerialization.jsonObject(with: json) as! [String: Any]
        #expect(Set(keys.keys) == ["dryRun", "kept", "passes", "zeroPass", "files", "bytes", "links", "folders", "destroyed", "skipped", "errors", "warnings"])
        // Every path that went is listed (the files and the folder they were in).
        #expect((keys["destroyed"] as? [String])?.count == summary.files + summary.folders)
    }
}
