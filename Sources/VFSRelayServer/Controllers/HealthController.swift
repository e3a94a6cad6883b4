import Hummingbird
import VFSRelayProtocol

/// `GET /v1/health`: up, and which protocol version.
struct HealthController {
    func addRoutes(to router: Router<RelayRequestContext>) {
        router.get(RouterPath(RelayPaths.health)) { _, _ in
            try jsonResponse(HealthStatus(status: "ok", version: "1"))
        }
    }
}
