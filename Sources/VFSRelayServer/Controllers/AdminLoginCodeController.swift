import Foundation
import Hummingbird
import VFSRelayProtocol

/// `POST /v1/admin/login-codes`: an administrator's enrolled device gets a one-time code
/// for the admin web page (what `vfs-relay login-code` gives the operator), stored hashed.
struct AdminLoginCodeController {
    let services: RelayServices
    let store: any AdminLoginCodeRepository

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        group.post(RouterPath(RelayPaths.adminLoginCodes), use: create)
    }

    @Sendable func create(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        guard identity.isAdmin else { throw RelayError.forbidden }
        let now = Date()
        let code = RelayCodes.newLoginCode()
        let expires = now.addingTimeInterval(services.configuration.loginCodeLifetime)
        try await store.createLoginCode(email: identity.email, codeHash: RelayCodes.hash(loginCode: code), expires: expires, now: now)
        return try jsonResponse(AdminLoginCode(code: code, path: RelayPaths.adminPage, expires: expires), status: .created)
    }
}
