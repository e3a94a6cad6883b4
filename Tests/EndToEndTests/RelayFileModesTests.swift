import Foundation
import Testing
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What `vfs-relay` writes to disk is the operator's alone, whatever the umask (issue 25 item 8).
@Suite("vfs-relay file modes")
struct RelayFileModesTests {
    /// Runs vfs-relay under umask 022, as a login shell usually has it.
    func relay(_ arguments: [String]) throws -> Run {
        try Tools.run("/bin/sh", ["-c", "umask 022 && exec \"$0\" \"$@\"", Tools.binDir.appendingPathComponent("vfs-relay").path] + arguments)
    }

    func mode(_ path: String) -> String {
        var info = stat()
        return lstat(path, &info) == 0 ? String(info.st_mode & 0o7777, radix: 8) : "missing"
    }

    @Test("a database created in an existing 0755 folder is 0600; a new data folder is 0700")
    func databaseModes() throws {
        let scratch = try TestFolder()
        let existing = scratch.path("existing")
        try FileManager.default.createDirectory(atPath: existing, withIntermediateDirectories: false)
        #expect(chmod(existing, 0o755) == 0)
        let made = try relay(["init", "--data", existing])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(mode(existing + "/relay.sqlite") == "600")
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: existing + "/relay.sqlite" + suffix) {
            #expect(mode(existing + "/relay.sqlite" + suffix) == "600", "\(suffix)")
        }

        let fresh = scratch.path("new/data")
        #expect(try relay(["init", "--data", fresh]).status == 0)
        #expect(mode(fresh) == "700")
        #expect(mode(fresh + "/relay.sqlite") == "600")
    }

    @Test("backup -o writes a 0600 file; a link planted at its temporary name is refused and its target untouched")
    func backupModes() throws {
        let scratch = try TestFolder()
        let data = scratch.path("data")
        #expect(try relay(["init", "--data", data]).status == 0)
        #expect(try relay(["org", "add", "acme", "--data", data]).status == 0)

        let output = scratch.path("backup.sqlite")
        let victim = scratch.path("victim")
        try Data("victim\n".utf8).write(to: URL(fileURLWithPath: victim))
        #expect(symlink(victim, output + ".partial") == 0)
        let planted = try relay(["backup", "-o", output, "--data", data])
        #expect(planted.status == 73)
        #expect(planted.stderr.hasPrefix("vfs-relay: error: cannot create \"\(output).partial\""), "\(planted.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "victim\n")
        #expect(mode(output) == "missing")
        #expect(mode(output + ".partial") != "missing", "someone else's link is left alone")

        #expect(unlink(output + ".partial") == 0)
        let backup = try relay(["backup", "-o", output, "--data", data])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(mode(output) == "600")
        #expect(mode(output + ".partial") == "missing")
        #expect(try relay(["backup", "-o", output, "--data", data]).status == 73)
        #expect(mode(output) == "600")
    }
}
