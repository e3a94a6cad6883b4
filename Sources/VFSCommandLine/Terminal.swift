import VFSCore
#if canImport(Glibc)
import Glibc
#endif

/// The controlling terminal, for prompts and for refusing binary output to a screen.
public enum Terminal {
    public static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    public static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
    public static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Reads one line from /dev/tty without echo; nil when there is no terminal.
    public static func readSecret(prompt: String) throws -> SecretBytes? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ICANON)
        _ = Array(prompt.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        tcsetattr(fd, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(fd, TCSAFLUSH, &saved)
            _ = Glibc.write(fd, "\n", 1)
        }
        var line = [UInt8]()
        var byte: UInt8 = 0
        while true {
            let n = Glibc.read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
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
