import Glibc
import Testing
@testable import VFSCore

/// The thread plumbing in Concurrency/.
@Suite("concurrency pieces")
struct ConcurrencyTests {
    @Test("ProcessorCount.available is at least one and at most the limit")
    func processorCount() {
        #expect(ProcessorCount.available(limit: 1) == 1)
        #expect((1...3).contains(ProcessorCount.available(limit: 3)))
        #expect(ProcessorCount.available() >= ProcessorCount.available(limit: 3))
    }

    @Test("WorkQueue.map: every job once, outputs by job number, on several threads or on this one", arguments: [1, 4])
    func workQueueMap(workers: Int) {
        let taken = PThreadMutex()
        let seen = HandOffCounter()
        let outputs = WorkQueue<Int>.map(count: 100, workers: workers) { job in
            taken.withLock { seen.add(job) }
            return job * job
        }
        #expect(outputs == (0..<100).map { $0 * $0 })
        #expect(seen.sorted == Array(0..<100))
    }

    @Test("WorkQueue.forEach: per-worker set-up, and no jobs at all")
    func workQueueForEach() {
        let setUps = HandOffCounter()
        let lock = PThreadMutex()
        let outputs = WorkQueue<String>.forEach(count: 10, workers: 3) { queue in
            lock.withLock { setUps.add(0) }
            while let job = queue.take() { queue.record(job, "job \(job)") }
        }
        #expect(outputs == (0..<10).map { "job \($0)" })
        #expect(setUps.sorted.count == 3)
        #expect(WorkQueue<Int>.map(count: 0, workers: 4) { $0 }.isEmpty)
    }

    @Test("FirstError keeps the first error set and drops the later ones")
    func firstError() {
        let first = FirstError()
        #expect(first.get() == nil)
        first.set(IOError("one", code: EIO))
        first.set(IOError("two", code: ENOSPC))
        #expect((first.get() as? IOError)?.code == EIO)
    }
}

/// Numbers filed from several threads (callers hold a lock).
private final class HandOffCounter: @unchecked Sendable {
    private var values: [Int] = []
    func add(_ value: Int) { values.append(value) }
    var sorted: [Int] { values.sorted() }
}
