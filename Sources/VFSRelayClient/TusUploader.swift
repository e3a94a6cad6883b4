import AsyncHTTPClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// A resumable tus 1.0 upload of a file: created once, then sent from the offset the
/// relay reports (HEAD) until it has every byte. The file is read in chunks as the
/// connection takes them, never held in memory; a dropped connection resumes.
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

    /// Creates an upload of `length` bytes; returns its path (`/v1/uploads/ID`).
    public func create(length: Int64) async throws -> String {
        let request = client.request(.POST, RelayPaths.uploads, headers: [Self.tus, ("Upload-Length", "\(length)"), ("Content-Length", "0")])
        let response = try await client.execute(request, timeout: .seconds(60))
        _ = try await client.collect(response)
        guard let location = response.headers.first(name: "Location"), location.hasPrefix(RelayPaths.uploads + "/") else {
            throw RelayClientError.badAnswer(url: client.baseURL + RelayPaths.uploads, reason: "no Location for the new upload")
        }
        return location
    }

    /// The upload's offset on the relay.
    public func offset(_ location: String) async throws -> Int64 {
        let response = try await client.execute(client.request(.HEAD, location, headers: [Self.tus]), timeout: .seconds(60))
        _ = try await client.collect(response)
        guard let text = response.headers.first(name: "Upload-Offset"), let offset = Int64(text) else {
            throw RelayClientError.badAnswer(url: client.baseURL + location, reason: "no Upload-Offset")
        }
        return offset
    }

    /// Sends `path` (exactly `length` bytes) to the upload at `location`, resuming from
    /// the relay's offset; `progress` gets the bytes the relay has.
    public func send(file path: String, length: Int64, to location: String,
                     progress: (@Sendable (Int64) -> Void)? = nil) async throws {
        var failures = 0
        while true {
            do {
                let start = try await offset(location)
                progress?(start)
                if start >= length { return }
                let end = try await patch(path, from: start, length: length, location: location, progress: progress)
                if end >= length { return }
                failures = 0
            } catch let error as RelayClientError {
                // A dropped connection, or a PATCH the relay still thinks is running.
                let retryable: Bool
                switch error {
                case .unreachable: retryable = true
                case .rejected(let status, _, _): retryable = status == 409 || status == 503
                default: retryable = false
                }
                failures += 1
                guard retryable, failures <= retries else { throw error }
                try await Task.sleep(for: .seconds(backoff.delay(attempt: failures)))
            }
        }
    }

    func patch(_ path: String, from start: Int64, length: Int64, location: String,
               progress: (@Sendable (Int64) -> Void)?) async throws -> Int64 {
        let reader = try ChunkReader(path: path, start: start, end: length, progress: progress)
        var request = client.request(.PATCH, location, headers: [
            Self.tus, ("Upload-Offset", "\(start)"), ("Content-Type", TusProtocol.offsetContentType),
        ])
        let stream = AsyncThrowingStream<ByteBuffer, Error>(unfolding: { try reader.next() })
        request.body = .stream(stream, length: .known(length - start))
        let response = try await client.execute(request, timeout: .hours(24))
        _ = try await client.collect(response)
        guard let text = response.headers.first(name: "Upload-Offset"), let end = Int64(text) else {
            throw RelayClientError.badAnswer(url: client.baseURL + location, reason: "no Upload-Offset after PATCH")
        }
        progress?(end)
        return end
    }
}

/// Reads a file's byte range in chunks, one per call (the PATCH body's source).
final class ChunkReader: @unchecked Sendable {
    // Sendable: AsyncThrowingStream(unfolding:) calls next() one call at a time.
    let fd: Int32
    var position: Int64
    let end: Int64
    let progress: (@Sendable (Int64) -> Void)?
    static let chunk = 256 * 1024

    init(path: String, start: Int64, end: Int64, progress: (@Sendable (Int64) -> Void)?) throws {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RelayClientError.badAnswer(url: path, reason: "cannot open the spooled bundle: \(String(cString: strerror(errno)))") }
        position = start
        self.end = end
        self.progress = progress
    }

    deinit { close(fd) }

    func next() throws -> ByteBuffer? {
        guard position < end else { return nil }
        let want = Int(min(Int64(Self.chunk), end - position))
        var buffer = ByteBuffer()
        buffer.reserveCapacity(want)
        let n = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { pointer in
            max(0, pread(fd, pointer.baseAddress!, want, off_t(position)))
        }
        guard n > 0 else { throw RelayClientError.badAnswer(url: "spool", reason: "the spooled bundle ended early") }
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
