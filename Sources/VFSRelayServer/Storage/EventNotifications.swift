import Foundation
import NIOConcurrencyHelpers

/// A store's capability to tell listeners which devices have new events, as soon as the
/// events are committed: PostgreSQL reaches every relay instance on the database
/// (LISTEN/NOTIFY), SQLite the one process that serves an embedded relay. A listener
/// that misses a wake-up (it started late, its connection dropped) loses nothing: the
/// events are stored, and the `EventWatcher`'s poll finds them.
public protocol EventNotifications: Sendable {
    /// Calls `wake` with the device of every event stored from now on (by any instance the
    /// store reaches), until the task is cancelled or the channel fails with an error.
    func listenForEvents(_ wake: @escaping @Sendable (String) -> Void) async throws
}

/// Notifications within one process: the stores post the devices after their commit.
final class InProcessEventNotifications: EventNotifications {
    private let listeners = NIOLockedValueBox([UUID: AsyncStream<String>.Continuation]())

    func post(_ devices: some Sequence<String>) {
        let continuations = listeners.withLockedValue { Array($0.values) }
        for device in devices { for continuation in continuations { continuation.yield(device) } }
    }

    func listenForEvents(_ wake: @escaping @Sendable (String) -> Void) async throws {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let key = UUID()
        listeners.withLockedValue { $0[key] = continuation }
        defer { listeners.withLockedValue { _ = $0.removeValue(forKey: key) } }
        try await withTaskCancellationHandler {
            for await device in stream { wake(device) }
            try Task.checkCancellation()
        } onCancel: {
            continuation.finish()
        }
    }
}
