import Foundation
import Glibc

/// A server process for a test: started with its arguments, waited for (bounded)
/// until it prints a ready line on stdout that announces the address it bound
/// (`… 127.0.0.1:PORT`, the port last on the line), and stopped by `stop()` or,
/// whatever happens in the test, when the fixture goes away: SIGTERM, then SIGKILL if
/// it has not exited within the grace period. Its stdout and stderr are drained all
/// along (a full pipe would stall it) and kept for failure messages.
///
///     let relay = try BackgroundServer("vfs-relay", ["serve", "--listen", "127.0.0.1:0"])
///     // … talk to 127.0.0.1:\(relay.port) …
///     relay.stop()
public final class BackgroundServer: @unchecked Sendable {
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    public let process: Process
    /// The ready line as printed (without its newline).
    public let readyLine: String
    /// `host:port` from the ready line.
    public let address: String
    public let port: Int

    private let captured = Captured()
    private let drained = DispatchGroup()
    private let grace: TimeInterval

    /// Starts `tool` (a vfs-* name found like `Tools.run` finds it, or a path) and waits
    /// up to `timeout` seconds for a stdout line containing `readyMarker`. Throws, with
    /// the process stopped, when it exits or stays silent instead.
    public init(_ tool: String, _ arguments: [String], environment: [String: String] = [:],
                readyMarker: String = "listening on ", timeout: TimeInterval = 20, grace: TimeInterval = 5) throws {
        _ = Tools.ignoreSIGPIPE
        self.grace = grace
        let process = Process()
        let executable = tool.hasPrefix("/") ? URL(fileURLWithPath: tool) : Tools.binDir.appendingPathComponent(tool)
        (process.executableURL, process.arguments) = ServerSpawner.command(executable, arguments)
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe(), err = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        self.process = process

        let ready = DispatchSemaphore(value: 0)
        let found = LineBox()
        let captured = self.captured, drained = self.drained
        try ServerSpawner.run(process)
        drained.enter()
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                captured.append(chunk, error: false)
                if found.line == nil {
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: 0x0A) {
                        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        pending = Data(pending[pending.index(after: newline)...])
                        if found.line == nil, line.contains(readyMarker) { found.line = line; ready.signal() }
                    }
                }
            }
            ready.signal()  // end of output: the process is gone, or closed stdout
            drained.leave()
        }
        drained.enter()
        Thread.detachNewThread {
            while true {
                let chunk = err.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                captured.append(chunk, error: true)
            }
            drained.leave()
        }

        let waited = ready.wait(timeout: .now() + timeout)
        guard waited == .success, let line = found.line, let address = Self.address(in: line),
              let port = address.split(separator: ":").last.flatMap({ Int($0) }) else {
            let why = waited == .timedOut ? "no ready line within \(Int(timeout))s" : found.line.map { "no address in \"\($0)\"" } ?? "it ended first"
            Self.terminate(process, grace: grace)
            drained.wait()
            throw StartError(description: "\(tool) \(arguments.joined(separator: " ")): \(why); stdout: \(captured.text(error: false)); stderr: \(captured.text(error: true))")
        }
        readyLine = line
        self.address = address
        self.port = port
    }

    deinit { stop() }

    /// The last `host:port` word of `line` (a trailing period or comma ignored).
    static func address(in line: String) -> String? {
        for word in line.split(separator: " ").reversed() {
            let trimmed = word.trimmingCharacters(in: CharacterSet(charactersIn: ".,;"))
            guard let colon = trimmed.lastIndex(of: ":"), Int(trimmed[trimmed.index(after: colon)...]) != nil,
                  colon != trimmed.startIndex else { continue }
            return trimmed
        }
        return nil
    }

    /// Stops the server (SIGTERM, then SIGKILL after the grace period) and waits for
    /// it and its output. Safe to call more than once.
    public func stop() {
        Self.terminate(process, grace: grace)
        drained.wait()
    }

    public var isRunning: Bool { process.isRunning }

    /// Everything it wrote so far.
    public var standardOutput: String { captured.text(error: false) }
    public var standardError: String { captured.text(error: true) }

    static func terminate(_ process: Process, grace: TimeInterval) {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(grace)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
    }
}

/// The ready line, set by the reader thread before it signals the waiting one.
private final class LineBox: @unchecked Sendable {
    var line: String?
}

/// What the server wrote, appended by the reader threads.
private final class Captured: @unchecked Sendable {
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()

    func append(_ chunk: Data, error: Bool) {
        lock.lock(); defer { lock.unlock() }
        if error { errors.append(chunk) } else { output.append(chunk) }
    }

    func text(error: Bool) -> String {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: error ? errors : output, as: UTF8.self)
    }
}
