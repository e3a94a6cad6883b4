import Foundation
import Hummingbird
import VFSRelayProtocol

/// `/v1/devices[/{id}]`: the caller's own devices.
struct DeviceController {
    let services: RelayServices
    let store: any DeviceRepository & ChainReadRepository

    func addRoutes(to group: RouterGroup<RelayRequestContext>) {
        group.get(RouterPath(RelayPaths.devices), use: list)
        group.get(RouterPath(RelayPaths.devices + "/:id"), use: show)
        group.patch(RouterPath(RelayPaths.devices + "/:id"), use: rename)
        group.delete(RouterPath(RelayPaths.devices + "/:id"), use: invalidate)
    }

    @Sendable func list(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try jsonResponse(try await store.devices(user: context.requireIdentity().userID))
    }

    @Sendable func show(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try jsonResponse(try await store.device(id: pathID(context), user: context.requireIdentity().userID))
    }

    @Sendable func rename(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try pathID(context)
        _ = try await store.device(id: id, user: identity.userID)
        let body = try await request.decodeJSON(DeviceRename.self, context: context)
        try Validate.name(body.name, what: "device name")
        if try await store.devices(user: identity.userID).contains(where: { $0.name == body.name && $0.id != id }) {
            throw RelayError.conflict("you already have a device named \"\(body.name)\"")
        }
        return try jsonResponse(try await store.renameDevice(id: id, user: identity.userID, name: body.name, now: Date()))
    }

    /// Logs the device out at once: token dead, stream told and closed, its waiting
    /// transfers expired. A device its user's verified chain does not hold (a pending
    /// one) logs out no device but itself (403).
    @Sendable func invalidate(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try pathID(context)
        if id != identity.deviceID {
            let stored = try await store.chain(user: identity.userID, pinned: Int64.max)
            if !stored.isEmpty, !RelayChain.liveDevices(stored, user: identity.email).contains(identity.deviceID) {
                throw RelayError(.forbidden, .forbidden, "a device your devices have not approved logs out no other device")
            }
        }
        let released = try await store.invalidateDevice(id: id, user: identity.userID, now: Date())
        await services.deleteBlobs(released)
        return emptyResponse()
    }
}
