import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

@Suite("HTTP metrics: answers counted per method, route and status")
struct HTTPMetricsTests {
    /// The value of the sample `name{labels}` in Prometheus text, nil when it is absent.
    static func sample(_ text: String, _ name: String, _ method: String, _ route: String, _ status: Int) -> Double? {
        let prefix = #"\#(name){method="\#(method)",route="\#(route)",status="\#(status)"} "#
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) }
    }

    @Test("each (method, route, status) has its own request counter and time histogram, made once and counted on every answer: repeats add up, series never mix")
    func countsPerSeries() async throws {
        let fixture = try RelayFixture { $0.serveMetrics() }
        let code = try await fixture.addUser("alice@acme.example", org: "acme")
        // A real socket: /metrics answers loopback peers only.
        try await fixture.application().test(.live) { raw in
            let client = TestClient(client: raw, fixture: fixture)
            let device = try await client.enroll(code)
            for _ in 0..<3 { #expect(try await client.request(.get, RelayPaths.health).status == .ok) }
            for _ in 0..<2 { #expect(try await client.request(.get, RelayPaths.devices, token: device.token).status == .ok) }
            #expect(try await client.request(.get, RelayPaths.devices).status == .unauthorized)
            #expect(try await client.request(.get, RelayPaths.devices, token: "nonsense").status == .unauthorized)
            for _ in 0..<4 { #expect(try await client.request(.get, "/v1/no-such-route").status == .notFound) }
            #expect(try await client.request(.delete, RelayPaths.health).status == .methodNotAllowed)

            let first = try await client.request(.get, "/metrics")
            #expect(first.status == .ok)
            let text = String(decoding: first.body.readableBytesView, as: UTF8.self)
            let expected: [(String, String, Int, Double)] = [
                ("POST", RelayPaths.enroll, 201, 1),
                ("GET", RelayPaths.health, 200, 3),
                ("GET", RelayPaths.devices, 200, 2),
                ("GET", RelayPaths.devices, 401, 2),
                ("GET", "unmatched", 404, 4),
                ("DELETE", "unmatched", 405, 1),  // no DELETE route matched
            ]
            for (method, route, status, count) in expected {
                #expect(Self.sample(text, "vfs_relay_http_requests_total", method, route, status) == count, "\(method) \(route) \(status)")
                #expect(Self.sample(text, "vfs_relay_http_request_duration_seconds_count", method, route, status) == count,
                        "\(method) \(route) \(status)")
            }
            let series = text.split(separator: "\n").filter { $0.hasPrefix("vfs_relay_http_requests_total{") }
            #expect(series.count == expected.count, "\(series)")

            // The same series again: the kept counter goes on from where it was.
            #expect(try await client.request(.get, RelayPaths.health).status == .ok)
            let second = String(decoding: try await client.request(.get, "/metrics").body.readableBytesView, as: UTF8.self)
            #expect(Self.sample(second, "vfs_relay_http_requests_total", "GET", RelayPaths.health, 200) == 4)
            #expect(Self.sample(second, "vfs_relay_http_requests_total", "GET", "/metrics", 200) == 1)
        }
    }
}
