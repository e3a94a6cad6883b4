import Foundation
import Testing
import VFSTestSupport

/// `-o FILE` through a symbolic link: the kernel's protected-symlinks rule holds for
/// every tool that writes an output file, although the tools resolve the link themselves.
@Suite("-o FILE and links in sticky folders")
struct OutputLinkTests {
    /// Inputs for every tool that writes -o, and the arguments that make each write `out`.
    struct Fixture {
        let scratch: TestFolder
        let key: (path: String, recipient: String)
        let plain: String
        let sealed: String

        init() throws {
            scratch = try TestFolder()
            key = try AgeToolsTests().keypair(scratch)
            plain = try scratch.write("plain.txt", Data("new content\n".utf8))
            sealed = scratch.path("sealed.age")
            #expect(try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", sealed, plain]).status == 0)
            try FileManager.default.createDirectory(atPath: scratch.path("in"), withIntermediateDirectories: false)
            try Data("passed through\n".utf8).write(to: URL(fileURLWithPath: scratch.path("in/out")))
        }

        func arguments(_ tool: String, out: String) -> [String] {
            switch tool {
            case "vfs-encrypt": return ["-r", key.recipient, "-o", out, plain]
            case "vfs-decrypt": return ["-i", key.path, "-o", out, sealed]
            case "vfs-wrap": return ["-r", key.recipient, "-o", out, plain]
            case "vfs-keygen": return ["-y", "-o", out, key.path]
            case "vfs-policy": return ["export", "--policy", scratch.path("policy.json"), "-o", out]
            default: return ["--passthrough", "--force", "-C", AtomicFolder.folder(of: out), scratch.path("in/out")]
            }
        }

        /// A sticky, world-writable folder (like /tmp) owned by `folderOwner`.
        func stickyFolder(owner folderOwner: uid_t) throws -> String {
            let sticky = scratch.path("sticky")
            try FileManager.default.createDirectory(atPath: sticky, withIntermediateDirectories: false)
            #expect(chown(sticky, folderOwner, folderOwner) == 0)
            #expect(chmod(sticky, 0o1777) == 0)
            return sticky
        }
    }

    enum AtomicFolder {
        static func folder(of path: String) -> String { (path as NSString).deletingLastPathComponent }
    }

    static let tools = ["vfs-encrypt", "vfs-decrypt", "vfs-wrap", "vfs-keygen", "vfs-policy", "vfs-unwrap"]

    @Test("another user's link in a sticky, world-writable folder is not followed (exit 73, its target untouched)", .enabled(if: getuid() == 0, "planting another user's link takes root (lchown)"), arguments: tools)
    func plantedLinkRefused(tool: String) throws {
        let fixture = try Fixture()
        let sticky = try fixture.stickyFolder(owner: 0)
        let victim = try fixture.scratch.write("victim.txt", Data("root's file\n".utf8))
        let out = sticky + "/out"
        #expect(symlink(victim, out) == 0)
        #expect(lchown(out, 65534, 65534) == 0)
        let run = try Tools.run(tool, fixture.arguments(tool, out: out))
        #expect(run.status == 73, "\(run.stderr)")
        #expect(run.stderr.contains("error: refusing to write through \"\(out)\": a link owned by another user (uid 65534) in a sticky, world-writable folder"), "\(run.stderr)")
        #expect(run.stderr.contains("hint: such a link is not followed"))
        #expect(try fixture.scratch.read("victim.txt") == Data("root's file\n".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: sticky) == ["out"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.scratch.path).filter { $0.contains(".tmp-") }.isEmpty)
    }

    @Test("as an unprivileged user: a link planted by a third user can't redirect the output over the user's own file", .enabled(if: getuid() == 0, "two users take root to set up"))
    func plantedLinkUnprivileged() throws {
        let fixture = try Fixture()
        let sticky = try fixture.stickyFolder(owner: 0)
        // nobody's own folder and file, which another user (uid 65533) points a link at.
        let home = fixture.scratch.path("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        let victim = home + "/notes.txt"
        try Data("nobody's notes\n".utf8).write(to: URL(fileURLWithPath: victim))
        for path in [home, victim, fixture.key.path] { #expect(chown(path, 65534, 65534) == 0) }
        let out = sticky + "/out"
        #expect(symlink(victim, out) == 0)
        #expect(lchown(out, 65533, 65533) == 0)
        let run = try Tools.run("setpriv", OtherUser.setpriv + [
                                            try OtherUser.tool("vfs-decrypt")] + fixture.arguments("vfs-decrypt", out: out))
        #expect(run.status == 73, "\(run.stderr)")
        #expect(run.stderr.contains("a link owned by another user (uid 65533)"), "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == Data("nobody's notes\n".utf8))
    }

    @Test("a link of one's own, or of the sticky folder's owner, is followed: its target is replaced, the link kept", .enabled(if: getuid() == 0, "the folder owner's case needs a second user"))
    func ownLinkFollowed() throws {
        for (folderOwner, linkOwner) in [(uid_t(0), uid_t(0)), (uid_t(65534), uid_t(65534))] {
            let fixture = try Fixture()
            let sticky = try fixture.stickyFolder(owner: folderOwner)
            let target = try fixture.scratch.write("target.txt", Data("old\n".utf8))
            let out = sticky + "/out"
            #expect(symlink(target, out) == 0)
            #expect(lchown(out, linkOwner, linkOwner) == 0)
            let run = try Tools.run("vfs-decrypt", fixture.arguments("vfs-decrypt", out: out))
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try fixture.scratch.read("target.txt") == Data("new content\n".utf8))
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: out)) == target)
        }
    }
}
