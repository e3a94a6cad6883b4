import AsyncHTTPClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOConcurrencyHelpers
import NIOHTTP1
import VFSCore
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Downloads a transfer's ciphertext into a partial file, resuming with HTTP Range
/// from the bytes already there (If-Range with the transfer's ETag, so a changed blob
/// starts over), and checks its SHA-256 once complete.
package struct RangeDownloader: Sendable {
    let client: RelayClient
    var retries: Int
    var backoff: Backoff
    /// The most bytes `follow` takes of a transfer still uploading (no size listed yet):
    /// past it, `.pastLimit` and the partial file is removed. Unbounded by default, for
    /// a reader that checks what it reads as it arrives (a signed manifest bounds it).
    package var followLimit: Int64 = .max
    /// How long `follow` waits for the next byte of a transfer still uploading before it
    /// gives up on it (`.stalled`, the partial file kept for a later fetch); nil: as long
    /// as the relay keeps the upload.
    package var followIdle: Duration?

    package init(client: RelayClient, retries: Int = 5, backoff: Backoff = Backoff(base: 0.2, cap: 5)) {
        self.client = client
        self.retries = retries
        self.backoff = backoff
    }

    /// Fills `path` with the transfer's `size` bytes; throws `.corruptDownload` (and
    /// removes the file) if the whole does not hash to `sha256`. With a `feed`, its
    /// reader is told of every byte written, and it checks the SHA-256 instead; the
    /// download stops (CancellationError) once the reader gave up.
    package func download(_ transfer: InboxEntry, to path: String, feed: DownloadFeed? = nil,
                         progress: (@Sendable (Int64) -> Void)? = nil) async throws {
        try await download(Target(route: RelayPaths.transferContent(transfer.id), label: transfer.id, size: transfer.size,
                                  sha256: transfer.sha256), to: path, feed: feed, progress: progress)
    }

    /// What to download: a route serving `size` bytes with ETag `"sha256"`.
    struct Target: Sendable {
        var route: String
        /// Names it in errors (a transfer id, a cloud path).
        var label: String
        var size: Int64
        /// Empty while it is unknown (a transfer still uploading, or one whose digest was
        /// deferred, `DeferredDigest`): no `If-Range` then (a transfer's bytes never change).
        var sha256: String
        /// An upload followed as it runs: no end known, `size` is only the most taken.
        var follows: Bool
        init(route: String, label: String, size: Int64, sha256: String, follows: Bool = false) {
            self.route = route
            self.label = label
            self.size = size
            self.sha256 = sha256
            self.follows = follows
        }
    }

    /// Fills `path` with the target's bytes, resuming from what the file holds, and
    /// checks the SHA-256 (`.corruptDownload` removes the file); with a `feed`, as above.
    func download(_ transfer: Target, to path: String, feed: DownloadFeed? = nil,
                         progress: (@Sendable (Int64) -> Void)? = nil) async throws {
        var failures = 0
        while true {
            do {
                try await fetchRest(transfer, to: path, feed: feed, progress: progress)
                break
            } catch {
                // A cut stream, a relay restarting or busy: resumed from the bytes the file holds.
                failures += 1
                try await client.retry.pause(after: error, failure: failures, quick: retries, quickBackoff: backoff, .idempotent)
            }
        }
        if feed != nil { return }
        let digest = try Self.sha256(ofFile: path)
        guard digest == transfer.sha256 else {
            unlink(path)
            throw RelayClientError.corruptDownload(transfer: transfer.label, expected: transfer.sha256, actual: digest)
        }
    }

    /// Where a response's body goes in the partial file `fd`, which holds `have` bytes: a
    /// 206 goes on after them; the whole content starts over at 0, dropping them. A file
    /// with nothing in it is not truncated: ext4 writes a file truncated to zero out to the
    /// disk when it is closed (auto_da_alloc, made for programs that rewrite a file in
    /// place), so a fresh download's ciphertext, deleted once it is unwrapped, went to the
    /// disk first, and 1 GiB took 1-2 s more to close and unlink.
    static func start(_ fd: Int32, holding have: Int64, partialContent: Bool, path: String) throws -> Int64 {
        if partialContent { return have }
        if have > 0 {
            guard ftruncate(fd, 0) == 0 else { throw VFSCore.IOError("cannot truncate", path: path) }
        }
        return 0
    }

    func fetchRest(_ transfer: Target, to path: String, feed: DownloadFeed?, progress: (@Sendable (Int64) -> Void)?) async throws {
        // A partial file is this tool's own: never through a link planted in its place.
        let fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw VFSCore.IOError("cannot create", path: path) }
        defer { close(fd) }
        // Following an upload (`follow`): no ETag to resume against yet, and no end known;
        // the target's size is then only the most that is taken.
        let following = transfer.follows
        var have = Int64(lseek(fd, 0, SEEK_END))
        if have > transfer.size {
            if following { throw Self.refuse(transfer, path: path, client: client) }
            ftruncate(fd, 0)
            have = 0
        }
        progress?(have)
        feed?.advance(to: have)
        if have == transfer.size && !following { return }
        var headers: [(String, String)] = []
        if have > 0 { headers = [("Range", "bytes=\(have)-")] + (transfer.sha256.isEmpty ? [] : [("If-Range", "\"\(transfer.sha256)\"")]) }
        let response = try await client.execute(client.request(.GET, transfer.route, headers: headers),
                                                timeout: .hours(24))
        if response.status.code >= 400 {
            _ = try await client.collect(response)
        }
        let partial = response.status == .partialContent
        // The whole content: start over.
        if !partial && have > 0 { feed?.restarted() }
        var position = try Self.start(fd, holding: have, partialContent: partial, path: path)
        do {
            for try await chunk in response.body {
                // More than the listed size (or the limit of one without a size yet) would
                // only fill the disk: a hostile relay's. Nothing of it is kept.
                guard Int64(chunk.readableBytes) <= transfer.size - position else {
                    throw Self.refuse(transfer, path: path, client: client)
                }
                try Self.write(chunk, to: fd, at: position, path: path)
                position += Int64(chunk.readableBytes)
                client.retry.advanced()
                progress?(position)
                feed?.advance(to: position)
                if feed?.isAbandoned == true { throw CancellationError() }
            }
        } catch let error as VFSCore.IOError {
            throw error
        } catch let error as RelayClientError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw RelayClientError.unreachable(url: client.baseURL, reason: RelayClient.describe(error))
        }
        guard position == transfer.size || following else {
            throw RelayClientError.unreachable(url: client.baseURL, reason: "the download stopped at \(position) of \(transfer.size) bytes")
        }
    }

    /// Removes the partial file of a download that ran past `transfer.size` and says so:
    /// past the size listed (the relay's answer is wrong), or past the limit of a transfer
    /// followed while it uploads (`.pastLimit`).
    static func refuse(_ transfer: Target, path: String, client: RelayClient) -> RelayClientError {
        unlink(path)
        if transfer.sha256.isEmpty { return .pastLimit(transfer: transfer.label, limit: transfer.size) }
        return .badAnswer(url: client.baseURL + transfer.route, reason: "more than the \(transfer.size) bytes it listed")
    }

    /// Follows a transfer that is still `uploading` into `path` (resuming from the bytes
    /// the file holds, with `Range: bytes=N-`) until the relay's body ends, which it does
    /// once the upload ended; returns the transfer as the inbox then lists it, with its
    /// size and SHA-256 (the caller downloads what may still be missing and checks the
    /// whole with `download`). A transfer that stops waiting meanwhile (the sender
    /// cancelled it, its upload was abandoned) is `.abandoned`. With a `feed`, its reader
    /// is told of every byte, and the download stops (CancellationError) once it gave up:
    /// a relay that sends bytes without end is read no further than the reader accepts
    /// them (the age stream's authentication, the bundle's checks), and never past
    /// `followLimit` (`.pastLimit`, the partial file removed).
    package func follow(_ transfer: InboxEntry, to path: String, feed: DownloadFeed? = nil,
                       progress: (@Sendable (Int64) -> Void)? = nil) async throws -> InboxEntry {
        guard let idle = followIdle else { return try await following(transfer, to: path, feed: feed, progress: progress) }
        // The follow runs on its own; the first of its end and `idle` without a byte wins
        // (a read blocked on a relay that sends nothing is left to end with the client).
        let last = LastByte()
        let (outcomes, outcome) = AsyncStream<Result<InboxEntry, any Error>>.makeStream(bufferingPolicy: .bufferingOldest(1))
        let follower = Task {
            do {
                outcome.yield(.success(try await following(transfer, to: path, feed: feed) { position in
                    last.now()
                    progress?(position)
                }))
            } catch {
                outcome.yield(.failure(error))
            }
        }
        let watchdog = Task {
            while !Task.isCancelled {
                if last.since > idle {
                    outcome.yield(.failure(RelayClientError.stalled(transfer: transfer.id, seconds: Int(idle.components.seconds))))
                    return
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        var ended: Result<InboxEntry, any Error> = .failure(CancellationError())
        for await first in outcomes {
            ended = first
            break
        }
        watchdog.cancel()
        if case .failure(RelayClientError.stalled) = ended { follower.cancel() }
        return try ended.get()
    }

    func following(_ transfer: InboxEntry, to path: String, feed: DownloadFeed?,
                   progress: (@Sendable (Int64) -> Void)?) async throws -> InboxEntry {
        let route = RelayPaths.transferContent(transfer.id)
        // No size and no SHA-256 yet: the body's end is the end, within the limit.
        let target = Target(route: route, label: transfer.id, size: followLimit, sha256: "", follows: true)
        var failures = 0
        while true {
            do {
                try await fetchRest(target, to: path, feed: feed, progress: progress)
            } catch RelayClientError.rejected(404, _, _) {
                throw RelayClientError.abandoned(transfer: transfer.id)
            } catch {
                // A cut stream: the relay went, or it cut the body because the transfer went.
                failures += 1
                try await client.retry.pause(after: error, failure: failures, quick: retries, quickBackoff: backoff, .idempotent)
                continue
            }
            // A feed's reader checks every byte end to end: it does without the relay's digest.
            guard let entry = try await client.inbox(digests: feed == nil).first(where: { $0.id == transfer.id }) else {
                throw RelayClientError.abandoned(transfer: transfer.id)
            }
            guard entry.status != .uploading else {
                throw RelayClientError.badAnswer(url: client.baseURL + route, reason: "the content ended while the transfer is still uploading")
            }
            return entry
        }
    }

    /// When a followed download last got a byte.
    final class LastByte: Sendable {
        private let time = NIOLockedValueBox(ContinuousClock.now)
        func now() { time.withLockedValue { $0 = .now } }
        var since: Duration { ContinuousClock.now - time.withLockedValue { $0 } }
    }

    /// Writes a chunk at `position` of the file.
    static func write(_ chunk: ByteBuffer, to fd: Int32, at position: Int64, path: String) throws {
        try chunk.withUnsafeReadableBytes { bytes in
            var done = 0
            while done < bytes.count {
                let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(position) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw VFSCore.IOError("cannot write", path: path)
                }
                done += n
            }
        }
    }

    /// The file's SHA-256 in lowercase hex, read in chunks.
    static func sha256(ofFile path: String) throws -> String {
        let source = try FileDescriptorSource(path: path)
        let hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { break }
            buffer.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        return hash.finalize().hexString
    }
}
