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
/// The bytes may still be being written (an `UploadWindow` that is not finished): the
/// upload is then created with `Upload-Defer-Length: 1` (tus creation-defer-length), the
/// body follows the writer, and the length is declared with `Upload-Length` on the PATCH
/// that ends it, once the writer knows it.
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
    /// its path (`/v1/uploads/ID`). `deferDigest`: the relay does not hash it as it
    /// arrives (`DeferredDigest`; for a transfer, whose receivers check it end to end).
    public func create(length: Int64?, deferDigest: Bool = false) async throws -> String {
        let declared = length.map { ("Upload-Length", "\($0)") } ?? ("Upload-Defer-Length", "1")
        let metadata = deferDigest ? [("Upload-Metadata", DeferredDigest.metadata)] : []
        let (response, _) = try await client.exchange(.once) {
            client.request(.POST, RelayPaths.uploads, headers: [Self.tus, declared, ("Content-Length", "0")] + metadata)
        }
        guard let location = response.headers.first(name: "Location"), location.hasPrefix(RelayPaths.uploads + "/") else {
            throw RelayClientError.badAnswer(url: client.baseURL + RelayPaths.uploads, reason: "no Location for the new upload")
        }
        return location
    }

    /// Where the upload stands on the relay: its offset, and its length (nil while deferred).
    public func status(_ location: String) async throws -> (offset: Int64, length: Int64?) {
        let (response, _) = try await client.exchange(.idempotent) { client.request(.HEAD, location, headers: [Self.tus]) }
        guard let text = response.headers.first(name: "Upload-Offset"), let offset = Int64(text) else {
            throw RelayClientError.badAnswer(url: client.baseURL + location, reason: "no Upload-Offset")
        }
        return (offset, response.headers.first(name: "Upload-Length").flatMap { Int64($0) })
    }

    /// tus termination: the relay drops the upload and its bytes.
    public func terminate(_ location: String) async throws {
        _ = try await client.exchange(.once) { client.request(.DELETE, location, headers: [Self.tus]) }
    }

    /// The upload's offset on the relay.
    public func offset(_ location: String) async throws -> Int64 { try await status(location).offset }

    /// Sends `path` (exactly `length` bytes) to the upload at `location`, resuming from
    /// the relay's offset; `progress` gets the bytes the relay has.
    /// (A spooled bundle may hold only its bytes from `base` on: the relay must have the others.)
    public func send(file path: String, length: Int64, base: Int64 = 0, to location: String,
                     progress: (@Sendable (Int64) -> Void)? = nil) async throws {
        try await send(UploadFile(path: path, length: length, base: base), to: location, progress: progress)
    }

    /// Sends what `feed` has and will have to the upload at `location`, resuming from the
    /// relay's offset, until the relay has every byte and knows the length. A source with
    /// a `segment` goes up in PATCHes of at most that many bytes: the relay's answer to
    /// each (its offset, synced) tells the source which bytes it no longer needs to keep.
    /// `confirmed` gets each offset the relay reports (it holds those bytes, synced).
    public func send(_ feed: some UploadSource, to location: String, progress: (@Sendable (Int64) -> Void)? = nil,
                     confirmed: (@Sendable (Int64) -> Void)? = nil) async throws {
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
                guard status.offset >= feed.firstKept else {
                    throw RelayClientError.badAnswer(url: client.baseURL + location,
                                                     reason: "the upload is at byte \(status.offset), but the bytes before \(feed.firstKept) were confirmed and are not kept")
                }
                feed.acknowledge(status.offset)
                confirmed?(status.offset)
                progress?(status.offset)
                if let length = status.length, status.offset >= length { return }
                // The length goes with the first PATCH that starts once it is known.
                let length = feed.length
                let declaring = status.length == nil && length != nil
                let stop = feed.segment.map { status.offset + $0 }
                let end = try await patch(feed, from: status.offset, length: length, stop: stop, declare: declaring,
                                          location: location, progress: progress)
                feed.acknowledge(end)
                confirmed?(end)
                if let whole = feed.length, end >= whole {
                    if status.length != nil || declaring { return }
                    // Every byte arrived in a PATCH that began before the end was known:
                    // one more, empty, declares the length.
                    known = (end, nil)
                } else if end > status.offset, stop != nil {
                    // A segment ended: the next one starts at the offset the relay answered.
                    known = (end, declaring ? length : status.length)
                }
                if end > status.offset {
                    failures = 0
                    client.retry.advanced()
                }
            } catch {
                // A dropped connection; a PATCH the relay still thinks is running (409); a
                // relay that is busy or full (429, 503, 507); or a proxy whose relay died or
                // stalled (502, 504: behind a load balancer the next try reaches another
                // instance): a few quick tries, then as long as the client's --retry-for allows.
                failures += 1
                try await client.retry.pause(after: error, failure: failures, quick: retries, quickBackoff: backoff, .resumable)
            }
        }
    }

    /// One PATCH from `start`: to the end when the feed's length is known when it starts
    /// (then carrying `Upload-Length` if `declare`), else following the file as it grows
    /// (a chunked body, ending where the writer ends); never past `stop`. Returns the
    /// relay's new offset.
    func patch(_ feed: some UploadSource, from start: Int64, length: Int64?, stop: Int64?, declare: Bool, location: String,
               progress: (@Sendable (Int64) -> Void)?) async throws -> Int64 {
        var headers = [Self.tus, ("Upload-Offset", "\(start)"), ("Content-Type", TusProtocol.offsetContentType)]
        if declare, let length { headers.append(("Upload-Length", "\(length)")) }
        var request = client.request(.PATCH, location, headers: headers)
        // The body's end when it is known now: the length, or the segment's end before it.
        let end = length.map { whole in stop.map { min($0, whole) } ?? whole }
        let reader = try ChunkReader(feed: feed, start: start, end: end, stop: stop, progress: progress)
        let stream = AsyncThrowingStream<ByteBuffer, Error>(unfolding: { try await reader.next() })
        request.body = .stream(stream, length: end.map { .known($0 - start) } ?? .unknown)
        let response = try await client.execute(request, timeout: .hours(24))
        _ = try await client.collect(response)
        guard let text = response.headers.first(name: "Upload-Offset"), let end = Int64(text) else {
            throw RelayClientError.badAnswer(url: client.baseURL + location, reason: "no Upload-Offset after PATCH")
        }
        progress?(end)
        return end
    }
}

/// What a tus upload sends: bytes that are, or will be, written somewhere (a file, or
/// memory), and the length once it is known.
public protocol UploadSource: AnyObject, Sendable {
    /// The whole length, once the writer finished.
    var length: Int64? { get }
    /// The most bytes one PATCH carries (nil: as many as there are).
    var segment: Int64? { get }
    /// The first byte it still has (those before were confirmed by the relay).
    var firstKept: Int64 { get }
    /// Waits until there is something past `position`, or the end; returns the bytes
    /// written so far and the length if known.
    func wait(beyond position: Int64) async throws -> (written: Int64, length: Int64?)
    /// A reader of the bytes written (one per request).
    func cursor() throws -> any UploadCursor
    /// The relay holds the first `offset` bytes durably: they need not be kept any longer.
    func acknowledge(_ offset: Int64)
}

/// Reads written bytes of an upload source.
public protocol UploadCursor: AnyObject {
    /// Up to `count` bytes at `position` (some, unless `position` is past what is written).
    func read(at position: Int64, count: Int) throws -> ByteBuffer
}

/// A complete file to upload, `length` bytes, of which it holds those from `base` on
/// (a spooled bundle that kept only what the relay lacked). (A source that is still
/// being written is an `UploadWindow`.)
final class UploadFile: UploadSource {
    let path: String
    let base: Int64
    let total: Int64

    init(path: String, length: Int64, base: Int64 = 0) {
        self.path = path
        self.base = base
        total = length
    }

    var length: Int64? { total }

    var segment: Int64? { nil }

    var firstKept: Int64 { base }

    func acknowledge(_ offset: Int64) {}

    func cursor() throws -> any UploadCursor { try FileCursor(path: path, base: base) }

    /// Everything is written already.
    func wait(beyond position: Int64) async throws -> (written: Int64, length: Int64?) { (total, total) }
}

/// Reads a file (the spooled bundle) at any position.
final class FileCursor: UploadCursor {
    let fd: Int32
    let path: String
    let base: Int64

    init(path: String, base: Int64) throws {
        self.base = base
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RelayClientError.badAnswer(url: path, reason: "cannot open the spooled bundle: \(String(cString: strerror(errno)))") }
        self.path = path
    }

    deinit { close(fd) }

    func read(at position: Int64, count: Int) throws -> ByteBuffer {
        guard position >= base else {
            throw RelayClientError.badAnswer(url: path, reason: "the relay went back to byte \(position); the spooled bundle starts at \(base)")
        }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(count)
        let n = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { pointer in
            max(0, pread(fd, pointer.baseAddress!, count, off_t(position)))
        }
        guard n > 0 else { throw RelayClientError.badAnswer(url: path, reason: "the spooled bundle ended early") }
        return buffer
    }
}

/// Reads a source from a position in chunks, one per call (the PATCH body's source),
/// waiting for bytes not yet written; ends at the source's length, or at `stop`.
final class ChunkReader: @unchecked Sendable {
    // Sendable: AsyncThrowingStream(unfolding:) calls next() one call at a time.
    let cursor: any UploadCursor
    let feed: any UploadSource
    var position: Int64
    /// Where this request ends if it was known when it started (its Content-Length).
    let end: Int64?
    /// Where it ends at the latest (a segment's end).
    let stop: Int64?
    let progress: (@Sendable (Int64) -> Void)?
    static let chunk = 1 << 20

    init(feed: any UploadSource, start: Int64, end: Int64?, stop: Int64?, progress: (@Sendable (Int64) -> Void)?) throws {
        cursor = try feed.cursor()
        self.feed = feed
        position = start
        self.end = end
        self.stop = stop
        self.progress = progress
    }

    func next() async throws -> ByteBuffer? {
        if let end, position >= end { return nil }
        if let stop, position >= stop { return nil }
        let (written, length) = try await feed.wait(beyond: position)
        let limit = min(end ?? written, written, stop ?? Int64.max)
        guard position < limit else {
            if let length, position >= length { return nil }
            throw RelayClientError.badAnswer(url: "the upload", reason: "the bundle ended early")
        }
        let want = Int(min(Int64(Self.chunk), limit - position))
        let buffer = try cursor.read(at: position, count: want)
        position += Int64(buffer.readableBytes)
        progress?(position)
        return buffer
    }
}
