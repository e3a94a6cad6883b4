#if canImport(Glibc)
import Glibc
#endif

/// A FIFO handed between threads; `cancel()` wakes every waiter and makes `take()`
/// return nil from then on.
package final class BlockingQueue<Element>: @unchecked Sendable {
    // Sendable: every access to `items` and `cancelled` holds `mutex`.
    private var items: [Element] = []
    private var cancelled = false
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

    package func put(_ item: Element) {
        pthread_mutex_lock(&mutex)
        items.append(item)
        pthread_cond_signal(&condition)
        pthread_mutex_unlock(&mutex)
    }

    package func take() -> Element? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while items.isEmpty && !cancelled { pthread_cond_wait(&condition, &mutex) }
        if cancelled { return nil }
        return items.removeFirst()
    }

    package func cancel() {
        pthread_mutex_lock(&mutex)
        cancelled = true
        pthread_cond_broadcast(&condition)
        pthread_mutex_unlock(&mutex)
    }
}

/// Lets a non-Sendable value cross to one other thread.
package struct HandOff<Value>: @unchecked Sendable {
    // Sendable: the pipeline uses each handed-off value from one thread at a time.
    package let value: Value

    package init(value: Value) { self.value = value }
}

/// Runs `body` on a new thread; `join()` waits for it.
package final class JoinableThread: @unchecked Sendable {
    // Sendable: `thread` is written once at start and read by join only.
    private var thread = pthread_t()
    private let body: () -> Void

    package init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
        let unmanaged = Unmanaged.passRetained(self)
        let rc = pthread_create(&thread, nil, { raw in
            let me = Unmanaged<JoinableThread>.fromOpaque(raw!).takeRetainedValue()
            me.body()
            return nil
        }, unmanaged.toOpaque())
        precondition(rc == 0, "pthread_create failed")
    }

    package func join() { pthread_join(thread, nil) }
}
