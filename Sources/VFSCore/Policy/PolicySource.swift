/// Where a policy comes from. Every decision goes through one, so a tool does not
/// care whether the list is a file on this machine or an organisation's list on the relay.
///
/// Now: `PolicyStore`, the local file (`$VFS_POLICY`, else `$VFS_HOME/policy.json`).
///
/// Later, the relay: a `RelayPolicySource` will fetch the organisation's items
/// (`GET /orgs/ORG/policy`, the seed's `GET /items`) and keep them in a local cache,
/// a `PolicyStore` at `$VFS_HOME/policy-cache/ORG.json` whose document also records
/// when it was fetched and for how long it may be trusted (`maxAge`, e.g. 24h, set by
/// the relay). `load()` fetches when it can and falls back to the cache when the relay
/// is unreachable; once the cache is older than `maxAge` it throws (exit 69) instead
/// of answering, so a device cut off from the relay stops releasing files after a
/// bounded time rather than trusting a stale list forever. Changes go to the relay
/// (POST/PUT/DELETE), which keeps the audit log; the cache is only ever replaced by a
/// fetched list. The decision itself (`PolicyDocument.decide`) stays the same code.
public protocol PolicySource {
    /// The current items; a source with no policy yet returns an empty document,
    /// which approves nothing.
    func load() throws -> PolicyDocument
}

extension PolicySource {
    /// The decision for `request` on the current items (default deny).
    public func decide(_ request: PolicyRequest) throws -> PolicyDecision {
        try load().decide(request)
    }
}
