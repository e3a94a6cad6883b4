#if canImport(Glibc)
import Glibc
#endif

/// How many threads a parallel job starts: the processors online, at least one.
package enum ProcessorCount {
    /// The online processors, at least 1 and at most `limit`.
    package static func available(limit: Int = .max) -> Int {
        max(1, min(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), limit))
    }
}
