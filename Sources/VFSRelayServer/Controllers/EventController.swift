import Foundation
import HTTPTypes
import Hummingbird
import ServiceLifecycle
import VFSRelayProtocol

/// `GET /v1/events`: the device's events as server-sent events. Every event is stored
/// with a monotonic id; `Last-Event-ID` resumes after it. A comment every
/// keep-alive interval keeps idle connections open. A `logout` event ends the stream.
struct EventController {
    let services: RelayServices

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        group.get(RouterPath(RelayPaths.events), use: stream)
    }

    static func format(_ event: StoredEvent) -> String {
        "id: \(event.id)\nevent: \(event.kind.rawValue)\ndata: \(event.data)\n\n"
    }

    @Sendable func stream(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let device = try context.requireIdentity().deviceID
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
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let (signals, continuation, token) = services.hub.subscribe(device: device)
            defer { services.hub.unsubscribe(device: device, id: token) }
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
                    let events = try await services.store.events(device: device, after: last, limit: 256)
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
