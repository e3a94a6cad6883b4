import Foundation
import Testing
import VFSTestSupport

/// The README's quick start, run line for line as a new user would paste it.
@Suite("README quick start")
struct QuickStartTests {
    /// The shell block of the quick start that a user runs (the second ```sh block after
    /// "## Quick start"; the first installs).
    static func quickStart() throws -> [String] {
        let readme = try String(contentsOf: PackagingTests.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n## Quick start\n").dropFirst().first)
            .components(separatedBy: "\n## ").first ?? ""
        let blocks = section.components(separatedBy: "```sh\n").dropFirst().map { $0.components(separatedBy: "\n```").first ?? "" }
        try #require(blocks.count == 2, "the quick start has an install block and a block to run")
        return blocks[1].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test("the README's quick start runs line for line in an empty folder (its relay on a free port), and stops what it starts")
    func quickStartRuns() throws {
        let lines = try Self.quickStart()
        #expect(lines.count < 40, "one screen")
        let scratch = try TestFolder("quick-start")
        let work = scratch.path("work"), run = scratch.path("run")
        for folder in [work, run] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false) }
        chmod(run, 0o700)
        // The README's relay listens on 127.0.0.1:8787; here it takes a free port (its first
        // stdout line says which), and the lines after it use that address.
        let serve = "vfs-relay serve --listen 127.0.0.1:8787 --data relay-data &"
        try #require(lines.contains(serve), "the quick start starts its relay with: \(serve)")
        var script = ["set -euo pipefail",
                      "trap 'vfs-keychain lock >/dev/null 2>&1 || true; kill $(jobs -p) 2>/dev/null || true' EXIT"]
        for line in lines {
            if line == serve {
                script += ["vfs-relay serve --listen 127.0.0.1:0 --data relay-data > relay.out &",
                           "echo $! > relay.pid",
                           "for _ in $(seq 1 1200); do grep -q '^vfs-relay: listening on ' relay.out && break; sleep 0.05; done",
                           "url=$(sed -n 's/^vfs-relay: listening on //p' relay.out)"]
            } else {
                script.append(line.replacingOccurrences(of: "http://127.0.0.1:8787", with: "$url"))
            }
        }
        let path = Tools.binDir.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let result = try Tools.run("bash", ["-c", script.joined(separator: "\n")], cwd: URL(fileURLWithPath: work), environment: [
            "PATH": path, "VFS_HOME": scratch.path("home"), "XDG_RUNTIME_DIR": run,
            // What the user types at the prompts.
            "VFS_PASSCODE": "quick start passcode",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.out.contains("notes/monday.txt\n"), "\(result.out)")
        #expect(result.out.hasSuffix("meeting at 9\n"), "\(result.out)")
        // The device's relay.json names the relay as a person writes a URL (no "\/").
        let config = try String(contentsOfFile: scratch.path("home/relay.json"), encoding: .utf8)
        #expect(config.contains("\"http://127.0.0.1:") && !config.contains("\\/"), "\(config)")
        // The relay it started is gone (kill %1), and the keychain is locked.
        let pid = try #require(Int32(String(decoding: try Data(contentsOf: URL(fileURLWithPath: work + "/relay.pid")), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        var gone = false
        for _ in 0..<600 where !gone { gone = kill(pid, 0) != 0; if !gone { usleep(50_000) } }
        if !gone { kill(pid, SIGKILL) }
        #expect(gone, "the quick start's relay still runs")
        let status = try Tools.run("vfs-keychain", ["status"], environment: ["VFS_HOME": scratch.path("home"), "XDG_RUNTIME_DIR": run])
        #expect(status.status == 1 && status.out.hasPrefix("locked"), "\(status.out)\(status.stderr)")
    }
}
