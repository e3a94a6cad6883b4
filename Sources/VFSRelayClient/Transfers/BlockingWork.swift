import VFSCore

/// Runs blocking work (the sealing: libarchive, zstd and age; a decryption that reads a
/// download as it grows) on a thread of its own.
///
/// The thread lets go of the work, and so of everything it captured, before the caller
/// resumes: the last reference is the caller's, and nothing is left for the thread to
/// free after the caller went on (and perhaps exited), such as a download's SHA-256
/// context (`CryptoLibrary` says why that crashed).
package func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    let pending = PendingWork(work)
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
        DetachedThread.start(stackSize: 8 << 20) {
            continuation.resume(with: pending.run())
        }
    }
}

/// Work handed to a thread, run once and dropped before its result is handed back.
final class PendingWork<T>: @unchecked Sendable {
    // Sendable: `work` is set at init and taken once, by the one thread that runs it.
    private var work: (@Sendable () throws -> T)?

    init(_ work: @escaping @Sendable () throws -> T) { self.work = work }

    /// Runs the work; this object's hold on it (and on its captures) ends before this returns.
    func run() -> Result<T, Error> {
        guard let work = work.take() else { preconditionFailure("PendingWork ran twice") }
        return Result { try work() }
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
