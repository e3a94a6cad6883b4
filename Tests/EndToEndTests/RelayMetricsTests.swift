import Foundation
import Testing
import VFSTestSupport

/// `serve --metrics`: Prometheus text at GET /metrics (issue 25, "Also").
@Suite("vfs-relay metrics", .serialized)
struct RelayMetricsTests {
    /// The value of the sample line `name{labels} value` (or `name value`) that starts with `prefix`.
    static func value(_ text: String, _ prefix: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
            if let last = line.split(separator: " ").last, let value = Double(last) { return value }
        }
        return nil
    }

    @Test("requests by route and status, upload and download bytes, open event streams: counted and served as Prometheus text to loopback; 403 to other clients; 404 without --metrics")
    func prometheus() throws {
        let setup = try RelayTests.Setup(arguments: ["--metrics", "--trusted-proxy", "127.0.0.1", "--proxy-header", "x-forwarded-for"])
        let content = Array(repeating: UInt8(7), count: 1500)
        let transfer = try setup.client.send(upload: try setup.client.upload(content, token: setup.laptop.token, pieces: 3),
                                             to: [setup.phone.id], token: setup.laptop.token)
        #expect(try setup.client.request("GET", "/v1/transfers/\(transfer)/content", token: setup.phone.token).body == content)
        let stream = try EventStream(port: setup.relay.port, token: setup.phone.token)
        #expect(stream.status == 200)
        #expect(try setup.client.request("GET", "/v1/health").status == 200)

        let answer = try setup.client.request("GET", "/metrics")
        #expect(answer.status == 200)
        #expect(answer.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let text = answer.text
        #expect(Self.value(text, "vfs_relay_upload_bytes_total") == 1500, "\(text.prefix(3000))")
        #expect(Self.value(text, "vfs_relay_uploads_finished_total") == 1)
        #expect(Self.value(text, "vfs_relay_download_bytes_total") == 1500)
        #expect(Self.value(text, "vfs_relay_event_streams") == 1)
        #expect(Self.value(text, "vfs_relay_internal_errors_total") ?? 0 == 0)
        #expect(Self.value(text, #"hb_requests{http_route="/v1/health",http_request_method="GET",http_response_status_code="200"}"#) == 1,
                "\(text.split(separator: "\n").filter { $0.contains("hb_requests") })")
        #expect(text.contains("http_server_request_duration_bucket{"), "latency histograms")
        #expect(text.contains("# TYPE vfs_relay_upload_bytes_total counter"))

        // A client that is not loopback (here: forwarded by the trusted proxy) is refused.
        let outside = try setup.client.request("GET", "/metrics", headers: ["X-Forwarded-For": "198.51.100.7"])
        #expect(outside.status == 403)
        #expect(setup.relay.stop() == 0)

        let plain = try RelayProcess(data: setup.admin.data)
        #expect(try RelayClient(port: plain.port).request("GET", "/metrics").status == 404)
        #expect(plain.stop() == 0)
        #expect(try setup.admin.run(["serve", "--metrics-from", "10.0.0.0/8"]).status == 64, "--metrics-from needs --metrics")
    }
}
