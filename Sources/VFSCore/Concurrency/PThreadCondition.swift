#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex with a condition variable: NSCondition's lock, wait and broadcast,
/// which FoundationEssentials does not have.
package final class PThreadCondition: @unchecked Sendable {
    // Sendable: the mutex and condition are only used through pthread calls.
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()

    package init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }

    /// Waits for a broadcast; call it holding the lock (inside withLock), in a loop that
    /// checks what it waits for (a wait may end without one).
    package func wait() { pthread_cond_wait(&condition, &mutex) }

    package func broadcast() { pthread_cond_broadcast(&condition) }
}

/// Runs `body` on a new detached thread (Foundation's `Thread { … }.start()`).
package enum DetachedThread {
    package static func start(stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
        var thread = pthread_t()
        let rc = pthread_create(&thread, &attributes, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, Unmanaged.passRetained(Box(body)).toOpaque())
        precondition(rc == 0, "pthread_create failed")
    }
}
