import Foundation
import Glibc
import Testing
import VFSTestSupport
@testable import VFSCore

/// VFSPaths, groups and the bundle decision: built from injected environments and
/// folders, never from the process's.
@Suite("paths, groups, policy sources")
struct EnvironmentTests {
    @Test("home: VFS_HOME, else XDG_DATA_HOME/vfs, else ~/.local/share/vfs; empty values count as unset")
    func home() {
        #expect(VFSPaths(environment: ["VFS_HOME": "/v", "XDG_DATA_HOME": "/x", "HOME": "/h"]).home == "/v")
        #expect(VFSPaths(environment: ["VFS_HOME": "", "XDG_DATA_HOME": "/x", "HOME": "/h"]).home == "/x/vfs")
        #expect(VFSPaths(environment: ["XDG_DATA_HOME": "", "HOME": "/h"]).home == "/h/.local/share/vfs")
    }

    @Test("files below home unless their own variable names them")
    func files() {
        let paths = VFSPaths(environment: ["VFS_HOME": "/v"])
        #expect(paths.keychain == "/v/keychain")
        #expect(paths.policyFile == "/v/policy.json")
        #expect(paths.groupsFolder == "/v/groups")
        #expect(paths.relayConfig == "/v/relay.json")
        #expect(paths.policyCache == "/v/policy-cache")
        #expect(paths.relayURL == nil)
        #expect(paths.temporaryFolder == "/tmp")
        let named = VFSPaths(environment: ["VFS_HOME": "/v", "VFS_KEYCHAIN": "/k", "VFS_POLICY": "/p.json",
                                           "VFS_RELAY": "http://127.0.0.1:8080", "TMPDIR": "/t"])
        #expect(named.keychain == "/k" && named.policyFile == "/p.json" && named.temporaryFolder == "/t")
        #expect(named.relayURL == "http://127.0.0.1:8080")
    }

    @Test("the agent folder: an absolute XDG_RUNTIME_DIR, else /run/user/UID when private and ours, else /tmp/vfs-UID")
    func agentFolder() {
        #expect(VFSPaths(environment: ["XDG_RUNTIME_DIR": "/run/x"]).agentFolder == "/run/x/vfs")
        // A relative XDG_RUNTIME_DIR is ignored; a uid with no /run/user folder falls back to /tmp.
        let nobody: uid_t = 4_000_000_001
        #expect(VFSPaths(environment: ["XDG_RUNTIME_DIR": "run"], userID: nobody).agentFolder == "/tmp/vfs-\(nobody)")
    }

    @Test("groups: a file per group in the groups folder; bad names, missing, empty and bad files are told apart")
    func groups() throws {
        let folder = try TestFolder("groups")
        let groups = GroupRecipients(folder: folder.path)
        let recipient = try X25519Identity.generate().recipient
        try folder.write("finance", "# finance\n\(recipient.string)\n")
        try folder.write("empty", "# nobody yet\n")
        try folder.write("bad", "age1nope\n")
        #expect(try groups.load("finance") == [recipient])
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
