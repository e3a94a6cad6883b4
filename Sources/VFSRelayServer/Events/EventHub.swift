import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// What wakes an open event stream.
enum StreamSignal: Sendable {
    /// New events may be stored for the device.
    case events
    /// Time for a keep-alive comment.
    case keepAlive
    /// The relay is stopping: end the stream.
    case close
}

/// The open event streams, by device. Events are stored first; the hub only wakes
/// the streams, which then read what is new from the store. Streams also wake when
/// another process (an admin command) stored events: `Watcher` polls for them.
public final class EventHub: Sendable {
    private struct State {
        var streams: [String: [UUID: AsyncStream<StreamSignal>.Continuation]] = [:]
        var closed = false
    }
    private let state = Mutex(State())

    public init() {}

    /// A stream of wake-ups for `device`, and its continuation (for keep-alive ticks); nil
    /// when the device already holds `limit` streams.
    func subscribe(device: String, limit: Int = .max) -> (AsyncStream<StreamSignal>, AsyncStream<StreamSignal>.Continuation, UUID)? {
        let (stream, continuation) = AsyncStream<StreamSignal>.makeStream(bufferingPolicy: .bufferingNewest(4))
        let id = UUID()
        let outcome = state.withLock { state -> Bool? in
            if state.closed { return true }
            guard state.streams[device, default: [:]].count < limit else { return nil }
            state.streams[device, default: [:]][id] = continuation
            return false
        }
        guard let closed = outcome else { return nil }
        if closed {
            continuation.yield(.close)
            continuation.finish()
        }
        return (stream, continuation, id)
    }

    func unsubscribe(device: String, id: UUID) {
        let continuation = state.withLock { state -> AsyncStream<StreamSignal>.Continuation? in
            let removed = state.streams[device]?.removeValue(forKey: id)
            if state.streams[device]?.isEmpty == true { state.streams[device] = nil }
            return removed
        }
        continuation?.finish()
    }

    /// Wakes the streams of these devices.
    public func notify(_ devices: some Sequence<String>) {
        let continuations = state.withLock { state in devices.flatMap { state.streams[$0].map { Array($0.values) } ?? [] } }
        for continuation in continuations { continuation.yield(.events) }
    }

    /// Ends every stream; new ones end at once.
    public func closeAll() {
        let continuations = state.withLock { state -> [AsyncStream<StreamSignal>.Continuation] in
            state.closed = true
            let all = state.streams.values.flatMap(\.values)
            state.streams = [:]
            return all
        }
        for continuation in continuations {
            continuation.yield(.close)
            continuation.finish()
        }
    }
}

/// Keeps the hub in step with the database and closes the streams on shutdown, so a
/// graceful stop does not wait for clients that never hang up.
struct EventWatcher: Service {
    let hub: EventHub
    let store: any RelayStore
    let interval: Duration

    func run() async throws {
        var last = (try? await store.lastEventID()) ?? 0
        await withGracefulShutdownHandler {
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                try? await Task.sleep(for: interval)
                guard let newest = try? await store.lastEventID(), newest > last else { continue }
                if let devices = try? await store.devicesWithEvents(after: last) { hub.notify(devices) }
                last = newest
            }
        } onGracefulShutdown: {
            hub.closeAll()
        }
        hub.closeAll()
    }
}

/// Wakes this instance's streams when events are stored for their device, by this
/// instance or (on PostgreSQL) another one: the store's `EventNotifications`. A lost
/// channel is retried every second; what was stored meanwhile the `EventWatcher`'s poll
/// still finds.
struct EventListener: Service {
    let notifications: any EventNotifications
    let hub: EventHub
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await notifications.listenForEvents { device in hub.notify([device]) }
                } catch {
                    if Task.isCancelled || error is CancellationError { break }
                    logger.warning("event listener: \(error); retrying")
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
