import VFSCore
#if canImport(Glibc)
import Glibc
#endif

/// The controlling terminal, for prompts and for refusing binary output to a screen.
public enum Terminal {
    public static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    public static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
    public static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Reads one line from /dev/tty without echo; nil when there is no terminal. The
    /// prompt's control characters are shown as escapes: prompts quote names and
    /// questions from files not yet authenticated (recover's questions).
    public static func readSecret(prompt: String) throws -> SecretBytes? {
        try readLine(prompt: prompt, echo: false)
    }

    /// Reads one line from /dev/tty, echoed or not; nil when there is no terminal.
    public static func readLine(prompt: String, echo: Bool) throws -> SecretBytes? {
        let prompt = DisplayText.printable(prompt)
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var quiet = saved
        if !echo { quiet.c_lflag &= ~tcflag_t(ECHO) }
        quiet.c_lflag |= tcflag_t(ICANON)
        // The mode first (TCSAFLUSH drops what was typed before the prompt), then the
        // prompt: an answer typed or pasted as soon as it shows is never dropped.
        tcsetattr(fd, TCSAFLUSH, &quiet)
        _ = Array(prompt.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        defer {
            tcsetattr(fd, TCSAFLUSH, &saved)
            if !echo { _ = Glibc.write(fd, "\n", 1) }
        }
        var line = [UInt8]()
        var byte: UInt8 = 0
        while true {
            let n = retryingEINTR { Glibc.read(fd, &byte, 1) }
            if n <= 0 || byte == 0x0A { break }
            line.append(byte)
        }
        if line.last == 0x0D { line.removeLast() }
        defer { line.wipe() }
        return SecretBytes(copying: line)
    }

    /// Whether a terminal can be opened for a prompt.
    public static var canPrompt: Bool {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }
}
