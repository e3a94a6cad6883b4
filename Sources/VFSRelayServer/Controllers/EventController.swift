import Foundation
import Prometheus
import NIOConcurrencyHelpers
import HTTPTypes
import Hummingbird
import ServiceLifecycle
import VFSRelayProtocol

/// `GET /v1/events`: the device's events as server-sent events. Every event is stored
/// with a monotonic id; `Last-Event-ID` resumes after it. A comment every
/// keep-alive interval keeps idle connections open. A `logout` event ends the stream.
struct EventController {
    let services: RelayServices
    let store: any EventReadRepository

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        group.getAndHead(RouterPath(RelayPaths.events), use: stream)
    }

    static func format(_ event: StoredEvent) -> String {
        "id: \(event.id)\nevent: \(event.kind.rawValue)\ndata: \(event.data)\n\n"
    }

    @Sendable func stream(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let device = identity.deviceID
        var after: Int64 = 0
        if let text = request.headers[.lastEventID]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard let id = Int64(text), id >= 0 else { throw RelayError.badRequest("Last-Event-ID must be an event id") }
            after = id
        }
        let services = self.services
        let resumeAfter = after
        let headers: HTTPFields = [
            .contentType: "text/event-stream", .cacheControl: "no-store", .xAccelBuffering: "no",
        ]
        // The stream counts from now, so one too many is a plain 429; it stops counting when
        // the body ends or, should the body never be written, when the answer is dropped.
        let limits = services.configuration.limits
        let place: UsageSlot
        switch services.usage.take([(UsageCounts.userStreams(identity), limits.userEventStreams),
                                    (UsageCounts.orgStreams(identity), limits.orgEventStreams)]) {
        case .success(let taken): place = taken
        case .failure(let full):
            let whose = full.key == UsageCounts.userStreams(identity) ? "your devices hold" : "your organisation's devices hold"
            throw RelayError(.tooManyRequests, .tooManyRequests, "\(whose) \(full.limit) event streams, the most this relay allows; close one first",
                             headers: [.retryAfter: "30"])
        }
        let limit = services.configuration.maxEventStreamsPerDevice
        guard let subscription = EventSubscription(hub: services.hub, device: device, limit: limit, gauge: services.metrics.eventStreams) else {
            throw RelayError(.tooManyRequests, .tooManyRequests,
                             "this device already holds \(limit) event streams; close one first",
                             headers: [.retryAfter: "30"])
        }
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let (signals, continuation) = (subscription.signals, subscription.continuation)
            defer { subscription.end() }
            defer { place.release() }
            let interval = services.configuration.keepAliveInterval
            let ticker = Task {
                while !Task.isCancelled {
                    try await Task.sleep(for: interval)
                    continuation.yield(.keepAlive)
                }
            }
            defer { ticker.cancel() }
            var last = resumeAfter
            try await writer.write(ByteBuffer(string: "retry: 3000\n\n"))
            /// Writes what is new; false once the device is logged out.
            func flush() async throws -> Bool {
                while true {
                    let events = try await services.hub.sharedRead(device: device, after: last) { [last] in
                        try await store.events(device: device, after: last, limit: 256)
                    }
                    for event in events {
                        try await writer.write(ByteBuffer(string: Self.format(event)))
                        last = event.id
                        if event.kind == .logout { return false }
                    }
                    if events.count < 256 { return true }
                }
            }
            try await withGracefulShutdownHandler {
                guard try await flush() else { return }
                for await signal in signals {
                    switch signal {
                    case .events:
                        guard try await flush() else { return }
                    case .keepAlive:
                        try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                    case .close:
                        return
                    }
                }
            } onGracefulShutdown: {
                continuation.yield(.close)
            }
            try await writer.finish(nil)
        })
    }
}

/// One device's place among the open event streams, given back once: by `end()` or, for an
/// answer dropped before its body ran, when the last reference goes.
final class EventSubscription: Sendable {
    let hub: EventHub
    let device: String
    let signals: AsyncStream<StreamSignal>
    let continuation: AsyncStream<StreamSignal>.Continuation
    let token: UUID
    let gauge: Gauge
    private let ended = NIOLockedValueBox(false)

    init?(hub: EventHub, device: String, limit: Int, gauge: Gauge) {
        guard let (signals, continuation, token) = hub.subscribe(device: device, limit: limit) else { return nil }
        (self.hub, self.device, self.signals, self.continuation, self.token, self.gauge) = (hub, device, signals, continuation, token, gauge)
        gauge.increment()
    }

    func end() {
        guard ended.withLockedValue({ ended in
            defer { ended = true }
            return !ended
        }) else { return }
        hub.unsubscribe(device: device, id: token)
        gauge.decrement()
    }

    deinit { end() }
}
