import Foundation
import Testing
import VFSCore
@testable import VFSRelayClient
#if canImport(Glibc)
import Glibc
#endif

/// `onThread` (a download's reader, the sealing) drops its hold on the work, and so on
/// what the work captured, on its thread before the caller resumes: the last release is
/// then the caller's, and the thread frees nothing after the caller went on and perhaps
/// exited (docs/memory-safety.md, "At exit": a download's SHA-256 context was seen freed
/// so, during the exit, by a thread preempted after it handed its result over).
@Suite("onThread")
struct OnThreadTests {
    /// Notes the thread its deinit ran on.
    final class Captured: @unchecked Sendable {
        let freedOn: (pthread_t) -> Void
        init(freedOn: @escaping (pthread_t) -> Void) { self.freedOn = freedOn }
        deinit { freedOn(pthread_self()) }
        func thread() -> pthread_t { pthread_self() }
    }

    /// Runs work that holds a `Captured` made here; returns the work's thread and the
    /// thread that freed the capture.
    static func run(failing: Bool) async throws -> (work: pthread_t, freed: pthread_t?) {
        let freed = PThreadMutex()
        nonisolated(unsafe) var freedOn: pthread_t?
        var workThread: pthread_t?
        do {
            let captured = Captured { thread in freed.withLock { freedOn = thread } }
            workThread = try await onThread { [captured] in
                if failing { throw POSIXError(.EIO) }
                return captured.thread()
            }
        } catch {
            #expect(failing, "\(error)")
        }
        return (workThread ?? 0, freed.withLock { freedOn })
    }

    @Test("the work's captures are never freed on the work's thread (200 runs, returning and throwing): the thread let go of them before the caller resumed")
    func capturesNotFreedByTheThread() async throws {
        for round in 0..<200 {
            let ran = try await Self.run(failing: false)
            let freed = try #require(ran.freed, "round \(round): the capture was not freed by the time onThread returned")
            #expect(pthread_equal(freed, ran.work) == 0, "round \(round): the work's thread freed its capture after the caller resumed")
            let failed = try await Self.run(failing: true)
            #expect(failed.freed != nil, "round \(round): the failed work's capture was not freed")
        }
    }
}
