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
        #expect(Self.value(text, #"vfs_relay_http_requests_total{method="GET",route="/v1/health",status="200"}"#) == 1,
                "\(text.split(separator: "\n").filter { $0.contains("http_requests") })")
        #expect(text.contains("vfs_relay_http_request_duration_seconds_bucket{"), "latency histograms")
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

    static let checker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools/check-metrics.py")

    /// The access log's lines (`METHOD PATH STATUS TIMEms PEER`) as (method, status).
    static func accessLines(_ log: String) -> [(method: String, status: String)] {
        log.split(separator: "\n").compactMap { line in
            guard let match = line.firstMatch(of: #/ ([A-Z]+) (/\S*) ([0-9]{3}) [0-9.]+ms \S+$/#) else { return nil }
            return (String(match.1), String(match.3))
        }
    }

    @Test("/metrics counts each answer with the status the client got (2xx, 400, 401, 404, 405, 412, a real 507): by method and status it equals the access log, no 500 appears, every histogram's count equals its counter, and the text passes promtool's rules (prometheus_client's parser)")
    func countsMatchTheLog() throws {
        // Every upload meets the disk reserve: 507, the one 5xx a client can provoke.
        let setup = try RelayTests.Setup(arguments: ["--metrics", "--disk-reserve", "99%"])
        let token = setup.laptop.token
        let expected: [(String, String, [String: String], String?, Int)] = [
            ("GET", "/v1/health", [:], nil, 200),
            ("GET", "/v1/devices", ["Authorization": "Bearer \(token)"], nil, 200),
            ("GET", "/v1/devices", [:], nil, 401),
            ("GET", "/v1/devices", ["Authorization": "Bearer nonsense"], nil, 401),
            ("GET", "/v1/transfers/0123456789abcdef/content", ["Authorization": "Bearer \(token)"], nil, 404),
            ("GET", "/v1/no-such-route", [:], nil, 404),
            ("DELETE", "/v1/health", [:], nil, 405),
            ("POST", "/v1/groups", ["Authorization": "Bearer \(token)", "Content-Type": "application/json"], "{", 400),
            ("POST", "/v1/uploads", ["Authorization": "Bearer \(token)", "Upload-Length": "10"], nil, 412),
            ("POST", "/v1/uploads", ["Authorization": "Bearer \(token)", "Upload-Length": "10", "Tus-Resumable": "1.0.0"], nil, 507),
        ]
        for (method, path, headers, body, status) in expected {
            let answer = try setup.client.request(method, path, body: body.map { Array($0.utf8) }, headers: headers)
            #expect(answer.status == status, "\(method) \(path): \(answer.status) \(answer.text)")
        }
        let scrape = try setup.client.request("GET", "/metrics")
        #expect(scrape.status == 200)
        // The scrape's own line comes after every earlier one (one stream, requests in turn).
        let deadline = Date().addingTimeInterval(60)
        while !setup.relay.stderrText.contains("GET /metrics 200"), Date() < deadline { usleep(50_000) }
        var logged = Self.accessLines(setup.relay.stderrText)
        #expect(logged.last.map { $0.method == "GET" && $0.status == "200" } == true)
        logged.removeLast()  // the scrape: answered after its text was made

        let check = try Tools.run("python3", [Self.checker.path], stdin: Data(scrape.body))
        #expect(check.status == 0, "\(check.out) \(check.stderr)")
        struct Report: Decodable {
            struct Sample: Decodable { let name: String; let labels: [String: String]; let value: Double }
            let problems: [String]
            let samples: [Sample]
        }
        let report = try JSONDecoder().decode(Report.self, from: check.stdout)
        #expect(report.problems.isEmpty, "\(report.problems)")
        let requests = report.samples.filter { $0.name == "vfs_relay_http_requests_total" }
        var counted: [String: Int] = [:]
        for sample in requests { counted["\(sample.labels["method"] ?? "?") \(sample.labels["status"] ?? "?")", default: 0] += Int(sample.value) }
        var inLog: [String: Int] = [:]
        for line in logged { inLog["\(line.method) \(line.status)", default: 0] += 1 }
        #expect(counted == inLog, "metrics \(counted.sorted { $0.key < $1.key }), log \(inLog.sorted { $0.key < $1.key })")
        for (_, _, _, _, status) in expected { #expect(counted.keys.contains { $0.hasSuffix(" \(status)") }, "\(status) counted") }
        #expect(!counted.keys.contains { $0.hasSuffix(" 500") }, "no 500")
        // Routes, not paths: the unknown path is `unmatched`, a transfer's id is not a label.
        #expect(requests.contains { $0.labels["route"] == "unmatched" && $0.labels["status"] == "404" })
        #expect(!requests.contains { $0.labels["route"]?.contains("0123456789abcdef") == true })
        for sample in requests {
            let count = report.samples.first { $0.name == "vfs_relay_http_request_duration_seconds_count" && $0.labels == sample.labels }
            #expect(count?.value == sample.value, "\(sample.labels)")
        }
        #expect(Self.value(scrape.text, "vfs_relay_disk_full_answers_total") == 1)
        #expect(Self.value(scrape.text, "vfs_relay_internal_errors_total") == 0)
        #expect(setup.relay.stop() == 0)
    }

    @Test("the sweep sets the gauges of the earlier cloud versions kept and the bytes only they hold (issue 50)")
    func cloudVersionGauges() throws {
        let fleet = try Fleet(relayArguments: ["--metrics", "--sweep-interval", "1"])
        for n in 0..<3 {
            let file = try fleet.scratch.write("v\(n).bin", testBytes(1000 + n * 100, seed: UInt64(n + 1)))
            let put = try fleet.laptop.run("vfs-cloud", ["put", "-f", file, "/notes.bin"])
            #expect(put.status == 0, "\(put.stderr)")
        }
        let log = jsonArray(try fleet.laptop.run("vfs-cloud", ["log", "/notes.bin", "--json"]))
        let earlier = log.filter { $0["until"] is String }.compactMap { $0["size"] as? Int }
        #expect(earlier.count == 2)
        var text = ""
        for _ in 0..<100 {
            text = try RelayClient(port: fleet.relay.port).request("GET", "/metrics").text
            if Self.value(text, "vfs_relay_cloud_versions ") == 2 { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(Self.value(text, "vfs_relay_cloud_versions ") == 2, "\(text.split(separator: "\n").filter { $0.contains("cloud") })")
        #expect(Self.value(text, "vfs_relay_cloud_version_bytes ") == Double(earlier.reduce(0, +)))
        #expect(text.contains("# TYPE vfs_relay_cloud_versions gauge") && text.contains("# TYPE vfs_relay_cloud_version_bytes gauge"))
    }
}
