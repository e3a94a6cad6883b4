#if canImport(Glibc)
import Glibc
#endif

/// Keeps a crash from writing secrets anywhere: every tool calls `apply()` first
/// (VFSCommand does), and the unlock agent again after it detaches.
///
/// - `prctl(PR_SET_DUMPABLE, 0)`: no core dump, and other processes of the user
///   cannot ptrace this one or read its memory through /proc.
/// - `RLIMIT_CORE` 0: no core file even where a core pattern would pipe one out.
/// - The fatal signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP) back to
///   their default action. The Swift runtime (6.x on Linux) installs handlers for them
///   at start-up that run its backtracer, which prints registers and the memory
///   around them to stderr: that is how a failed precondition once printed decrypted
///   keychain bytes. SWIFT_BACKTRACE=enable=no would stop it, but the runtime reads
///   that variable before any of our code runs; and PR_SET_DUMPABLE 0 alone does not
///   stop it (for root, or anyone with CAP_SYS_PTRACE, the backtracer still reads
///   memory; for others it still prints the registers). With the default actions a
///   crash prints the runtime's one-line "Fatal error: …" message (text from the
///   source, never data) and the process dies of the signal.
///
/// A tool that installs its own handler for one of these signals later (to remove a
/// temporary file on SIGBUS, say) keeps it: this runs first.
public enum ProcessHardening {
    static let fatalSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP]

    public static func apply() {
        makeUndumpable()
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none)
        for signal in fatalSignals { _ = Glibc.signal(signal, SIG_DFL) }
    }

    /// prctl(PR_SET_DUMPABLE, 0). Glibc does not export prctl to Swift.
    static func makeUndumpable() {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return }
        _ = unsafeBitCast(symbol, to: Prctl.self)(4 /* PR_SET_DUMPABLE */, 0, 0, 0, 0)
    }
}
