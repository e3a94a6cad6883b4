import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy of Tests/tools (a Python script that prints its port), killed on release.
open class ToolProxy {
    let process = Process()
    public let port: Int

    public init(tool: String, arguments: [String]) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("tools/\(tool)").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "\(tool) did not start"])
        }
        self.port = port
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// A TCP proxy on 127.0.0.1 to a local port (Tests/tools/slow-proxy.py): throttled to
/// `bytesPerSecond` each way (0: not throttled), and dropping (resetting) its first
/// `drops` connections unanswered.
public final class TestProxy: ToolProxy {
    let countFile: String

    public init(to target: Int, bytesPerSecond: Int = 0, drops: Int = 0) throws {
        let countFile = FileManager.default.temporaryDirectory.appendingPathComponent("test-proxy-\(UUID().uuidString)").path
        self.countFile = countFile
        try super.init(tool: "slow-proxy.py", arguments: [String(target), String(bytesPerSecond), String(drops), countFile])
    }

    /// Connections accepted so far.
    public var accepted: Int {
        (try? String(contentsOfFile: countFile, encoding: .utf8)).flatMap { Int($0) } ?? 0
    }

    deinit { unlink(countFile) }
}

/// A free port on 127.0.0.1 (bound, read, released).
public func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
        }
    }
    guard bound else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot bind a loopback port"]) }
    return Int(UInt16(bigEndian: address.sin_port))
}
