import Foundation

/// Runs the built tools as a user would and captures what they do.
public struct Run: Sendable {
    public let status: Int32
    public let stdout: Data
    public let stderr: String
    public var out: String { String(decoding: stdout, as: UTF8.self) }
}

public enum Tools {
    /// Where the built binaries are: VFS_BIN_DIR (make test sets it to make build's
    /// release build, the binaries users install), else beside the test runner.
    public static let binDir: URL = {
        if let dir = ProcessInfo.processInfo.environment["VFS_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        return testBuildDir
    }()

    /// The test runner's own build folder (make test's release build, whose tools carry
    /// Swift's libraries; with CONFIG=debug, a debug build whose tools load the toolchain's):
    /// for the few checks that look at how a build links.
    public static let testBuildDir: URL = {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        // The runner may sit inside a .xctest bundle folder.
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("vfs-encrypt").path) && dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir
    }()

    /// Whether the tool in `dir` loads the toolchain's Swift libraries (a plain `swift
    /// build`), rather than carrying them (make build's, linked by Package.swift's staticSwift).
    public static func loadsSwiftLibraries(_ dir: URL, tool: String = "vfs-encrypt") throws -> Bool {
        try run("readelf", ["-d", dir.appendingPathComponent(tool).path]).out.contains("libswiftCore.so")
    }

    /// Whether the tools' resident memory means what the tests' memory bounds assume: not
    /// under make sanitize (scripts/sanitize.sh sets VFS_SANITIZER), whose shadow memory,
    /// redzones and quarantine multiply it. Those tests still run there and check the rest.
    public static let memoryBoundsHold = sanitizer == nil

    /// The sanitizer the tools were built with under make sanitize ("address", "thread"),
    /// from VFS_SANITIZER; nil for make test's release build.
    public static let sanitizer = ProcessInfo.processInfo.environment["VFS_SANITIZER"]

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

/// True once process `pid` holds open a file it is writing in `folder` that has no
/// name yet (O_TMPFILE, shown as "folder/#inode (deleted)") or a temporary name
/// starting with `prefix`; waits up to 30 s.
public func waitForPendingOutput(pid: Int32, in folder: String, prefix: String) -> Bool {
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
