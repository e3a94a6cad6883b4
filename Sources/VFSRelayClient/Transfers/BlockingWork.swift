import VFSCore

/// Runs blocking work (the sealing: libarchive, zstd and age; a decryption that reads a
/// download as it grows) on a thread of its own.
package func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
        DetachedThread.start(stackSize: 8 << 20) {
            do {
                continuation.resume(returning: try work())
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}

/// A progress bar's update, for the uploaders and downloaders (nil when there is no bar).
package func progress(_ bar: ProgressReport?, limit: Int = .max) -> (@Sendable (Int64) -> Void)? {
    guard let bar else { return nil }
    return { @Sendable (done: Int64) in bar.update(min(limit, Int(done))) }
}

extension TusUploader {
    /// Sends `file` (its bytes from `base`) to the upload at `location`, which is created
    /// first when nil (`created` keeps it), under a progress bar labelled `label`.
    /// Returns the upload's location. 404: the upload expired or was removed.
    package func upload(file: String, length: Int64, base: Int64 = 0, at location: String?, label: String, report: ClientReport,
                created: (String) throws -> Void) async throws -> String {
        var location = location
        if location == nil {
            let made = try await create(length: length)
            try created(made)
            location = made
        }
        let bar = report.progress(label, Int(length))
        defer { bar?.finish() }
        try await send(file: file, length: length, base: base, to: location!, progress: progress(bar))
        return location!
    }
}
