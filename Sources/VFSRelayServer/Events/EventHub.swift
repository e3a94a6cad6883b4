import Foundation
import Logging
import ServiceLifecycle
import NIOConcurrencyHelpers

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
///
/// Streams of one device that wake together read the store once (`sharedRead`): a
/// device with a thousand open streams costs one read per event, not a thousand.
public final class EventHub: Sendable {
    private struct State {
        var streams: [String: [UUID: AsyncStream<StreamSignal>.Continuation]] = [:]
        var closed = false
        /// Counts the wake-ups: a read begun at generation g sees every event whose
        /// wake-up came before it.
        var generation: UInt64 = 0
        var reads: [ReadKey: Task<[StoredEvent], any Error>] = [:]
        /// Reads joined rather than begun, since the start.
        var joined = 0
    }
    private struct ReadKey: Hashable {
        let device: String
        let after: Int64
        let generation: UInt64
    }
    private let state = NIOLockedValueBox(State())

    public init() {}

    /// A stream of wake-ups for `device`, and its continuation (for keep-alive ticks); nil
    /// when the device already holds `limit` streams.
    func subscribe(device: String, limit: Int = .max) -> (AsyncStream<StreamSignal>, AsyncStream<StreamSignal>.Continuation, UUID)? {
        let (stream, continuation) = AsyncStream<StreamSignal>.makeStream(bufferingPolicy: .bufferingNewest(4))
        let id = UUID()
        let outcome = state.withLockedValue { state -> Bool? in
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
        let continuation = state.withLockedValue { state -> AsyncStream<StreamSignal>.Continuation? in
            let removed = state.streams[device]?.removeValue(forKey: id)
            if state.streams[device]?.isEmpty == true { state.streams[device] = nil }
            return removed
        }
        continuation?.finish()
    }

    /// Wakes the streams of these devices. Two callers only: `EventListener`, with the
    /// devices the store names after each commit (the one place wake-ups are sent from,
    /// reaching every instance on PostgreSQL), and `EventWatcher`'s poll for what another
    /// process stored. The controllers never call it.
    func notify(_ devices: some Sequence<String>) {
        let continuations = state.withLockedValue { state in
            state.generation &+= 1
            return devices.flatMap { state.streams[$0].map { Array($0.values) } ?? [] }
        }
        for continuation in continuations { continuation.yield(.events) }
    }

    /// The events of `device` after `after`, read by `read`, or by a read of the same
    /// events that another stream began since the latest wake-up: that read began after
    /// every event it must see was stored, so joining it loses nothing. A read that began
    /// before the latest wake-up is never joined.
    func sharedRead(device: String, after: Int64,
                    _ read: @escaping @Sendable () async throws -> [StoredEvent]) async throws -> [StoredEvent] {
        let (task, key, began) = state.withLockedValue { state -> (Task<[StoredEvent], any Error>, ReadKey, Bool) in
            let key = ReadKey(device: device, after: after, generation: state.generation)
            if let running = state.reads[key] {
                state.joined += 1
                return (running, key, false)
            }
            let task = Task { try await read() }
            state.reads[key] = task
            return (task, key, true)
        }
        // The stream that began the read retires it once it ends.
        defer { if began { _ = state.withLockedValue { $0.reads.removeValue(forKey: key) } } }
        return try await task.value
    }

    /// How many reads were joined rather than begun, since the start.
    var readsJoined: Int { state.withLockedValue { $0.joined } }

    /// Ends every stream; new ones end at once.
    func closeAll() {
        let continuations = state.withLockedValue { state -> [AsyncStream<StreamSignal>.Continuation] in
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
    let store: any EventPositionRepository & EventWatchRepository
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
