import Foundation
import NIOConcurrencyHelpers
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

/// The streams of one device that wake together read the store once, and never share a
/// read that began before their wake-up (which could miss the event that woke them).
@Suite("event hub: shared reads")
struct EventHubTests {
    /// A store read the test holds open until it lets it go, counting how often it ran.
    final class HeldRead: Sendable {
        private let state = NIOLockedValueBox((runs: 0, started: false, release: nil as CheckedContinuation<Void, Never>?, released: false))
        let events: [StoredEvent]

        init(events: [StoredEvent]) { self.events = events }

        var runs: Int { state.withLockedValue { $0.runs } }
        var started: Bool { state.withLockedValue { $0.started } }

        func read() async throws -> [StoredEvent] {
            await withCheckedContinuation { continuation in
                let now = state.withLockedValue { state -> Bool in
                    state.runs += 1
                    state.started = true
                    if state.released { return true }
                    state.release = continuation
                    return false
                }
                if now { continuation.resume() }
            }
            return events
        }

        func letGo() {
            let waiting = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
                state.released = true
                defer { state.release = nil }
                return state.release
            }
            waiting?.resume()
        }
    }

    /// Waits for `condition`, generously: in the full suite the cooperative threads are
    /// often all busy running tools, and the readers' tasks wait their turn.
    static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(900)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    let event = StoredEvent(id: 7, kind: .transfer, data: "{}")

    @Test("streams of one device woken together read once and all get the events")
    func joined() async throws {
        let hub = EventHub()
        let held = HeldRead(events: [event])
        let readers = 50
        try await withThrowingTaskGroup(of: [StoredEvent].self) { group in
            for _ in 0..<readers {
                group.addTask { try await hub.sharedRead(device: "d1", after: 3) { try await held.read() } }
            }
            // Let go whatever happens, so that a failed wait fails the test, not hangs it.
            defer { held.letGo() }
            try await Self.waitUntil { held.started && hub.readsJoined == readers - 1 }
            held.letGo()
            for try await events in group { #expect(events == [event]) }
        }
        #expect(held.runs == 1)
        // Once it has ended, the next read runs again.
        let again = HeldRead(events: [])
        again.letGo()
        #expect(try await hub.sharedRead(device: "d1", after: 3) { try await again.read() } == [])
        #expect(again.runs == 1)
    }

    @Test("a read begun before a wake-up is not joined after it; other devices and positions read their own")
    func notJoinedAcrossWakeUps() async throws {
        let hub = EventHub()
        let first = HeldRead(events: [])
        async let early = hub.sharedRead(device: "d1", after: 3) { try await first.read() }
        defer { first.letGo() }
        try await Self.waitUntil { first.started }
        hub.notify(["d1"])
        let second = HeldRead(events: [event])
        second.letGo()
        #expect(try await hub.sharedRead(device: "d1", after: 3) { try await second.read() } == [event])
        let other = HeldRead(events: [])
        other.letGo()
        _ = try await hub.sharedRead(device: "d2", after: 3) { try await other.read() }
        let later = HeldRead(events: [])
        later.letGo()
        _ = try await hub.sharedRead(device: "d1", after: 7) { try await later.read() }
        first.letGo()
        #expect(try await early == [])
        #expect((first.runs, second.runs, other.runs, later.runs) == (1, 1, 1, 1))
        #expect(hub.readsJoined == 0)
    }
}
