import VFSCore
#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C, kill or hang-up (SIGINT, SIGTERM, SIGHUP) during an extraction: the signal is
/// only recorded (`SignalCleanup` defers it while an instance is active); the extraction
/// notices it between entries and chunks, removes its staging folder (partial plaintext
/// must not stay on disk), and the process then dies of the signal in `finish()`.
final class ExtractionInterrupt {
    private var finished = false

    init() { SignalCleanup.beginDeferring() }

    deinit { if !finished { finish() } }

    /// Throws once a signal arrived.
    func check() throws { try Self.checkPending() }

    /// Throws if a signal arrived during an extraction (for waits that can't see the instance).
    static func checkPending() throws {
        let sig = SignalCleanup.pendingSignal
        if sig != 0 { throw IOError("interrupted by signal \(sig)", code: EINTR) }
    }

    /// Ends the deferral and, if a signal arrived, dies of it now that the caller has
    /// cleaned up.
    func finish() {
        guard !finished else { return }
        finished = true
        SignalCleanup.endDeferring()
    }
}
