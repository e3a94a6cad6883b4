import Foundation

/// Where a policy comes from. Every decision goes through one, so a tool does not
/// care whether the list is a file on this machine or an organisation's list on the relay.
///
/// Now: `PolicyStore`, the local file (`VFSPaths.policyFile`).
///
/// Decided: sources answer synchronously, from a local file. `load()` stays sync and
/// never touches the network, so a decision is as fast and as predictable as reading
/// a file, and the sync tools (vfs-unwrap) need no async entry point to ask.
/// A relay-backed source (`RelayPolicySource`, in the relay client) answers from its
/// cache, a `PolicyStore` at `VFSPaths.policyCache/ORG.json` whose document also
/// records when it was fetched and for how long it may be trusted (`maxAge`, set by
/// the relay). Refreshing that cache is a separate, async step (`refresh() async
/// throws`, run by the relay tools or before a decision when the cache is due),
/// which replaces the cache only with a whole fetched list. `load()` on a cache
/// older than `maxAge` throws (exit 69) instead of answering, so a device cut off
/// from the relay stops releasing files after a bounded time rather than trusting a
/// stale list forever. Changes go to the relay, which keeps the audit log. The
/// decision itself (`PolicyDocument.decide`) stays the same code.
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

    /// Whether the files of a bundle may be released to `app` (`decide(files:group:app:)`
    /// with its files and group).
    public func decide(bundle manifest: BundleManifest, app: String, date: Date = Date()) throws -> PolicyDecision {
        try decide(files: manifest.contentEntries.map(\.path), group: manifest.group, app: app, date: date)
    }

    /// Whether files at `paths` of `group` may be released to `app`: one request per
    /// distinct file type among them (one with no type when there are none). The first
    /// denial is the answer; nothing is released unless every type is allowed.
    public func decide(files paths: [String], group: String?, app: String, date: Date = Date()) throws -> PolicyDecision {
        var types: [String?] = []
        for path in paths {
            let type = PolicyRequest.fileType(ofPath: path)
            if !types.contains(type) { types.append(type) }
        }
        let document = try load()
        var decision: PolicyDecision?
        for type in types.isEmpty ? [nil] : types {
            let answer = document.decide(PolicyRequest(app: app, group: group, fileType: type, date: date))
            if !answer.isAllowed { return answer }
            decision = answer
        }
        return decision!
    }
}
