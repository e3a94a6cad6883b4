import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy of Tests/tools (a Python script that prints its port), killed on release.
open class ToolProxy: @unchecked Sendable {
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
/// `bytesPerSecond` each way (0: not throttled), dropping (resetting) its first `drops`
/// connections unanswered, and cutting the first `cuts` connections whose answers pass
/// `cutAfter` bytes after that many (reset midway through an answer's body), counting
/// from the start or, made with `armed: false`, from when `arm()` is called.
public final class TestProxy: ToolProxy {
    let countFile: String

    public init(to target: Int, bytesPerSecond: Int = 0, drops: Int = 0, cuts: Int = 0, cutAfter: Int = 0, armed: Bool = true) throws {
        let countFile = FileManager.default.temporaryDirectory.appendingPathComponent("test-proxy-\(UUID().uuidString)").path
        self.countFile = countFile
        if armed { FileManager.default.createFile(atPath: countFile + ".armed", contents: nil) }
        try super.init(tool: "slow-proxy.py", arguments: [String(target), String(bytesPerSecond), String(drops), countFile,
                                                          String(cuts), String(cutAfter)])
    }

    /// Connections accepted so far.
    public var accepted: Int { Self.count(countFile) }
    /// Answers cut so far.
    public var cut: Int { Self.count(countFile + ".cuts") }

    /// Answers are cut from now on.
    public func arm() { FileManager.default.createFile(atPath: countFile + ".armed", contents: nil) }

    static func count(_ file: String) -> Int { (try? String(contentsOfFile: file, encoding: .utf8)).flatMap { Int($0) } ?? 0 }

    deinit {
        unlink(countFile)
        unlink(countFile + ".cuts")
        unlink(countFile + ".armed")
    }
}

/// A TCP listener on 127.0.0.1 that never accepts a connection. `full`: its backlog is
/// filled first, so the kernel drops a new connection's SYN and a connect to it waits
/// unanswered (as to a host that is down); else the kernel makes the connection and
/// nothing ever answers what is sent on it.
public final class SilentListener: Sendable {
    public let port: Int
    let sockets: [Int32]

    public init(full: Bool) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var sockets = [listener]
        // A backlog of 0 holds one connection (Linux).
        let port = bindLoopback(listener) { address, length in
            listen(listener, full ? 0 : 16) == 0 && (!full || Self.fill(address, length, into: &sockets))
        }
        guard let port else {
            for fd in sockets { close(fd) }
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot listen on a loopback port"])
        }
        self.sockets = sockets
        self.port = port
    }

    /// One connection made (it waits in the backlog, which is then full).
    static func fill(_ address: UnsafePointer<sockaddr>, _ length: socklen_t, into sockets: inout [Int32]) -> Bool {
        let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        sockets.append(filler)
        return connect(filler, address, length) == 0
    }

    deinit { for fd in sockets { close(fd) } }
}

/// A port on 127.0.0.1 that refuses every connection for as long as this lives: bound,
/// never listening, and held, so that no other test's server can take it meanwhile (a
/// port from `freeLoopbackPort` can be, when the suites run at once).
public final class RefusingPort: Sendable {
    public let port: Int
    let fd: Int32

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard let port = bindLoopback(fd) else {
            close(fd)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot bind a loopback port"])
        }
        self.fd = fd
        self.port = port
    }

    deinit { close(fd) }
}

/// A free port on 127.0.0.1 (bound, read, released).
public func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    guard let port = bindLoopback(fd) else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot bind a loopback port"]) }
    return port
}

/// Binds the TCP socket `fd` to a free port on 127.0.0.1, then runs `then` with the
/// bound address (to listen, say); the port, or nil if any step failed.
public func bindLoopback(_ fd: Int32, then: (UnsafePointer<sockaddr>, socklen_t) -> Bool = { _, _ in true }) -> Int? {
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0 && then(pointer, length)
        }
    }
    return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
}

/// `body`, or a failure once `seconds` pass (a hung request must not hang the test).
public func within<T: Sendable>(seconds: Int, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "still waiting after \(seconds) s"])
        }
        return result
    }
}

/// An S3 endpoint the test turns up, hung or down (Tests/tools/fake-s3.py): in front of a
/// real store (`upstream`, a port), or, without one, answering only the bucket listing
/// `vfs-relay serve` asks before it serves.
public final class FakeS3: ToolProxy {
    public enum State: String, Sendable { case up, hang, down }
    let controlFile: String

    public init(upstream: Int? = nil, _ state: State = .up) throws {
        let controlFile = FileManager.default.temporaryDirectory.appendingPathComponent("fake-s3-\(UUID().uuidString)").path
        self.controlFile = controlFile
        FileManager.default.createFile(atPath: controlFile, contents: Data(state.rawValue.utf8))
        try super.init(tool: "fake-s3.py", arguments: [controlFile] + (upstream.map { [String($0)] } ?? []))
    }

    /// From the next connection, and the next bytes a client sends on one, on.
    public func set(_ state: State) {
        FileManager.default.createFile(atPath: controlFile, contents: Data(state.rawValue.utf8))
    }

    deinit { unlink(controlFile) }
}
