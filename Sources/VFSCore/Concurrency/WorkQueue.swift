/// Hands numbered jobs out to worker threads and collects one output per job: the one
/// worker pool behind the parallel shred overwrite and the bundle hasher.
package final class WorkQueue<Output>: @unchecked Sendable {
    // Sendable: `next` and `outputs` are only touched under `lock`.
    private let lock = PThreadMutex()
    private var next = 0
    private var outputs: [Output?]

    private init(count: Int) { outputs = Array(repeating: nil, count: count) }

    /// Runs `worker` on `workers` threads (on the calling one when `workers` is 1 or
    /// less), and returns when all have ended: the outputs by job number. A worker takes
    /// job numbers below `count` from `queue.take()` until it is nil, and files one output
    /// for each with `queue.record(_:_:)`; per-thread set-up (a buffer) goes before its loop.
    package static func forEach(count: Int, workers: Int,
                        _ worker: @escaping @Sendable (_ queue: WorkQueue<Output>) -> Void) -> [Output] {
        let queue = WorkQueue(count: count)
        if workers <= 1 {
            worker(queue)
        } else {
            let threads = (0..<workers).map { _ in JoinableThread { worker(queue) } }
            for thread in threads { thread.join() }
        }
        return queue.lock.withLock {
            queue.outputs.map { output in
                guard let output else { preconditionFailure("a job was taken and not recorded") }
                return output
            }
        }
    }

    /// `body` for every job number below `count`, on `workers` threads.
    package static func map(count: Int, workers: Int, _ body: @escaping @Sendable (Int) -> Output) -> [Output] {
        forEach(count: count, workers: workers) { queue in
            while let job = queue.take() { queue.record(job, body(job)) }
        }
    }

    /// The next job number, or nil when every job has been taken.
    package func take() -> Int? {
        lock.withLock {
            guard next < outputs.count else { return nil }
            defer { next += 1 }
            return next
        }
    }

    package func record(_ job: Int, _ output: Output) { lock.withLock { outputs[job] = output } }
}
