import AsyncHTTPClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import Synchronization
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// A resumable tus 1.0 upload of a file: created once, then sent from the offset the
/// relay reports (HEAD) until it has every byte. The file is read in chunks as the
/// connection takes them, never held in memory; a dropped connection resumes.
///
/// The file may still be being written (an `UploadFeed` that is not finished): the
/// upload is then created with `Upload-Defer-Length: 1` (tus creation-defer-length), the
/// body follows the file as it grows, and the length is declared with `Upload-Length` on
/// the PATCH that ends it, once the writer knows it.
public struct TusUploader: Sendable {
    public let client: RelayClient
    /// Attempts after a dropped connection or a busy upload, each after a backoff.
    public var retries: Int
    public var backoff: Backoff

    public init(client: RelayClient, retries: Int = 8, backoff: Backoff = Backoff(base: 0.2, cap: 5)) {
        self.client = client
        self.retries = retries
        self.backoff = backoff
    }

    static let tus = ("Tus-Resumable", TusProtocol.version)

    /// Creates an upload of `length` bytes, or (nil) of a length declared later; returns
    /// its path (`/v1/uploads/ID`).
    public func create(length: Int64?) async throws -> String {
        let declared = length.map { ("Upload-Length", "\($0)") } ?? ("Upload-Defer-Length", "1")
        let request = client.request(.POST, RelayPaths.uploads, headers: [Self.tus, declared, ("Content-Length", "0")])
        let response = try await client.execute(request, timeout: .seconds(60))
        _ = try await client.collect(response)
        guard let location = response.headers.first(name: "Location"), location.hasPrefix(RelayPaths.uploads + "/") else {
            throw RelayClientError.badAnswer(url: client.baseURL + RelayPaths.uploads, reason: "no Location for the new upload")
        }
        return location
    }

    /// Where the upload stands on the relay: its offset, and its length (nil while deferred).
    public func status(_ location: String) async throws -> (offset: Int64, length: Int64?) {
        let response = try await client.execute(client.request(.HEAD, location, headers: [Self.tus]), timeout: .seconds(60))
        _ = try await client.collect(response)
        guard let text = response.headers.first(name: "Upload-Offset"), let offset = Int64(text) else {
            throw RelayClientError.badAnswer(url: client.baseURL + location, reason: "no Upload-Offset")
        }
        return (offset, response.headers.first(name: "Upload-Length").flatMap { Int64($0) })
    }

    /// tus termination: the relay drops the upload and its bytes.
    public func terminate(_ location: String) async throws {
        let response = try await client.execute(client.request(.DELETE, location, headers: [Self.tus]), timeout: .seconds(60))
        _ = try await client.collect(response)
    }

    /// The upload's offset on the relay.
    public func offset(_ location: String) async throws -> Int64 { try await status(location).offset }

    /// Sends `path` (exactly `length` bytes) to the upload at `location`, resuming from
    /// the relay's offset; `progress` gets the bytes the relay has.
    public func send(file path: String, length: Int64, to location: String,
                     progress: (@Sendable (Int64) -> Void)? = nil) async throws {
        try await send(UploadFeed(path: path, length: length), to: location, progress: progress)
    }

    /// Sends what `feed` has and will have to the upload at `location`, resuming from the
    /// relay's offset, until the relay has every byte and knows the length.
    public func send(_ feed: UploadFeed, to location: String, progress: (@Sendable (Int64) -> Void)? = nil) async throws {
        var failures = 0
        var known: (offset: Int64, length: Int64?)? = nil
        while true {
            do {
                let status: (offset: Int64, length: Int64?)
                if let given = known {
                    status = given
                } else {
                    status = try await self.status(location)
                }
                known = nil
                progress?(status.offset)
                if let length = status.length, status.offset >= length { return }
                // The length goes with the first PATCH that starts once it is known.
                let length = feed.length
                let declaring = status.length == nil && length != nil
                let end = try await patch(feed, from: status.offset, length: length, declare: declaring, location: location,
                                          progress: progress)
                if let whole = feed.length, end >= whole {
                    if status.length != nil || declaring { return }
                    // Every byte arrived in a PATCH that began before the end was known:
                    // one more, empty, declares the length.
                    known = (end, nil)
                }
                if end > status.offset { failures = 0 }
            } catch let error as RelayClientError {
                // A dropped connection; a PATCH the relay still thinks is running (409); a
                // relay that is busy (429, 503); or a proxy whose relay died or stalled
                // (502, 504: behind a load balancer the next try reaches another instance).
                let retryable: Bool
                switch error {
                case .unreachable: retryable = true
                case .rejected(let status, _, _): retryable = [409, 429, 502, 503, 504].contains(status)
                default: retryable = false
                }
                failures += 1
                guard retryable, failures <= retries else { throw error }
                try await Task.sleep(for: .seconds(backoff.delay(attempt: failures)))
            }
        }
    }

    /// One PATCH from `start`: to the end when the feed's length is known when it starts
    /// (then carrying `Upload-Length` if `declare`), else following the file as it grows
    /// (a chunked body, ending where the writer ends). Returns the relay's new offset.
    func patch(_ feed: UploadFeed, from start: Int64, length: Int64?, declare: Bool, location: String,
               progress: (@Sendable (Int64) -> Void)?) async throws -> Int64 {
        var headers = [Self.tus, ("Upload-Offset", "\(start)"), ("Content-Type", TusProtocol.offsetContentType)]
        if declare, let length { headers.append(("Upload-Length", "\(length)")) }
        var request = client.request(.PATCH, location, headers: headers)
        let reader = try ChunkReader(feed: feed, start: start, end: length, progress: progress)
        let stream = AsyncThrowingStream<ByteBuffer, Error>(unfolding: { try await reader.next() })
        request.body = .stream(stream, length: length.map { .known($0 - start) } ?? .unknown)
        let response = try await client.execute(request, timeout: .hours(24))
        _ = try await client.collect(response)
        guard let text = response.headers.first(name: "Upload-Offset"), let end = Int64(text) else {
            throw RelayClientError.badAnswer(url: client.baseURL + location, reason: "no Upload-Offset after PATCH")
        }
        progress?(end)
        return end
    }
}

/// A file to upload, complete or still being written by another thread: the writer
/// reports how far it got (`advance(to:)`) and, at the end, the length (`finish(length:)`)
/// or why it stopped (`fail(_:)`); the upload reads what is written and waits for more.
public final class UploadFeed: Sendable {
    struct State {
        var written: Int64 = 0
        var length: Int64?
        var failure: (any Error)?
    }
    private let state: Mutex<State>
    public let path: String

    /// A file being written at `path`.
    public init(growing path: String) {
        self.path = path
        state = Mutex(State())
    }

    /// The complete file at `path`, `length` bytes.
    public init(path: String, length: Int64) {
        self.path = path
        state = Mutex(State(written: length, length: length))
    }

    public func advance(to count: Int64) { state.withLock { $0.written = max($0.written, count) } }

    public func finish(length: Int64) {
        state.withLock {
            $0.written = length
            $0.length = length
        }
    }

    /// The writer failed: the upload's next wait throws `error`.
    public func fail(_ error: any Error) { state.withLock { $0.failure = $0.failure ?? error } }

    /// The whole length, once the writer finished.
    public var length: Int64? { state.withLock { $0.length } }

    /// Waits until there is something past `position`, or the end; returns the bytes
    /// written so far and the length if known.
    func wait(beyond position: Int64) async throws -> (written: Int64, length: Int64?) {
        while true {
            let now = try state.withLock { state -> (Int64, Int64?) in
                if let failure = state.failure { throw failure }
                return (state.written, state.length)
            }
            if now.0 > position || now.1 != nil { return now }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

/// Reads a feed from a position in chunks, one per call (the PATCH body's source),
/// waiting for bytes not yet written; ends at the feed's length.
final class ChunkReader: @unchecked Sendable {
    // Sendable: AsyncThrowingStream(unfolding:) calls next() one call at a time.
    let fd: Int32
    let feed: UploadFeed
    var position: Int64
    /// The length this request ends at if it was known when it started (its Content-Length).
    let end: Int64?
    let progress: (@Sendable (Int64) -> Void)?
    static let chunk = 1 << 20

    init(feed: UploadFeed, start: Int64, end: Int64?, progress: (@Sendable (Int64) -> Void)?) throws {
        fd = open(feed.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RelayClientError.badAnswer(url: feed.path, reason: "cannot open the spooled bundle: \(String(cString: strerror(errno)))") }
        self.feed = feed
        position = start
        self.end = end
        self.progress = progress
    }

    deinit { close(fd) }

    func next() async throws -> ByteBuffer? {
        if let end, position >= end { return nil }
        let (written, length) = try await feed.wait(beyond: position)
        let limit = end ?? written
        guard position < min(limit, written) else {
            if let length, position >= length { return nil }
            throw RelayClientError.badAnswer(url: feed.path, reason: "the spooled bundle ended early")
        }
        let want = Int(min(Int64(Self.chunk), min(limit, written) - position))
        var buffer = ByteBuffer()
        buffer.reserveCapacity(want)
        let n = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { pointer in
            max(0, pread(fd, pointer.baseAddress!, want, off_t(position)))
        }
        guard n > 0 else { throw RelayClientError.badAnswer(url: feed.path, reason: "the spooled bundle ended early") }
        position += Int64(n)
        progress?(position)
        return buffer
    }
}

/// Exponential backoff with jitter: attempt n waits a random time between half and all
/// of min(cap, base·2ⁿ⁻¹) seconds, so many clients don't come back at once.
public struct Backoff: Sendable {
    public var base: Double
    public var cap: Double
    public init(base: Double, cap: Double) {
        self.base = base
        self.cap = cap
    }

    public func ceiling(attempt: Int) -> Double {
        min(cap, base * pow(2, Double(max(0, attempt - 1))))
    }

    public func delay(attempt: Int) -> Double {
        let top = ceiling(attempt: attempt)
        return top / 2 + Double.random(in: 0...(top / 2))
    }
}
