#if canImport(Glibc)
import Glibc
#endif

/// The desktop clipboard, through the tool the session has, as pass -c uses it:
/// wl-copy under Wayland (WAYLAND_DISPLAY), else xclip or xsel under X11 (DISPLAY).
/// The secret goes to the tool on a pipe, never in its arguments; a detached child
/// clears the clipboard after a while (restoring nothing that was there before).
public struct Clipboard: Sendable {
    /// The tool's path, and the arguments that copy stdin and that clear.
    public let tool: String
    let copyArguments: [String]
    let clearArguments: [String]
    /// pass's PASSWORD_STORE_CLIP_TIME default.
    public static let defaultClearSeconds = 45

    public var name: String { String(tool.split(separator: "/").last ?? "") }

    /// Why nothing was copied.
    public enum Failure: Error, CustomStringConvertible, Equatable {
        /// No display, or none of the tools for it on PATH.
        case noTool(display: String?)
        /// The tool exited with a status other than 0.
        case toolFailed(tool: String, status: Int32)
        public var description: String {
            switch self {
            case .noTool(nil): return "no clipboard: neither WAYLAND_DISPLAY nor DISPLAY is set"
            case .noTool(let display?): return "no clipboard tool for \(display) on PATH (\(display == "WAYLAND_DISPLAY" ? "wl-copy" : "xclip or xsel"))"
            case let .toolFailed(tool, status): return "the clipboard tool \"\(tool)\" exited with status \(status)"
            }
        }
    }

    /// The clipboard tool of the session `environment` describes.
    public static func find(environment: [String: String]) throws -> Clipboard {
        let path = environment["PATH"]
        func set(_ name: String) -> Bool { !(environment[name] ?? "").isEmpty }
        if set("WAYLAND_DISPLAY") {
            if let tool = ChildProcess.find("wl-copy", path: path) { return Clipboard(tool: tool, copyArguments: [], clearArguments: ["--clear"]) }
            if !set("DISPLAY") { throw Failure.noTool(display: "WAYLAND_DISPLAY") }
        }
        guard set("DISPLAY") else { throw Failure.noTool(display: nil) }
        if let tool = ChildProcess.find("xclip", path: path) {
            return Clipboard(tool: tool, copyArguments: ["-selection", "clipboard"], clearArguments: ["-selection", "clipboard"])
        }
        if let tool = ChildProcess.find("xsel", path: path) {
            return Clipboard(tool: tool, copyArguments: ["--clipboard", "--input"], clearArguments: ["--clipboard", "--clear"])
        }
        throw Failure.noTool(display: "DISPLAY")
    }

    /// Puts `secret` on the clipboard. The tool's output goes to /dev/null (xclip stays
    /// in the background holding the selection, and must not hold our stdout open).
    public func copy(_ secret: SecretBytes) throws {
        var pipeEnds: [Int32] = [-1, -1]
        guard KeychainAgent.makePipe(&pipeEnds) else { throw IOError("cannot create a pipe") }
        let pid: pid_t
        do {
            var streams = ChildProcess.Streams()
            streams.input = pipeEnds[0]
            streams.quiet = true
            pid = try ChildProcess.spawn(tool, [name] + copyArguments, streams: streams)
        } catch {
            close(pipeEnds[0]); close(pipeEnds[1])
            throw error
        }
        close(pipeEnds[0])
        // A tool that exits without reading must not kill us with SIGPIPE.
        let previous = signal(SIGPIPE, SIG_IGN)
        var failed = false
        secret.withUnsafeBytes { bytes in
            do throws(SyscallError) { try writeAll(fd: pipeEnds[1], bytes) } catch { failed = true }
        }
        close(pipeEnds[1])
        signal(SIGPIPE, previous)
        let status = ChildProcess.wait(pid)
        guard status == 0, !failed else { throw Failure.toolFailed(tool: name, status: status) }
    }

    /// Starts a detached child (its own session, no terminal, stdio on /dev/null)
    /// that clears the clipboard `seconds` from now; it is not waited for.
    public func clear(after seconds: Int) throws {
        var streams = ChildProcess.Streams()
        streams.quiet = true
        streams.detached = true
        _ = try ChildProcess.spawn("/bin/sh", ["sh", "-c", "sleep \"$0\"; exec \"$@\"", String(seconds), tool] + clearArguments,
                                   streams: streams)
    }
}
