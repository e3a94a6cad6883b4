import Foundation
import Testing
import VFSTestSupport
import VFSCore

/// A folder for one test on a chosen file system: an ext4 image loop-mounted in a temp
/// folder, a tmpfs or a ramfs when this process may mount (the suite runs as root);
/// else the temp folder itself. `keepsNoDump` is what the file system answers for a
/// probe file, so each test asserts the marking where the flag is kept and the
/// documented fallback (the output written, a warning) where it is not.
final class MountedFolder {
    enum Kind: String { case ext4, tmpfs, ramfs }
    let scratch: TestFolder
    let path: String
    let mounted: Bool
    let keepsNoDump: Bool

    init(_ kind: Kind) throws {
        scratch = try TestFolder("backup")
        let point = scratch.path("mnt")
        try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: false)
        var ok = false
        switch kind {
        case .ext4:
            let image = scratch.path("ext4.img")
            ok = try Tools.run("mkfs.ext4", ["-q", "-F", image, "8M"]).status == 0
                && Tools.run("mount", ["-o", "loop", image, point]).status == 0
        case .tmpfs, .ramfs:
            ok = try Tools.run("mount", ["-t", kind.rawValue, "-o", "size=8m", "vfs-test", point]).status == 0
        }
        mounted = ok
        path = ok ? point : scratch.path("unmounted")
        if !ok { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false) }
        chmod(path, 0o755)
        let probe = path + "/.probe"
        FileManager.default.createFile(atPath: probe, contents: nil)
        keepsNoDump = BackupExclusion.markNoDump(path: probe) && BackupExclusion.hasNoDump(path: probe) == true
        unlink(probe)
    }

    deinit { if mounted { _ = try? Tools.run("umount", ["-l", path]) } }

    func sub(_ name: String) -> String { path + "/" + name }
}

/// lsattr's view of one file: true when its flags column has the `d` (nodump).
func lsattrNoDump(_ path: String, folder: Bool = false) throws -> Bool? {
    let run = try Tools.run("lsattr", (folder ? ["-d"] : []) + [path])
    guard run.status == 0, let flags = run.out.split(separator: " ").first else { return nil }
    return flags.contains("d")
}

@Suite("--no-backup: nodump and CACHEDIR.TAG")
struct BackupExclusionTests {
    func keypair(_ scratch: TestFolder) throws -> (path: String, recipient: String) {
        try AgeToolsTests().keypair(scratch, "key.txt")
    }

    @Test("an ext4 loop mount (the suite runs as root) keeps nodump: the fixture really tests the flag")
    func ext4KeepsTheFlag() throws {
        let folder = try MountedFolder(.ext4)
        if geteuid() == 0 {
            #expect(folder.mounted)
            #expect(folder.keepsNoDump)
        } else {
            // Without root there is no mount: the temp folder's answer decides each test.
            #expect(!folder.mounted)
        }
    }

    @Test("vfs-decrypt --no-backup -o marks OUT nodump (lsattr and ioctl agree); without it OUT is not marked",
          arguments: [MountedFolder.Kind.ext4, .tmpfs])
    func decryptMarksOutput(kind: MountedFolder.Kind) throws {
        let folder = try MountedFolder(kind)
        let key = try keypair(folder.scratch)
        let plain = try folder.scratch.write("plain", testBytes(70_000, seed: 4))
        let sealed = folder.scratch.path("plain.age")
        #expect(try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", sealed, plain]).status == 0)

        let marked = try Tools.run("vfs-decrypt", ["-i", key.path, "--no-backup", "-o", folder.sub("marked"), sealed])
        #expect(marked.status == 0, "\(marked.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.sub("marked"))) == testBytes(70_000, seed: 4))
        let plainRun = try Tools.run("vfs-decrypt", ["-i", key.path, "-o", folder.sub("unmarked"), sealed])
        #expect(plainRun.status == 0)
        if folder.keepsNoDump {
            #expect(marked.stderr.isEmpty)
            #expect(BackupExclusion.hasNoDump(path: folder.sub("marked")) == true)
            #expect(try lsattrNoDump(folder.sub("marked")) == true)
            #expect(BackupExclusion.hasNoDump(path: folder.sub("unmarked")) == false)
            #expect(try lsattrNoDump(folder.sub("unmarked")) == false)
        } else {
            #expect(marked.stderr.contains("warning: \"\(folder.sub("marked"))\" is not marked nodump"))
        }
    }

    @Test("on a file system without inode flags (ramfs) the output is written all the same, exit 0, with a warning")
    func decryptFallback() throws {
        let folder = try MountedFolder(.ramfs)
        let key = try keypair(folder.scratch)
        let plain = try folder.scratch.write("plain", Data("hello\n".utf8))
        let sealed = folder.scratch.path("plain.age")
        #expect(try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", sealed, plain]).status == 0)
        let run = try Tools.run("vfs-decrypt", ["-i", key.path, "--no-backup", "-o", folder.sub("out"), sealed])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: folder.sub("out"), encoding: .utf8) == "hello\n")
        if folder.mounted { #expect(!folder.keepsNoDump) }
        if folder.keepsNoDump {
            #expect(BackupExclusion.hasNoDump(path: folder.sub("out")) == true)
        } else {
            #expect(BackupExclusion.hasNoDump(path: folder.sub("out")) == nil)
            #expect(run.stderr == "vfs-decrypt: warning: \"\(folder.sub("out"))\" is not marked nodump: its file system keeps no such attribute (ramfs, vfat, NFS…); leave it out of backups by its path\n")
        }
    }

    @Test("--no-backup needs a file to mark")
    func decryptUsage() throws {
        let run = try Tools.run("vfs-decrypt", ["-i", "/nonexistent", "--no-backup"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--no-backup goes with -o OUT"))
        #expect(try Tools.run("vfs-unwrap", ["-i", "/nonexistent", "--no-backup", "--stdout", "x"]).status == 64)
    }

    /// A tree to wrap: a top-level file, a folder with a file and a link, an empty folder.
    func wrapTree(_ scratch: TestFolder, recipient: String) throws -> String {
        let root = scratch.path("tree")
        try FileManager.default.createDirectory(atPath: root + "/docs/deep", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/merge", withIntermediateDirectories: true)
        try Data("top\n".utf8).write(to: URL(fileURLWithPath: root + "/top.txt"))
        try Data("a\n".utf8).write(to: URL(fileURLWithPath: root + "/docs/a.txt"))
        try Data("b\n".utf8).write(to: URL(fileURLWithPath: root + "/docs/deep/b.txt"))
        try Data("m\n".utf8).write(to: URL(fileURLWithPath: root + "/merge/m.txt"))
        try FileManager.default.createSymbolicLink(atPath: root + "/docs/link", withDestinationPath: "a.txt")
        let bundle = scratch.path("tree.vfs")
        let wrap = try Tools.run("bash", ["-c", "cd '\(root)' && '\(Tools.binDir.path)/vfs-wrap' -r '\(recipient)' -o '\(bundle)' top.txt docs merge"])
        #expect(wrap.status == 0, "\(wrap.stderr)")
        return bundle
    }

    @Test("vfs-unwrap --no-backup: every file and folder nodump, a CACHEDIR.TAG in each folder it creates, none in a folder merged into",
          arguments: [MountedFolder.Kind.ext4, .ramfs])
    func unwrapMarks(kind: MountedFolder.Kind) throws {
        let folder = try MountedFolder(kind)
        let key = try keypair(folder.scratch)
        let bundle = try wrapTree(folder.scratch, recipient: key.recipient)
        let dir = folder.sub("out")
        try FileManager.default.createDirectory(atPath: dir + "/merge", withIntermediateDirectories: true)
        let run = try Tools.run("vfs-unwrap", ["-i", key.path, "--no-backup", "-C", dir, bundle])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: dir + "/docs/deep/b.txt", encoding: .utf8) == "b\n")
        // The tag: the spec's signature first, in the folder created, not in the merged one.
        let tag = try String(contentsOfFile: dir + "/docs/CACHEDIR.TAG", encoding: .utf8)
        #expect(tag.hasPrefix("Signature: 8a477f597d28d172789f06886806bc55"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/merge/CACHEDIR.TAG"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/docs/deep/CACHEDIR.TAG"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/CACHEDIR.TAG"))
        // tar --exclude-caches keeps the tag and leaves the rest of the folder out.
        let listed = try Tools.run("bash", ["-c", "tar --exclude-caches -cf - -C '\(dir)' . | tar -tf -"]).out.split(separator: "\n")
        #expect(listed.contains("./docs/CACHEDIR.TAG") && listed.contains("./top.txt") && listed.contains("./merge/m.txt"))
        #expect(!listed.contains("./docs/a.txt") && !listed.contains("./docs/deep/"))
        let written = ["top.txt", "docs", "docs/a.txt", "docs/deep", "docs/deep/b.txt", "merge/m.txt"]
        if folder.keepsNoDump {
            #expect(run.stderr.isEmpty)
            for name in written {
                #expect(BackupExclusion.hasNoDump(path: dir + "/" + name) == true, "\(name)")
                #expect(try lsattrNoDump(dir + "/" + name, folder: true) == true, "\(name)")
            }
            // The folder merged into is the user's: left as it was.
            #expect(BackupExclusion.hasNoDump(path: dir + "/merge") == false)
        } else {
            for name in written { #expect(BackupExclusion.hasNoDump(path: dir + "/" + name) != true) }
            #expect(run.stderr == "vfs-unwrap: warning: 7 of the entries written in \"\(dir)\" are not marked nodump: the file system keeps no such attribute; the folder it created has a CACHEDIR.TAG\n")
        }
        // Without --no-backup nothing is marked and no tag is added.
        let again = folder.sub("again")
        try FileManager.default.createDirectory(atPath: again, withIntermediateDirectories: false)
        #expect(try Tools.run("vfs-unwrap", ["-i", key.path, "-C", again, bundle]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: again + "/docs/CACHEDIR.TAG"))
        if folder.keepsNoDump { #expect(BackupExclusion.hasNoDump(path: again + "/docs/a.txt") == false) }
    }

    @Test("the keychain's own folder and the agent folder are always marked; the keychain file is saved nodump")
    func keychainAndAgentFolders() throws {
        let folder = try MountedFolder(.ext4)
        let home = folder.sub("home"), run = folder.sub("run")
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let env = ["VFS_HOME": home, "XDG_RUNTIME_DIR": run, "VFS_PASSCODE": "pw"]
        let initRun = try Tools.run("vfs-keychain", ["init", "--work-factor", "8"], environment: env)
        #expect(initRun.status == 0, "\(initRun.stderr)")
        #expect(try String(contentsOfFile: home + "/CACHEDIR.TAG", encoding: .utf8).hasPrefix(BackupExclusion.tagSignature))
        #expect(try Tools.run("vfs-keychain", ["set", "mail", "me"], stdin: Data("s3cret".utf8), environment: env).status == 0)
        let unlock = try Tools.run("vfs-keychain", ["unlock", "--timeout", "1m"], environment: env)
        defer { _ = try? Tools.run("vfs-keychain", ["lock"], environment: env) }
        #expect(unlock.status == 0, "\(unlock.stderr)")
        #expect(try String(contentsOfFile: run + "/vfs/CACHEDIR.TAG", encoding: .utf8).hasPrefix(BackupExclusion.tagSignature))
        if folder.keepsNoDump {
            for path in [home, home + "/keychain", home + "/keychain.prev", run + "/vfs"] {
                #expect(BackupExclusion.hasNoDump(path: path) == true, "\(path)")
            }
        }
        // A keychain elsewhere ($VFS_KEYCHAIN): its folder is the user's and gets no tag.
        let own = folder.sub("mine")
        try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: false)
        let elsewhere = try Tools.run("vfs-keychain", ["init", "--work-factor", "8"],
                                      environment: ["VFS_KEYCHAIN": own + "/kc", "VFS_PASSCODE": "pw", "XDG_RUNTIME_DIR": run])
        #expect(elsewhere.status == 0, "\(elsewhere.stderr)")
        #expect(!FileManager.default.fileExists(atPath: own + "/CACHEDIR.TAG"))
        if folder.keepsNoDump {
            #expect(BackupExclusion.hasNoDump(path: own + "/kc") == true)
            #expect(BackupExclusion.hasNoDump(path: own) == false)
        }
    }

    @Test("a CACHEDIR.TAG already in a folder is never replaced")
    func tagNotReplaced() throws {
        let scratch = try TestFolder()
        try scratch.write("CACHEDIR.TAG", "mine\n")
        let mark = BackupExclusion.markFolder(scratch.path)
        #expect(mark.tagged)
        #expect(try scratch.text("CACHEDIR.TAG") == "mine\n")
        let fresh = try TestFolder()
        #expect(BackupExclusion.markFolder(fresh.path).tagged)
        #expect(try fresh.text("CACHEDIR.TAG").hasPrefix("Signature: 8a477f597d28d172789f06886806bc55\n"))
    }
}
