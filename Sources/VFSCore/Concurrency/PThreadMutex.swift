#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex (Foundation-free, usable from a signal-free context only). Named so
/// it does not clash with Swift 6's `Synchronization.Mutex` in code that imports both.
package final class PThreadMutex: @unchecked Sendable {
    // Sendable: all access to the pthread mutex goes through lock/unlock.
    private var mutex = pthread_mutex_t()
    public init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }
}
