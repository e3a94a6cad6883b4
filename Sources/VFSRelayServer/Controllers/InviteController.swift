import Foundation
import Hummingbird
import VFSRelayProtocol

/// `POST /v1/invites`: an enrolled device asks for a code to enrol another device of
/// the same user (what `vfs-relay invite` gives the operator), single use, stored hashed;
/// unused, it dies with the device that asked for it.
struct InviteController {
    let services: RelayServices
    let store: any InviteRepository

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        group.post(RouterPath(RelayPaths.invites), use: create)
    }

    @Sendable func create(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let now = Date()
        let code = RelayCodes.newEnrolmentCode()
        let expires = now.addingTimeInterval(services.configuration.enrolmentCodeLifetime)
        try await store.createEnrolmentCode(email: identity.email, codeHash: RelayCodes.hash(enrolmentCode: code),
                                                     expires: expires, now: now, createdBy: identity.deviceID,
                                                     openLimit: services.configuration.limits.openInvites)
        return try jsonResponse(Invite(code: code, expires: expires), status: .created)
    }
}
