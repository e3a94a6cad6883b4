#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C, kill or hang-up (SIGINT, SIGTERM, SIGHUP) during an extraction: the handler only records the signal;
/// the extraction notices it between entries and chunks, removes its staging folder
/// (partial plaintext must not stay on disk), and the process then dies of the signal.
final class ExtractionInterrupt {
    static let signals = [SIGINT, SIGTERM, SIGHUP]
    /// Written by the signal handler (a plain store), read by the extracting thread.
    nonisolated(unsafe) private static let caught: UnsafeMutablePointer<Int32> = {
        let p = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        p.initialize(to: 0)
        return p
    }()
    private var previous: [sigaction] = []

    init() {
        Self.caught.pointee = 0
        for sig in Self.signals {
            var action = sigaction(), old = sigaction()
            action.__sigaction_handler.sa_handler = { ExtractionInterrupt.caught.pointee = $0 }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(sig, &action, &old)
            // A signal the caller ignores (nohup, a background job) stays ignored.
            if unsafeBitCast(old.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { sigaction(sig, &old, nil) }
            previous.append(old)
        }
    }

    /// Throws once a signal arrived.
    func check() throws { try Self.checkPending() }

    /// Throws if a signal arrived during an extraction (for waits that can't see the instance).
    static func checkPending() throws {
        let sig = caught.pointee
        if sig != 0 { throw IOError("interrupted by signal \(sig)", code: EINTR) }
    }

    /// Puts the previous handlers back and, if a signal arrived, dies of it now that
    /// the caller has cleaned up.
    func finish() {
        for (sig, var old) in zip(Self.signals, previous) { sigaction(sig, &old, nil) }
        let sig = Self.caught.pointee
        if sig != 0 {
            signal(sig, SIG_DFL)
            raise(sig)
        }
    }
}
