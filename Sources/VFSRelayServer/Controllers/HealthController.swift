import Hummingbird
import VFSRelayProtocol

/// `GET /v1/health`: up, which protocol version, and whether the database answers, so a
/// load balancer drops an instance that lost its database (503). The database gets
/// `databaseTimeout` (2 s by default): a pool waiting to reconnect must not hold the check up.
struct HealthController {
    let store: any EventPositionRepository
    let databaseTimeout: Duration

    func addRoutes(to router: Router<RelayRequestContext>) {
        router.get(RouterPath(RelayPaths.health)) { _, _ in
            guard await databaseAnswers() else {
                throw RelayError(.serviceUnavailable, .internalError, "the relay's database does not answer")
            }
            return try jsonResponse(HealthStatus(status: "ok", version: "1", database: "ok"))
        }
    }

    func databaseAnswers() async -> Bool {
        let store = store, databaseTimeout = databaseTimeout
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await store.lastEventID()) != nil }
            group.addTask {
                try? await Task.sleep(for: databaseTimeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
