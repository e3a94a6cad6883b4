/// Path arithmetic on strings, as NSString's path methods did (FoundationEssentials
/// has no NSString).
public enum PathText {
    /// The folder part of `path`, as NSString's deletingLastPathComponent gives it:
    /// `/a/b` → `/a`, `/a` → `/`, `a/b/` → `a`, `a` → `` (empty), `/` → `/`.
    public static func parent(_ path: String) -> String {
        var bytes = Array(path.utf8)
        while bytes.count > 1 && bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        guard bytes != [UInt8(ascii: "/")] else { return "/" }
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        var folder = bytes[..<slash]
        while folder.count > 1 && folder.last == UInt8(ascii: "/") { folder.removeLast() }
        return folder.isEmpty ? "/" : String(decoding: folder, as: UTF8.self)
    }
}
