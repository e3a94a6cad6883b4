import Foundation
import Testing

/// Runs the built tools as a user would and captures what they do.
struct Run {
    let status: Int32
    let stdout: Data
    let stderr: String
    var out: String { String(decoding: stdout, as: UTF8.self) }
}

enum Tools {
    /// Where the built binaries are: VFS_BIN_DIR, else beside the test runner.
    static let binDir: URL = {
        if let dir = ProcessInfo.processInfo.environment["VFS_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        // The runner may sit inside a .xctest bundle folder.
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("vfs-encrypt").path) && dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir
    }()

    /// A child that exits without reading its stdin must not kill the test runner.
    static let ignoreSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN) }()

    static let sharedFolder: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared")

    /// Runs `tool` (a vfs-* name, or an absolute path / PATH command) with `arguments`.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], stdin: Data? = nil, cwd: URL? = nil,
                    environment: [String: String] = [:], removing: [String] = []) throws -> Run {
        _ = ignoreSIGPIPE
        let process = Process()
        if tool.hasPrefix("vfs-") {
            process.executableURL = binDir.appendingPathComponent(tool)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [tool] + arguments
        }
        var env = ProcessInfo.processInfo.environment
        for name in ["VFS_PASSPHRASE", "VFS_PASSCODE", "VFS_HOME", "VFS_KEYCHAIN", "VFS_POLICY", "VFS_RELAY"] + removing {
            env.removeValue(forKey: name)
        }
        env.merge(environment) { _, new in new }
        process.environment = env
        if let cwd { process.currentDirectoryURL = cwd }
        let inPipe = Pipe(), outPipe = Pipe(), errPipe = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : inPipe
        process.standardOutput = outPipe
        process.standardError = errPipe
        try process.run()
        if let stdin {
            DispatchQueue.global().async {
                try? inPipe.fileHandleForWriting.write(contentsOf: stdin)
                try? inPipe.fileHandleForWriting.close()
            }
        }
        let errBox = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errBox.data = errPipe.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = outPipe.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errBox.data, as: UTF8.self))
    }
}

/// True once process `pid` holds open a file it is writing in `folder` that has no
/// name yet (O_TMPFILE, shown as "folder/#inode (deleted)") or a temporary name
/// starting with `prefix`; waits up to 30 s.
func waitForPendingOutput(pid: Int32, in folder: String, prefix: String) -> Bool {
    for _ in 0..<3000 {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        for fd in fds {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)") else { continue }
            if target.hasPrefix(folder + "/#") || target.hasPrefix(folder + "/" + prefix) { return true }
        }
        usleep(10_000)
    }
    return false
}

/// Sendable: written by one reader thread, read after the DispatchGroup wait.
final class DataBox: @unchecked Sendable { var data = Data() }

/// A temporary folder removed when the test ends.
final class Scratch {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("vfs-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    @discardableResult
    func write(_ name: String, _ data: Data) throws -> String {
        let p = path(name)
        try data.write(to: URL(fileURLWithPath: p))
        return p
    }

    func read(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path(name))) }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    /// Names in the folder, hidden ones included, sorted.
    func listing() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() }
}

/// Deterministic pseudo-random bytes for test inputs.
func testBytes(_ count: Int, seed: UInt64 = 1) -> Data {
    var state = seed &* 0x9E3779B97F4A7C15 | 1
    var out = [UInt8](repeating: 0, count: count)
    for i in 0..<count {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        out[i] = UInt8(truncatingIfNeeded: state)
    }
    return Data(out)
}
