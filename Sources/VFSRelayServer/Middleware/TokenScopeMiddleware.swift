import Foundation
import HTTPTypes
import Hummingbird
import VFSRelayProtocol

/// The token scope of a send-only device (issue 48, docs/relay.md, "Send-only devices"):
/// after `AuthMiddleware`, a request by a device marked send-only passes only to the
/// routes `SendOnlyScope` lists; any other answers 403 with the relay's error body.
/// The route is the one the router matched (`endpointPath`), so a spelling of the path
/// cannot slip past.
struct TokenScopeMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The mark comes with the identity (`authenticate` reads it with the token's row).
        if let identity = context.identity, identity.sendOnly,
           !SendOnlyScope.allows(request.method, route: context.endpointPath ?? "", parameters: context.parameters, device: identity.deviceID) {
            throw SendOnlyScope.refusal
        }
        return try await next(request, context)
    }
}

/// What a send-only device's token may do: push (create and resume its uploads, create
/// transfers), read what a push needs to choose and verify its recipients (its user's
/// devices and chain, colleagues' chains, device and people groups, the policy), publish
/// its own signing key, and list its own pushes' receipts (the outbox). Not: fetch, the
/// inbox, events, the cloud, items, invites, groups changed, devices renamed or logged
/// out, cancel or delete.
enum SendOnlyScope {
    static let refusal = RelayError(.forbidden, .forbidden, "a send-only device's token may only push and read its pushes' receipts")

    /// Route (as the router's `endpointPath` writes it: `{id}` for a parameter) → the
    /// methods allowed.
    static let allowed: [String: Set<HTTPRequest.Method>] = [
        RelayPaths.uploads: [.post],
        RelayPaths.uploads + "/{id}": [.head, .patch],
        RelayPaths.transfers: [.post],
        RelayPaths.outbox: [.get, .head],
        RelayPaths.devices: [.get, .head],
        RelayPaths.devices + "/{id}/signing-key": [.put],
        RelayPaths.chain: [.get, .head],
        RelayPaths.users + "/{user}/chain": [.get, .head],
        RelayPaths.groups + "/{name}": [.get, .head],
        RelayPaths.orgGroups + "/{name}": [.get, .head],
        RelayPaths.policySettings: [.get, .head],
    ]

    static func allows(_ method: HTTPRequest.Method, route: String, parameters: Parameters, device: String) -> Bool {
        guard allowed[route]?.contains(method) == true else { return false }
        // Only its own signing key (the controller says so too).
        if route == RelayPaths.devices + "/{id}/signing-key" { return parameters.get("id") == device }
        return true
    }
}
