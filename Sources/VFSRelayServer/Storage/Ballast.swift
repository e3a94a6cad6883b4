import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// A file of real blocks kept in the SQLite data folder, given up the moment the disk is
/// so full that the database cannot write: then a delete (which frees space) still
/// commits. It comes back once there is room again. (With PostgreSQL the database has
/// a disk of its own and no ballast is kept.)
public struct Ballast: Sendable {
    public let path: String
    public let size: Int64

    public static let defaultSize: Int64 = 4 << 20

    public init(folder: URL, size: Int64 = Ballast.defaultSize) {
        path = folder.appendingPathComponent("ballast").path
        self.size = size
    }

    /// Makes the file if it is missing and `room` (bytes above the disk reserve) allows.
    public func ensure(room: Int64) {
        var info = stat()
        if lstat(path, &info) == 0, Int64(info.st_size) == size { return }
        guard room > 2 * size else { return }
        let fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        // Blocks allocated for real (not a hole), so that freeing them frees space.
        if posix_fallocate(fd, 0, off_t(size)) != 0 {
            let zeros = [UInt8](repeating: 0, count: 1 << 16)
            var written: Int64 = 0
            while written < size {
                let n = zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress!, Int(min(Int64(zeros.count), size - written)), off_t(written)) }
                guard n > 0 else {
                    unlink(path)
                    return
                }
                written += Int64(n)
            }
        }
        fsync(fd)
    }

    /// Gives the space up; true when there was a ballast to give.
    @discardableResult
    func release() -> Bool { unlink(path) == 0 }

    /// Runs `body`; should it fail for a full disk, gives up the ballast and runs it once more.
    func freeing<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error where Self.isDiskFull(error) {
            guard release() else { throw error }
            return try await body()
        }
    }

    static func isDiskFull(_ error: any Error) -> Bool {
        if let error = error as? DatabaseError { return error.resultCode == .SQLITE_FULL }
        if case BlobStoreError.noSpace = error { return true }
        return false
    }
}
