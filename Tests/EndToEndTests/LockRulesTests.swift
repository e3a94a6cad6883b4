import Foundation
import Testing
import VFSTestSupport

/// Shared state is guarded by locks ThreadSanitizer can see (docs/memory-safety.md): on
/// Linux, `Synchronization.Mutex` locks inside the uninstrumented standard library, so a
/// race on state it guards would be invisible to `make sanitize-thread`. The relay and its
/// client use swift-nio's `NIOLockedValueBox`, VFSCore its `PThreadMutex`.
@Suite("sources: locks ThreadSanitizer can see")
struct LockRulesTests {
    @Test("no source under Sources guards state with Synchronization.Mutex")
    func noStandardMutex() throws {
        let offences = try FoundationLinkTests.offendingLines(Self.mutexLines)
        #expect(offences.isEmpty, "use NIOLockedValueBox (NIOConcurrencyHelpers) or PThreadMutex: \(offences)")
    }

    @Test("the check finds Mutex<…> and Mutex(…), not PThreadMutex or a comment")
    func checkCatches() {
        #expect(Self.mutexLines("let a = 1\nprivate let state = Mutex(State())\n") == [2])
        #expect(Self.mutexLines("var s: Mutex<[Int]>\n") == [1])
        #expect(Self.mutexLines("let s = Synchronization.Mutex(0)\n") == [1])
        #expect(Self.mutexLines("private let lock = PThreadMutex()\n").isEmpty)
        #expect(Self.mutexLines("let s = NIOLockedValueBox(0)\n").isEmpty)
        #expect(Self.mutexLines("/// not `Mutex(…)`: TSan can't see it\n").isEmpty)
    }

    /// The lines (from 1) of `text`, outside `//` comments, that name a `Mutex` type.
    static func mutexLines(_ text: String) -> [Int] {
        let pattern = /(^|[^A-Za-z0-9_])Mutex\s*[<(]/
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
            return code.contains(pattern) ? index + 1 : nil
        }
    }
}
