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
}
