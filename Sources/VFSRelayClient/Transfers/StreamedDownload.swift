import VFSCore
import VFSRelayProtocol

/// A download read while it arrives: a thread reads (decrypts, unpacks) what the
/// `DownloadFeed` holds, blocking on it, while the download on the caller's task fills
/// it. Used by `TransferReceiver` (a transfer) and `CloudDownload` (a cloud file).
package enum StreamedDownload {
    /// Runs `read` over `feed` on a thread of its own while `download` fills the feed.
    /// A failed download (or the feed's own failure: a wrong size or SHA-256, checked
    /// when the reading failed if the feed does not hash as it is read) is thrown: it
    /// wins over the reading's error, then only its consequence. Otherwise the reading's
    /// result.
    package static func run<T: Sendable>(_ feed: DownloadFeed, read: @escaping @Sendable (ByteSource) throws -> T,
                                 download: () async throws -> Void) async throws -> Result<T, Error> {
        let reading = Task {
            try await onThread {
                defer { feed.abandon() }
                do {
                    return try read(BufferedSource(feed))
                } catch {
                    feed.readerFailed()
                    throw error
                }
            }
        }
        var downloadError: Error?
        do {
            try await download()
        } catch {
            downloadError = error
            feed.fail(error)
        }
        let result = await reading.result
        if let downloadError, !(downloadError is CancellationError) { throw downloadError }
        if let failure = feed.error, failure is RelayClientError { throw failure }
        return result
    }
}

/// A value handed to a thread that alone uses it until it ends (a reader's output, the
/// receiver whose checks it runs): Sendable for that hand-over only.
package struct Handoff<Value>: @unchecked Sendable {
    package let value: Value

    package init(value: Value) { self.value = value }
}
