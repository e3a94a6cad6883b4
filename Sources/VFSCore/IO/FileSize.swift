#if canImport(Glibc)
import Glibc
#endif

/// The size of a file by stat(2). (FileManager's attributes hold it as UInt64 in
/// FoundationEssentials and as NSNumber in full Foundation: `as? Int64` held on the one
/// and silently gave nil on the other.)
public enum FileSize {
    public static func of(_ path: String) throws -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw IOError("cannot read the size of", path: path) }
        return Int64(info.st_size)
    }
}
