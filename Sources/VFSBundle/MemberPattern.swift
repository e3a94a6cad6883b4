import VFSCore
#if canImport(Glibc)
import Glibc
#endif

/// How member names are matched, as GNU tar matches them: fnmatch(3) globs in which
/// `*` and `?` also match '/', and a pattern that matches a folder matches what is
/// below it too (tar's leading-directory rule).
enum MemberPattern {
    /// `--exclude PATTERN`: unanchored, as tar's default for exclusion. The pattern may
    /// match the whole member path or any tail of it that starts at a component
    /// (`sub` excludes `docs/sub` and everything below it; `*.o` excludes `a/b/c.o`).
    static func excludes(_ pattern: String, _ path: String) -> Bool {
        let bytes = Array(path.utf8)
        var starts = [0]
        for (i, byte) in bytes.enumerated() where byte == UInt8(ascii: "/") { starts.append(i + 1) }
        return starts.contains { matchesWithLeadingFolders(pattern, bytes[$0...]) }
    }

    /// A member named on vfs-unwrap's command line: the entry itself or anything below
    /// it. Without `wildcards` the name is taken literally (a '*' in it is a '*'); with
    /// them it is a glob anchored at the start of the path.
    static func selects(_ member: String, _ path: String, wildcards: Bool) -> Bool {
        var member = Substring(member)
        while member.count > 1 && member.hasSuffix("/") { member = member.dropLast() }
        guard wildcards else { return path == member || path.hasPrefix(member + "/") }
        return matchesWithLeadingFolders(String(member), Array(path.utf8)[...])
    }

    /// Whether `pattern` matches `name` or one of its leading folders (`a`, `a/b` of `a/b/c`).
    static func matchesWithLeadingFolders(_ pattern: String, _ name: ArraySlice<UInt8>) -> Bool {
        var ends = [name.endIndex]
        for i in name.indices where name[i] == UInt8(ascii: "/") { ends.append(i) }
        return ends.contains { end in
            var cString = Array(name[name.startIndex..<end])
            cString.append(0)
            return cString.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { fnmatch(pattern, $0.baseAddress!, 0) == 0 }
            }
        }
    }
}
