import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import Prometheus

/// `GET /metrics` in the Prometheus text format (`serve --metrics`): requests and answer
/// times by method, route and status (`RequestLogMiddleware`), and the relay's own
/// counters (`RelayMetrics`). Answered to loopback clients and `--metrics-from`
/// ranges only; 403 to anyone else.
struct MetricsController {
    let registry: PrometheusCollectorRegistry
    let allowed: [CIDR]

    static let path = "/metrics"
    static let loopback = [CIDR("127.0.0.0/8")!, CIDR("::1")!]

    func addRoutes(to router: Router<RelayRequestContext>) {
        router.get(RouterPath(Self.path)) { request, context in
            // Only `/metrics` itself: not `/metrics/`, nor a percent-encoded spelling, which
            // a proxy's rule for `/metrics` does not see as that path.
            guard request.uri.path == Self.path else { throw RelayError.notFound("not found") }
            guard (Self.loopback + allowed).contains(where: { $0.contains(context.remoteAddress) }) else {
                throw RelayError(.forbidden, .forbidden, "metrics are served to loopback and --metrics-from addresses only")
            }
            var buffer = [UInt8]()
            registry.emit(into: &buffer)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
        }
    }
}

/// The relay's measures, all in one Prometheus registry (the served one with `serve
/// --metrics`, a private one otherwise), each with its help text, named for the relay and in
/// base units: counters end in `_total`, durations are seconds (docs/relay.md, "Metrics").
struct RelayMetrics: Sendable {
    let uploadBytes: Counter
    let uploadsFinished: Counter
    let downloadBytes: Counter
    /// GETs of share links that got the file, and those answered 410.
    let shareDownloads: Counter
    let shareDownloadsRefused: Counter
    let eventStreams: Gauge
    let internalErrors: Counter
    let diskFull: Counter
    /// Connections closed before any answer (`ConnectionGate`): one past its address's cap,
    /// and one whose first request did not come in time.
    let connectionsOverAddressCap: Counter
    let connectionsWithoutRequest: Counter
    /// The earlier cloud versions kept and the bytes only they hold, as of the last sweep (issue 50).
    let cloudVersions: Gauge
    let cloudVersionBytes: Gauge
    private let registry: PrometheusCollectorRegistry
    /// The request counter and answer-time histogram of each (method, route, status) seen,
    /// made in the registry once: its `make…` checks the name and labels and takes its own
    /// lock, 2.3% of the relay's CPU under wrk when it ran for every answer (docs/speed.md).
    /// Shared by the copies of this value; one entry per series the registry holds.
    private let answers = NIOLockedValueBox([AnswerKey: (requests: Counter, duration: DurationHistogram)]())

    private struct AnswerKey: Hashable {
        let method: HTTPRequest.Method
        let route: String?
        let status: Int
    }

    /// The buckets of the answer time, in seconds.
    static let durationBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        uploadBytes = registry.makeCounter(descriptor: Self.name("upload_bytes", unit: "total", "Bytes received in tus uploads (PATCH bodies)."))
        uploadsFinished = registry.makeCounter(descriptor: Self.name("uploads_finished", unit: "total", "Uploads that received their last byte."))
        downloadBytes = registry.makeCounter(descriptor: Self.name("download_bytes", unit: "total", "Bytes of transfers, cloud files and share links sent to clients."))
        let shares = Self.name("share_downloads", unit: "total",
                               "GETs of share links: counted and served (served), or refused as revoked, expired or used up (gone).")
        shareDownloads = registry.makeCounter(descriptor: shares, labels: [("outcome", "served")])
        shareDownloadsRefused = registry.makeCounter(descriptor: shares, labels: [("outcome", "gone")])
        eventStreams = registry.makeGauge(descriptor: Self.name("event_streams", unit: "", "Event streams open now."))
        internalErrors = registry.makeCounter(descriptor: Self.name("internal_errors", unit: "total", "Answers 500: failures of the relay itself, each logged."))
        diskFull = registry.makeCounter(descriptor: Self.name("disk_full_answers", unit: "total", "Answers 507: the blob disk at its reserve."))
        let closed = Self.name("connections_closed", unit: "total",
                               "Connections closed before any answer: past the cap of one address (address_cap), or without a request in time (first_request_timeout).")
        connectionsOverAddressCap = registry.makeCounter(descriptor: closed, labels: [("reason", "address_cap")])
        connectionsWithoutRequest = registry.makeCounter(descriptor: closed, labels: [("reason", "first_request_timeout")])
        cloudVersions = registry.makeGauge(descriptor: Self.name("cloud_versions", unit: "",
                                                                 "Earlier versions of cloud files kept, as of the last sweep."))
        cloudVersionBytes = registry.makeGauge(descriptor: Self.name("cloud_version", unit: "bytes",
                                                                     "Bytes of the blobs only earlier cloud versions hold, as of the last sweep."))
    }

    /// `vfs_relay_` + `metric` + `_unit`, with its `# HELP` text.
    static func name(_ metric: String, unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "vfs_relay", metricName: metric, unitName: unit, helpText: help)
    }

    /// One answer, as the request log writes it: its method, the route that took it
    /// (`unmatched` when none did), its status, and the time to its head.
    func answered(method: HTTPRequest.Method, route: String?, status: HTTPResponse.Status, after elapsed: Duration) {
        let key = AnswerKey(method: method, route: route, status: status.code)
        let series = answers.withLockedValue { answers in
            if let made = answers[key] { return made }
            let made = makeSeries(key)
            answers[key] = made
            return made
        }
        series.requests.increment()
        series.duration.record(elapsed)
    }

    private func makeSeries(_ key: AnswerKey) -> (requests: Counter, duration: DurationHistogram) {
        let labels = [("method", key.method.rawValue), ("route", key.route.flatMap { $0 == "NotFound" ? nil : $0 } ?? "unmatched"),
                      ("status", String(key.status))]
        let requests = registry.makeCounter(
            descriptor: Self.name("http_requests", unit: "total", "HTTP requests answered, by method, route and status."), labels: labels)
        let duration = registry.makeDurationHistogram(
            descriptor: Self.name("http_request_duration", unit: "seconds",
                                  "Time from a request's arrival to its answer's head, by method, route and status."),
            labels: labels, buckets: Self.durationBuckets)
        return (requests, duration)
    }
}

extension RelayConfiguration {
    /// `serve --metrics`: `GET /metrics` serves a registry of its own.
    public mutating func serveMetrics() { metrics = PrometheusCollectorRegistry() }
}
