import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import Prometheus

/// `GET /metrics` in the Prometheus text format (`serve --metrics`): the HTTP server's
/// requests and latencies by route (Hummingbird's MetricsMiddleware over swift-metrics),
/// and the relay's own counters. Answered to loopback clients and `--metrics-from`
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

/// The relay's own measures, made once the metrics system is bootstrapped (a metric
/// made before `MetricsSystem.bootstrap` would stay a no-op).
struct RelayMetrics: Sendable {
    let uploadBytes = Counter(label: "vfs_relay_upload_bytes_total")
    let uploadsFinished = Counter(label: "vfs_relay_uploads_finished_total")
    let downloadBytes = Counter(label: "vfs_relay_download_bytes_total")
    let eventStreams = Meter(label: "vfs_relay_event_streams")
    let internalErrors = Counter(label: "vfs_relay_internal_errors_total")
    let diskFull = Counter(label: "vfs_relay_disk_full_answers_total")
}

/// Sets up swift-metrics to feed a Prometheus registry, once per process; returns it.
public enum RelayMetricsSystem {
    public static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            (name.replacingOccurrences(of: ".", with: "_"), labels.map { ($0.0.replacingOccurrences(of: ".", with: "_"), $0.1) })
        }
        MetricsSystem.bootstrap(factory)
        return registry
    }
}
