import AsyncHTTPClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import VFSRelayProtocol

/// Holds `GET /v1/events` open: every event goes to `onEvent`; a dropped connection or
/// a relay that is down is reconnected with backoff and jitter, sending
/// `Last-Event-ID` so nothing stored meanwhile is skipped. `onConnect` runs after every
/// successful (re)connection, before its events (a watcher catches up there).
package struct EventStreamClient: Sendable {
    let client: RelayClient
    var backoff: Backoff

    package init(client: RelayClient, backoff: Backoff = Backoff(base: 0.5, cap: 30)) {
        self.client = client
        self.backoff = backoff
    }

    /// What `onEvent` decides.
    package enum Next: Sendable { case keepGoing, stop }

    /// Runs until `onEvent` says stop, the relay refuses the device (401/403/404: thrown),
    /// or the task is cancelled. `onDisconnect` hears each dropped connection and the
    /// seconds until the next try.
    package func run(lastEventID: String?,
                    onConnect: () async throws -> Void,
                    onEvent: (ServerSentEvent) async throws -> Next,
                    onDisconnect: (RelayClientError, Double) -> Void = { _, _ in }) async throws {
        var parser = ServerSentEventParser(lastEventID: lastEventID ?? "")
        var failures = 0
        while true {
            try Task.checkCancellation()
            do {
                var headers = [("Accept", "text/event-stream"), ("Cache-Control", "no-store")]
                if !parser.lastEventID.isEmpty { headers.append(("Last-Event-ID", parser.lastEventID)) }
                let response = try await client.execute(client.request(.GET, RelayPaths.events, headers: headers),
                                                        timeout: .hours(24 * 365))
                if response.status.code >= 400 { _ = try await client.collect(response) }
                failures = 0
                try await onConnect()
                do {
                    for try await chunk in response.body {
                        for event in try parser.feed(chunk.readableBytesView) {
                            if try await onEvent(event) == .stop { return }
                        }
                    }
                } catch let error as ServerSentEventParser.TooLong {
                    throw RelayClientError.badAnswer(url: client.baseURL + RelayPaths.events,
                                                     reason: "an event line or event longer than \(error.limit) bytes")
                } catch let error as RelayClientError {
                    throw error
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    throw RelayClientError.unreachable(url: client.baseURL, reason: RelayClient.describe(error))
                }
                throw RelayClientError.unreachable(url: client.baseURL, reason: "the event stream ended")
            } catch let error as RelayClientError {
                switch error {
                case .unreachable: break
                case .rejected(let status, _, _) where status == 429 || status >= 500: break
                default: throw error
                }
                failures += 1
                let wait = max(backoff.delay(attempt: failures), Double(parser.retry ?? 0) / 1000 / 4)
                onDisconnect(error, wait)
                try await Task.sleep(for: .seconds(wait))
            }
        }
    }
}
