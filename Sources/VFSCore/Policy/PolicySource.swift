#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a policy comes from. Every decision goes through one, so a tool does not
/// care whether the list is a file on this machine or an organisation's list on the relay.
///
/// - `PolicyStore`: the local file (`VFSPaths.policyFile`).
/// - `RelayPolicyCache`: this device's copy of its organisation's list on the relay
///   (`VFSPaths.policyCache`), with the relay's revision, the fetch time and the
///   organisation's offline grace. Refreshing it is a separate, async step in the relay
///   tools (`vfs-policy sync`, `vfs-fetch --watch`) that replaces it only with a whole
///   fetched list; changes go to the relay, which keeps the audit log.
///
/// Decided: sources answer synchronously, from a local file, and never touch the
/// network, so a decision is as fast and as predictable as reading a file, and the
/// sync tools (vfs-unwrap) need no async entry point to ask. The decision itself
/// (`PolicyDocument.decide`) is the same code for every source; a source whose items
/// may no longer be trusted (a relay copy past its grace, or none yet) says so in its
/// snapshot, and every request is then denied `policy-stale`.
public protocol PolicySource {
    /// The current items; a source with no policy yet returns an empty document,
    /// which approves nothing.
    func load() throws -> PolicyDocument

    /// The items as a decision sees them (by default `load()`, always trusted).
    func snapshot() throws -> PolicySnapshot
}

/// The items a decision is made on, and whether they may be trusted.
public struct PolicySnapshot: Sendable, Equatable {
    public var document: PolicyDocument
    /// Why the items may not be trusted (a relay copy past its offline grace, or none);
    /// nil when they may. When set, every request is denied `policy-stale`.
    public var stale: String?

    public init(document: PolicyDocument, stale: String? = nil) {
        self.document = document
        self.stale = stale
    }

    /// The decision for `request`: `policy-stale` for every request when stale, else
    /// the document's decision.
    public func decide(_ request: PolicyRequest) -> PolicyDecision {
        if let stale {
            return .denied(PolicyDenial(reason: .policyStale, app: request.app, itemID: nil,
                                        message: "\(stale), so nothing is approved"))
        }
        return document.decide(request)
    }
}

extension PolicySource {
    public func snapshot() throws -> PolicySnapshot {
        PolicySnapshot(document: try load())
    }

    /// The decision for `request` on the current items (default deny).
    public func decide(_ request: PolicyRequest) throws -> PolicyDecision {
        try snapshot().decide(request)
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
        let snapshot = try snapshot()
        var decision: PolicyDecision?
        for type in types.isEmpty ? [nil] : types {
            let answer = snapshot.decide(PolicyRequest(app: app, group: group, fileType: type, date: date))
            if !answer.isAllowed { return answer }
            decision = answer
        }
        return decision!
    }
}
