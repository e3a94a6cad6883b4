import VFSCore
/// Which of a bundle's entries an extraction writes, and under what names: the members
/// named on the command line (with everything below a folder, and the folders above
/// each, as tar creates them), less `stripComponents` leading components.
public struct BundleSelection: Sendable, Equatable {
    /// Member names (or globs with `wildcards`); empty for every entry.
    public var members: [String]
    public var wildcards: Bool
    /// Leading path components removed from each name; an entry with no more
    /// components than this is not extracted (as tar's --strip-components).
    public var stripComponents: Int

    public init(members: [String] = [], wildcards: Bool = false, stripComponents: Int = 0) {
        self.members = members
        self.wildcards = wildcards
        self.stripComponents = stripComponents
    }

    /// For each manifest entry (by index), the entry as extracted, or nil if it is not.
    /// Throws `notInBundle` naming every member that matches nothing, and, when
    /// `validate` is set, the manifest rules for what comes out (a stripped name that
    /// appears twice, a link that would point outside the folder).
    public func outputs(of manifest: BundleManifest, validate: Bool = true) throws -> [BundleManifest.Entry?] {
        let entries = manifest.entries
        var chosen = [Bool](repeating: members.isEmpty, count: entries.count)
        if !members.isEmpty {
            var unmatched: [String] = []
            for member in members {
                var found = false
                for (i, entry) in entries.enumerated() where MemberPattern.selects(member, entry.path, wildcards: wildcards) {
                    chosen[i] = true
                    found = true
                }
                if !found { unmatched.append(member) }
            }
            if !unmatched.isEmpty { throw BundleError.notInBundle(members: unmatched, wildcards: wildcards) }
            // The folders above a chosen entry come with it (they are earlier entries).
            let index = Dictionary(uniqueKeysWithValues: entries.enumerated().map { ($1.path, $0) })
            for i in entries.indices.reversed() where chosen[i] {
                if let parent = BundlePath.parent(of: entries[i].path), let p = index[parent] { chosen[p] = true }
            }
        }
        var out = [BundleManifest.Entry?](repeating: nil, count: entries.count)
        for i in entries.indices where chosen[i] {
            let parts = entries[i].path.split(separator: "/")
            guard parts.count > stripComponents else { continue }
            var entry = entries[i]
            entry.path = parts.dropFirst(stripComponents).joined(separator: "/")
            out[i] = entry
        }
        if validate && stripComponents > 0 {
            try BundleManifest(group: nil, accessID: nil, sender: nil, entries: out.compactMap { $0 }, version: manifest.version).validate()
        }
        return out
    }
}
