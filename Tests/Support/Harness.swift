import Foundation

/// Runs the built tools as a user would and captures what they do.
public struct Run: Sendable {
    public let status: Int32
    public let stdout: Data
    public let stderr: String
    public var out: String { String(decoding: stdout, as: UTF8.self) }
}

public enum Tools {
    /// Where the built binaries are: VFS_BIN_DIR, else beside the test runner.
    public static let binDir: URL = {
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
    public static let ignoreSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Runs `tool` (a vfs-* name, or an absolute path / PATH command) with `arguments`.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String], stdin: Data? = nil, cwd: URL? = nil,
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

/// Sendable: written by one reader thread, read after the DispatchGroup wait.
final class DataBox: @unchecked Sendable { var data = Data() }
