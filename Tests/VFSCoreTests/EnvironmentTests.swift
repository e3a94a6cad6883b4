import Foundation
import Glibc
import Testing
import VFSTestSupport
@testable import VFSBundle
@testable import VFSCore

/// VFSPaths, groups and the bundle decision: built from injected environments and
/// folders, never from the process's.
@Suite("paths, groups, policy sources")
struct EnvironmentTests {
    @Test("home: VFS_HOME, else XDG_DATA_HOME/vfs, else ~/.local/share/vfs; empty values count as unset")
    func home() throws {
        #expect(try VFSPaths(environment: ["VFS_HOME": "/v", "XDG_DATA_HOME": "/x", "HOME": "/h"]).home == "/v")
        #expect(try VFSPaths(environment: ["VFS_HOME": "", "XDG_DATA_HOME": "/x", "HOME": "/h"]).home == "/x/vfs")
        #expect(try VFSPaths(environment: ["XDG_DATA_HOME": "", "HOME": "/h"]).home == "/h/.local/share/vfs")
    }

    @Test("no HOME (cron, env -i): the password database's home, never a relative path; neither is refused")
    func homeWithoutHOME() throws {
        let database = VFSPaths(environment: [:], userID: 4_000_000_002, passwordHome: "/home/ann")
        #expect(try database.home == "/home/ann/.local/share/vfs")
        #expect(try database.keychain == "/home/ann/.local/share/vfs/keychain")
        // A relative HOME or XDG_DATA_HOME is ignored, not taken relative to the current folder.
        let relative = VFSPaths(environment: ["HOME": "h", "XDG_DATA_HOME": "x"], userID: 4_000_000_002, passwordHome: "/home/ann")
        #expect(try relative.home == "/home/ann/.local/share/vfs")
        let none = VFSPaths(environment: ["HOME": "."], userID: 4_000_000_002, passwordHome: nil)
        #expect(throws: VFSPathsError.noHome(userID: 4_000_000_002)) { try none.policyFile }
        #expect(throws: VFSPathsError.noHome(userID: 4_000_000_002)) { try none.keychain }
        // Named files need no home.
        #expect(try VFSPaths(environment: ["VFS_KEYCHAIN": "/k"], userID: 4_000_000_002, passwordHome: nil).keychain == "/k")
        // The real database: root's home is absolute.
        #expect(try VFSPaths(environment: [:], userID: 0).home.hasPrefix("/"))
    }

    @Test("files below home unless their own variable names them")
    func files() throws {
        let paths = VFSPaths(environment: ["VFS_HOME": "/v"])
        #expect(try paths.keychain == "/v/keychain")
        #expect(try paths.policyFile == "/v/policy.json")
        #expect(try paths.groupsFolder == "/v/groups")
        #expect(try paths.relayConfig == "/v/relay.json")
        #expect(try paths.policyCache == "/v/policy-cache")
        #expect(paths.relayURL == nil)
        #expect(paths.temporaryFolder == "/tmp")
        let named = VFSPaths(environment: ["VFS_HOME": "/v", "VFS_KEYCHAIN": "/k", "VFS_POLICY": "/p.json",
                                           "VFS_RELAY": "http://127.0.0.1:8080", "TMPDIR": "/t"])
        #expect(try named.keychain == "/k" && named.policyFile == "/p.json" && named.temporaryFolder == "/t")
        #expect(named.relayURL == "http://127.0.0.1:8080")
    }

    @Test("the agent folder: an absolute XDG_RUNTIME_DIR, else /run/user/UID when private and ours, else /tmp/vfs-UID")
    func agentFolder() {
        #expect(VFSPaths(environment: ["XDG_RUNTIME_DIR": "/run/x"]).agentFolder == "/run/x/vfs")
        // A relative XDG_RUNTIME_DIR is ignored; a uid with no /run/user folder falls back to /tmp.
        let nobody: uid_t = 4_000_000_001
        #expect(VFSPaths(environment: ["XDG_RUNTIME_DIR": "run"], userID: nobody).agentFolder == "/tmp/vfs-\(nobody)")
    }

    @Test("the agent folder: /tmp/vfs-UID taken by something not ours (another user's folder, a planted link) gives way to home/agent")
    func agentFolderFallback() throws {
        let tmp = try TestFolder("shared-tmp")
        let uid: uid_t = 4_000_000_003
        var paths = VFSPaths(environment: ["VFS_HOME": "/home/ann/vfs"], userID: uid, passwordHome: nil)
        paths.sharedTemporaryRoot = tmp.path
        let shared = tmp.path + "/vfs-\(uid)"
        // Absent: /tmp/vfs-UID, to be created.
        #expect(paths.agentFolder == shared && paths.agentFolderChoice.passedOver == nil)
        // A symlink planted there: passed over.
        #expect(symlink("/", shared) == 0)
        #expect(paths.agentFolderChoice.path == "/home/ann/vfs/agent" && paths.agentFolderChoice.passedOver == shared)
        #expect(unlink(shared) == 0)
        // A folder of another user (this process's uid is not 4000000003): passed over.
        #expect(mkdir(shared, 0o777) == 0)
        #expect(paths.agentFolder == "/home/ann/vfs/agent")
        // The user's own folder there is used (and checked for privacy when used).
        var mine = VFSPaths(environment: ["VFS_HOME": "/home/ann/vfs"], userID: getuid(), passwordHome: nil)
        mine.sharedTemporaryRoot = tmp.path
        #expect(rename(shared, tmp.path + "/vfs-\(getuid())") == 0)
        var runtime = stat()
        let hasRunUser = lstat("/run/user/\(getuid())", &runtime) == 0 && runtime.st_uid == getuid() && runtime.st_mode & 0o077 == 0
        #expect(mine.agentFolder == (hasRunUser ? "/run/user/\(getuid())/vfs" : tmp.path + "/vfs-\(getuid())"))
    }

    @Test("groups: a file per group in the groups folder; bad names, missing, empty and bad files are told apart")
    func groups() throws {
        let folder = try TestFolder("groups")
        let groups = GroupRecipients(folder: folder.path)
        let recipient = try X25519Identity.generate().recipient
        try folder.write("finance", "# finance\n\(recipient.string)\n")
        try folder.write("empty", "# nobody yet\n")
        try folder.write("bad", "age1nope\n")
        #expect(try groups.load("finance") == [.x25519(recipient)])
        for name in ["", ".hidden", "a/b"] {
            #expect { try groups.file(of: name) } throws: { error in
                if case .invalidName(name, folder.path)? = error as? GroupError { return true }
                return false
            }
        }
        #expect { try groups.load("none") } throws: { error in
            guard case let .unreadable(group, path, io)? = error as? GroupError else { return false }
            return group == "none" && path == folder.path + "/none" && io.code == ENOENT
        }
        #expect { try groups.load("empty") } throws: { error in
            guard case let .badRecipients(path, .invalidKey(why))? = error as? GroupError else { return false }
            return path == folder.path + "/empty" && why.contains("no recipients")
        }
        #expect { try groups.load("bad") } throws: { error in
            if case .badRecipients(let path, _)? = error as? GroupError { return path == folder.path + "/bad" }
            return false
        }
    }

    /// A policy source with fixed items.
    struct Fixed: PolicySource {
        let items: [PolicyItem]
        func load() throws -> PolicyDocument { PolicyDocument(items: items) }
    }

    @Test("a bundle is released only if every file type is allowed, for the bundle's group")
    func bundleDecision() throws {
        let viewer = PolicyDecisionTests.item("viewer", groups: ["finance"], types: ["pdf", "txt"])
        let source = Fixed(items: [viewer])
        func manifest(_ group: String?, _ paths: [String]) -> BundleManifest {
            BundleManifest(group: group, accessID: nil, sender: nil,
                           entries: paths.map { BundleManifest.Entry(path: $0, type: .file, size: 0, permissions: 0o644, mtime: 0) })
        }
        #expect(try source.decide(bundle: manifest("finance", ["a.pdf", "b.TXT", "c.pdf"]), app: "viewer") == .allowed(itemID: viewer.id))
        let mixed = try source.decide(bundle: manifest("finance", ["a.pdf", "b.doc"]), app: "viewer")
        #expect(PolicyDecisionTests.reason(mixed) == .typeNotAllowed)
        #expect(PolicyDecisionTests.reason(try source.decide(bundle: manifest("hr", ["a.pdf"]), app: "viewer")) == .groupNotAllowed)
        // No files: one request without a type, which a type-restricted item denies.
        #expect(PolicyDecisionTests.reason(try source.decide(bundle: manifest("finance", []), app: "viewer")) == .typeNotAllowed)
        #expect(PolicyDecisionTests.reason(try source.decide(files: ["a.pdf"], group: "finance", app: "other")) == .notApproved)
    }
}
