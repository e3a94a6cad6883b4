#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import VFSCore
import VFSRelayProtocol

/// The organisation's list as `GET /v1/items` serves it: the items, the revision they
/// were read at and the organisation's offline grace.
public struct PolicyListing: Sendable, Equatable {
    public var items: [PolicyItem]
    public var revision: String
    public var graceSeconds: Int64
}

extension RelayClient {
    public func policyList() async throws -> PolicyListing {
        let response = try await execute(request(.GET, RelayPaths.items), timeout: answerTimeout)
        let bytes = try await collect(response)
        let items = try decode([PolicyItem].self, bytes, path: RelayPaths.items)
        let revision = response.headers.first(name: PolicyListHeaders.revision) ?? ""
        let grace = response.headers.first(name: PolicyListHeaders.grace).flatMap { Int64($0) }
            ?? PolicySettings.defaultGraceSeconds
        return PolicyListing(items: items, revision: revision, graceSeconds: grace)
    }

    /// An item and its ETag (for `If-Match`).
    public func policyItem(_ id: String) async throws -> (item: PolicyItem, etag: String) {
        let path = RelayPaths.item(Self.escape(id))
        let response = try await execute(request(.GET, path), timeout: answerTimeout)
        let bytes = try await collect(response)
        return (try decode(PolicyItem.self, bytes, path: path), response.headers.first(name: "ETag") ?? "*")
    }

    public func createItem(_ draft: ItemDraft) async throws -> PolicyItem {
        try await call(.POST, RelayPaths.items, body: draft, as: PolicyItem.self)
    }

    /// `PUT` with `If-Match: etag`: a 412 means the item changed since it was read.
    public func updateItem(_ id: String, _ draft: ItemDraft, ifMatch etag: String) async throws -> PolicyItem {
        let path = RelayPaths.item(Self.escape(id))
        var request = self.request(.PUT, path, headers: [("If-Match", etag), ("Content-Type", "application/json")])
        request.body = .bytes(ByteBuffer(bytes: try Self.encoder.encode(draft)))
        return try decode(PolicyItem.self, try await collect(try await execute(request, timeout: answerTimeout)), path: path)
    }

    public func deleteItem(_ id: String, ifMatch etag: String) async throws {
        let request = self.request(.DELETE, RelayPaths.item(Self.escape(id)), headers: [("If-Match", etag)])
        _ = try await collect(try await execute(request, timeout: answerTimeout))
    }

    public func policySettings() async throws -> PolicySettings {
        try await call(.GET, RelayPaths.policySettings, as: PolicySettings.self)
    }

    public func setPolicySettings(_ settings: PolicySettings) async throws -> PolicySettings {
        try await call(.PUT, RelayPaths.policySettings, body: settings, as: PolicySettings.self)
    }
}

/// Refreshing this device's copy of the organisation's policy (RelayPolicyCache):
/// `vfs-policy sync`, after each of vfs-policy's writes, and `vfs-fetch --watch` on
/// every connection and `policy` event.
public enum RelayPolicySync {
    /// Fetches the whole list and replaces the copy with it; returns where it came from.
    @discardableResult
    public static func refresh(client: RelayClient, cache: RelayPolicyCache) async throws -> RelayPolicyOrigin {
        let listing = try await client.policyList()
        let document = PolicyDocument(items: listing.items)
        let origin = RelayPolicyOrigin(url: client.baseURL, revision: listing.revision, fetched: cache.now(),
                                       graceSeconds: listing.graceSeconds)
        try cache.save(document, origin: origin)
        return origin
    }
}
