import Foundation
import Testing
import VFSTestSupport

/// What a run killed with SIGKILL (no chance to clean up) leaves behind, and how the
/// next run deals with it.
@Suite("runs killed with SIGKILL")
struct KilledRunTests {
    func keypair(_ scratch: TestFolder) throws -> (path: String, recipient: String) { try AgeToolsTests().keypair(scratch) }

    /// Starts `tool arguments` reading a pipe and feeds it all of `input` but its last MiB.
    func startStalled(_ tool: String, _ arguments: [String], input: Data) throws -> (Process, Pipe) {
        _ = Tools.ignoreSIGPIPE
        let process = Process()
        process.executableURL = Tools.binDir.appendingPathComponent(tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardInput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        try pipe.fileHandleForWriting.write(contentsOf: input.prefix(input.count - (1 << 20)))
        return (process, pipe)
    }

    func killNow(_ process: Process, _ pipe: Pipe) {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? pipe.fileHandleForWriting.close()
    }

    @Test("vfs-decrypt -o: the pending plaintext is private (0600) while written, and SIGKILL leaves no file at all", .enabled(if: getuid() == 0, "the tools are not dumpable: only root reads their /proc/PID/fd"))
    func decryptKilled() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let plain = try scratch.write("plain.bin", testBytes(6 << 20, seed: 21))
        #expect(try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", scratch.path("s.age"), plain]).status == 0)
        let out = scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let (process, pipe) = try startStalled("vfs-decrypt", ["-i", key.path, "-o", out + "/plain.bin"], input: try scratch.read("s.age"))
        #expect(waitForPendingOutput(pid: process.processIdentifier, in: out, prefix: ".plain.bin.tmp-"))
        // Whatever the pending file is, nobody else may read it.
        let fds = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd")
        var modes: [mode_t] = []
        for fd in fds {
            let link = "/proc/\(process.processIdentifier)/fd/\(fd)"
            guard (try? FileManager.default.destinationOfSymbolicLink(atPath: link))?.hasPrefix(out + "/") == true else { continue }
            var info = stat()
            if stat(link, &info) == 0 { modes.append(info.st_mode & 0o777) }
        }
        #expect(!modes.isEmpty && modes.allSatisfy { $0 & 0o077 == 0 }, "modes \(modes.map { String($0, radix: 8) })")
        killNow(process, pipe)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == [], "plaintext left behind")
    }

    @Test("a later -o run removes the temporary files killed runs left for that output: its user's, unlocked ones only (run as an unprivileged user)")
    func staleTemporariesSwept() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let plain = try scratch.write("plain.txt", Data("hello\n".utf8))
        #expect(try Tools.run("vfs-encrypt", ["-r", key.recipient, "-o", scratch.path("s.age"), plain]).status == 0)
        let out = scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let asRoot = getuid() == 0
        let me: uid_t = asRoot ? 65534 : getuid()
        // As a killed run leaves them: this user's (stale), another user's (only root can
        // make one), and one that a live writer (this test) holds locked.
        let theirs = asRoot ? [".plain.txt.tmp-theirs"] : []
        for name in [".plain.txt.tmp-stale1", ".plain.txt.tmp-live", ".other.txt.tmp-stale2"] + theirs {
            try Data("old plaintext\n".utf8).write(to: URL(fileURLWithPath: out + "/" + name))
            #expect(chown(out + "/" + name, name.hasSuffix("theirs") ? (asRoot ? 0 : 65534) : me, 0) == 0 || !asRoot)
        }
        let live = open(out + "/.plain.txt.tmp-live", O_RDONLY)
        defer { close(live) }
        #expect(flock(live, LOCK_EX) == 0)
        var arguments = ["-i", key.path, "-o", out + "/plain.txt", scratch.path("s.age")]
        var tool = "vfs-decrypt"
        if asRoot {
            #expect(chown(out, me, me) == 0 && chown(key.path, me, me) == 0)
            arguments = OtherUser.setpriv + [try OtherUser.tool("vfs-decrypt")] + arguments
            tool = "setpriv"
        }
        let run = try Tools.run(tool, arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(left == ([".other.txt.tmp-stale2", ".plain.txt.tmp-live", "plain.txt"] + theirs).sorted())
    }

    @Test("vfs-unwrap: SIGKILL leaves a private (0700) staging folder; the next extraction into DIR removes it, a running one's stays")
    func unwrapStagingSwept() throws {
        let scratch = try TestFolder()
        let key = try keypair(scratch)
        let tree = scratch.path("t")
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        try Data("first\n".utf8).write(to: URL(fileURLWithPath: tree + "/a.txt"))
        try testBytes(8 << 20, seed: 4).write(to: URL(fileURLWithPath: tree + "/b.bin"))
        #expect(try Tools.run("vfs-wrap", ["-r", key.recipient, "-o", scratch.path("t.vfs"), tree]).status == 0)
        let bundle = try scratch.read("t.vfs")
        let out = scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        func staging() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix(".vfs-unwrap-") } }
        /// Waits until a staging folder other than `known` appears; returns them all.
        func waitForNewStaging(besides known: [String]) throws -> [String] {
            for _ in 0..<3000 {
                let now = try staging()
                if now.contains(where: { !known.contains($0) }) { return now }
                usleep(10_000)
            }
            return try staging()
        }
        let (killed, killedPipe) = try startStalled("vfs-unwrap", ["-q", "-i", key.path, "-C", out], input: bundle)
        _ = try waitForNewStaging(besides: [])
        killNow(killed, killedPipe)
        let left = try staging()
        #expect(left.count == 1)
        var info = stat()
        #expect(stat(out + "/" + left[0], &info) == 0 && info.st_mode & 0o777 == 0o700)

        // The next extraction into DIR removes it; it runs (stalled) while a third one
        // goes through, which leaves the running one's folder alone.
        let (alive, alivePipe) = try startStalled("vfs-unwrap", ["-q", "-i", key.path, "-C", out, "-f"], input: bundle)
        let aliveStaging = try waitForNewStaging(besides: left)
        #expect(aliveStaging.count == 1 && aliveStaging != left, "\(aliveStaging)")
        let run = try Tools.run("vfs-unwrap", ["-q", "-i", key.path, "-C", out, "-f", scratch.path("t.vfs")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try staging() == aliveStaging, "the killed run's folder is gone, the running one's stays")
        killNow(alive, alivePipe)
    }
}
