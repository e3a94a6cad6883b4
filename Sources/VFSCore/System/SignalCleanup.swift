#if canImport(Glibc)
import Glibc
import Synchronization
#endif

/// The one owner of the process's cleanup signal handlers. Others register what a
/// signal must undo instead of installing handlers of their own:
///
/// - `TemporaryFiles` (through `AtomicOutputFile`): named temporary files, removed
///   when SIGINT, SIGTERM, SIGHUP or SIGPIPE kills the process; `PrivateScratchFile`:
///   a file and its (then empty) private folder, removed the same way.
/// - `ExtractionInterrupt`: while it defers, SIGINT, SIGTERM and SIGHUP are only
///   recorded; the extraction sees them between entries, removes its staging folder,
///   and the process then dies of the signal (`dieOfPendingSignal()`).
/// - `MappedInput`: a file read through mmap that shrinks under us raises SIGBUS on
///   the missing pages; within a registered mapping the handler removes the
///   temporary files, prints a one-line error and exits 74.
///
/// Handlers go in once, on first use. A terminating signal the process was started
/// with ignored (nohup, a parent that ignores SIGPIPE) stays ignored: it cannot
/// interrupt us, so nothing needs cleaning up. The handlers only use async-signal-safe
/// calls (unlink, write, signal, raise, _exit) on fixed tables filled beforehand.
package enum SignalCleanup {
    static let terminating: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGPIPE]
    /// The signals `ExtractionInterrupt` defers (SIGPIPE still kills at once).
    static let deferrable: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private static let slots = 64
    /// Paths as C strings, walked by the handlers without allocating.
    nonisolated(unsafe) private static let paths: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let p = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slots)
        p.initialize(repeating: nil, count: slots)
        return p
    }()
    /// Mapped ranges (start, end, message) a SIGBUS may come from.
    nonisolated(unsafe) private static let mappings: UnsafeMutablePointer<(UInt, UInt, UnsafeMutablePointer<CChar>?)> = {
        let p = UnsafeMutablePointer<(UInt, UInt, UnsafeMutablePointer<CChar>?)>.allocate(capacity: slots)
        p.initialize(repeating: (0, 0, nil), count: slots)
        return p
    }()
    /// [0]: how many deferrers are active; [1]: the signal recorded meanwhile (0: none).
    nonisolated(unsafe) private static let state: UnsafeMutablePointer<Int32> = {
        let p = UnsafeMutablePointer<Int32>.allocate(capacity: 2)
        p.initialize(repeating: 0, count: 2)
        return p
    }()
    private static let lock = PThreadMutex()
    /// Set by the first SIGBUS in one of our mappings (lock-free, so signal-safe).
    private static let busReported = Atomic<Bool>(false)
    nonisolated(unsafe) private static var installed = false
    nonisolated(unsafe) private static var busInstalled = false

    // MARK: temporary files

    /// `path` (a file, or a folder that will be empty then) is removed if a terminating
    /// signal (or a SIGBUS in a mapping) ends the process.
    package static func removeOnSignal(_ path: String) {
        lock.withLock {
            installOnce()
            if let slot = (0..<slots).first(where: { paths[$0] == nil }) { paths[slot] = strdup(RawName.cString(path)) }
        }
    }

    /// `path` is no longer removed on a signal (it was committed or removed).
    package static func forget(_ path: String) {
        lock.withLock {
            let bytes = RawName.cString(path)
            for i in 0..<slots where paths[i] != nil && strcmp(paths[i]!, bytes) == 0 {
                let p = paths[i]
                paths[i] = nil
                free(p)
            }
        }
    }

    // MARK: deferring

    /// From now until `endDeferring()`, SIGINT, SIGTERM and SIGHUP are recorded, not fatal.
    package static func beginDeferring() {
        lock.withLock {
            installOnce()
            if state[0] == 0 { state[1] = 0 }
            state[0] += 1
        }
    }

    /// Ends one `beginDeferring()`; if a signal was recorded meanwhile and no one else
    /// defers, the process dies of it now (temporary files removed first).
    package static func endDeferring() {
        let pending: Int32 = lock.withLock {
            state[0] = max(0, state[0] - 1)
            return state[0] == 0 ? state[1] : 0
        }
        if pending != 0 { die(of: pending) }
    }

    /// The signal recorded while deferring, 0 if none.
    package static var pendingSignal: Int32 { state[1] }

    // MARK: mapped input

    /// A SIGBUS on an address in `start..<start+count` (a mapped file that shrank)
    /// removes the temporary files, prints `message` (one line) on stderr, and exits 74.
    static func exitOnBusError(start: UnsafeRawPointer, count: Int, message: String) {
        lock.withLock {
            installBusOnce()
            let begin = UInt(bitPattern: start)
            if let slot = (0..<slots).first(where: { mappings[$0].2 == nil }) {
                mappings[slot] = (begin, begin + UInt(count), strdup(message + "\n"))
            }
        }
    }

    /// The mapping at `start` is gone (unmapped): a SIGBUS there is no longer ours.
    static func forgetMapping(start: UnsafeRawPointer) {
        let begin = UInt(bitPattern: start)
        lock.withLock {
            for i in 0..<slots where mappings[i].2 != nil && mappings[i].0 == begin {
                let message = mappings[i].2
                mappings[i] = (0, 0, nil)
                free(message)
            }
        }
    }

    // MARK: handlers

    private static func installOnce() {
        guard !installed else { return }
        installed = true
        for sig in terminating {
            var current = sigaction()
            sigaction(sig, nil, &current)
            if unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                if SignalCleanup.state[0] > 0 && signal != SIGPIPE {
                    SignalCleanup.state[1] = signal
                    return
                }
                SignalCleanup.die(of: signal)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(sig, &action, nil)
        }
    }

    private static func installBusOnce() {
        guard !busInstalled else { return }
        busInstalled = true
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { signal, info, _ in
            let address = UInt(bitPattern: info?.pointee._sifields._sigfault.si_addr)
            for i in 0..<SignalCleanup.slots {
                let (begin, end, message) = SignalCleanup.mappings[i]
                guard let message, address >= begin, address < end else { continue }
                // Several workers can fault on the same shrunken window at once: the
                // first one reports and exits; the others wait for that exit.
                guard SignalCleanup.busReported.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged else {
                    while true { pause() }
                }
                SignalCleanup.removeAll()
                _ = write(STDERR_FILENO, message, strlen(message))
                _exit(74)
            }
            // Not a mapping of ours: the default action, when the access is retried.
            Glibc.signal(signal, SIG_DFL)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_SIGINFO
        sigaction(SIGBUS, &action, nil)
    }

    /// Removes the registered files, then dies of `signal` with its default action. The
    /// signal is unblocked in this thread first: a worker thread (libdispatch's block
    /// signals) would otherwise leave it pending and go on.
    private static func die(of signal: Int32) {
        removeAll()
        Glibc.signal(signal, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(signal)
    }

    /// Files first, then folders (registered after what they hold, and empty by then):
    /// unlink fails harmlessly on a folder, rmdir on a file.
    private static func removeAll() {
        for i in 0..<slots { if let path = paths[i] { unlink(path) } }
        for i in 0..<slots { if let path = paths[i] { rmdir(path) } }
    }
}
