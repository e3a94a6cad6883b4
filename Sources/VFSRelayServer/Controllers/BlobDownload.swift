import Foundation
import HTTPTypes
import Hummingbird
import Prometheus
import VFSRelayProtocol

/// Serves a blob with HTTP Range (RFC 9110 §14, `HeaderNumbers.rangeAnswer`: one
/// satisfiable range is 206; a set of several is answered with the whole blob, 200, as a
/// server may ignore Range; another unit is ignored; none satisfiable, or no valid range,
/// 416) and a strong ETag (its SHA-256, or its id while its digest is deferred: a blob's
/// bytes never change under its id), so downloads resume and stream in chunks.
struct BlobDownload {
    let blobs: any BlobStore
    let sent: Counter

    /// The bytes read from the blob and handed to the channel at a time, each one async
    /// write (a quarter of the writes 64 KiB took; the relay's CPU for serving 1 GiB was
    /// the same within noise with 64 KiB, 256 KiB and 1 MiB: the kernel's copies dominate).
    static let chunk = 256 * 1024

    func response(_ blob: BlobRef, request: Request) async throws -> Response {
        let etag = blob.etag
        var headers: HTTPFields = [
            .contentType: "application/octet-stream", .eTag: etag, .acceptRanges: "bytes", .cacheControl: "private, no-store",
        ]
        var range: Range<Int64> = 0..<blob.size
        var status = HTTPResponse.Status.ok
        // If-Range with another ETag: the client's partial copy is stale, send it all.
        let ifRangeMatches = request.headers[.ifRange].map { blob.validates($0) } ?? true
        if let header = request.headers[.range], ifRangeMatches {
            switch HeaderNumbers.rangeAnswer(header, size: blob.size) {
            case .ranges(let ranges) where ranges.count == 1:
                range = ranges[0]
                status = .partialContent
                headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(blob.size)"
            case .whole, .ranges:
                // Another unit, an empty blob's suffix, or several ranges (no multipart/byteranges): all of it.
                break
            case .unsatisfiable:
                throw RelayError(.rangeNotSatisfiable, .rangeNotSatisfiable, "range \"\(header)\" is outside the \(blob.size) bytes",
                                 headers: [.contentRange: "bytes */\(blob.size)"])
            }
        }
        let blobs = self.blobs
        let id = blob.id
        let span = range
        // While the answer can still be 503 (a store that does not answer), not a cut 200.
        try await blobs.probe(blob: id)
        let sent = self.sent
        let body = ResponseBody(contentLength: Int(span.count)) { writer in
            try await blobs.read(blob: id, range: span, chunk: Self.chunk) { chunk in
                try await writer.write(chunk)
                sent.increment(by: Int64(chunk.readableBytes))
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }
}

/// What a streaming transfer's content follows: its upload, while it runs, then its blob.
/// One for the relay (`buildRouter`); each download names its transfer, device and upload.
struct UploadFollower: Sendable {
    let store: any StreamStateRepository
    let hub: EventHub
    /// How often a reader looks again without being woken (a notification lost with a
    /// database connection loses nothing but this much time): the relay's event poll.
    let recheck: Duration
}

extension BlobDownload {
    /// The content of a transfer whose upload still runs: the bytes the relay holds
    /// (synced, recorded), then, woken by each PATCH's recorded offset (on any relay
    /// instance, through the store's notifications), those that arrive, until the upload
    /// ends and is the transfer's blob. No length and no ETag are known yet: the body is
    /// chunked, and `Range: bytes=N-` (only that form) resumes it from byte N (206). An
    /// upload abandoned (terminated, expired) or a copy no longer waiting ends the body
    /// with an error (the connection is cut before its last chunk), so the reader never
    /// takes a part for the whole; asked again, the content is 404.
    func following(_ follower: UploadFollower, transfer: String, device: String, upload: String, request: Request) throws -> Response {
        var start: Int64 = 0
        var status = HTTPResponse.Status.ok
        // Another unit is ignored (200 from the start), as is a set of several ranges; of
        // one range only `bytes=N-` (or an end past any length) can be answered before the
        // length is known.
        if let header = request.headers[.range], request.headers[.ifRange] == nil {
            switch HeaderNumbers.rangeHeader(header) {
            case .otherUnit:
                break
            case .bytes(let specs) where specs.count > 1:
                break
            case .bytes(let specs) where Self.resumes(specs[0]) != nil:
                start = Self.resumes(specs[0])!
                status = .partialContent
            default:
                throw RelayError(.rangeNotSatisfiable, .rangeNotSatisfiable,
                                 "transfer \"\(transfer)\" is still uploading: resume it with Range: bytes=N-")
            }
        }
        let headers: HTTPFields = [.contentType: "application/octet-stream", .cacheControl: "private, no-store"]
        let (blobs, sent, from) = (self.blobs, self.sent, start)
        let body = ResponseBody { writer in
            let channel = StoreRows.uploadChannel(upload)
            guard let (signals, continuation, token) = follower.hub.subscribe(device: channel) else { return }
            defer { follower.hub.unsubscribe(device: channel, id: token) }
            let ticker = Task {
                while !Task.isCancelled {
                    try await Task.sleep(for: follower.recheck)
                    continuation.yield(.keepAlive)
                }
            }
            defer { ticker.cancel() }
            var wakes = signals.makeAsyncIterator()
            var position = from
            func send(_ chunk: ByteBuffer) async throws {
                try await writer.write(chunk)
                sent.increment(by: Int64(chunk.readableBytes))
                position += Int64(chunk.readableBytes)
            }
            while true {
                switch try await follower.store.streamState(transfer: transfer, device: device) {
                case .uploading(let offset) where offset > position:
                    do {
                        try await blobs.read(upload: upload, range: position..<offset, chunk: Self.chunk, into: send)
                    } catch BlobStoreError.missing {
                        // It ended (and became the blob) since the state was read, or this
                        // instance cannot see its file (an object store's uploads are staged
                        // where they arrive): look again once woken, never in a busy loop.
                        guard let signal = await wakes.next(), signal != .close else {
                            throw RelayError.conflict("the relay is stopping")
                        }
                    }
                case .uploading:
                    guard let signal = await wakes.next(), signal != .close else {
                        throw RelayError.conflict("the relay is stopping")
                    }
                case .finished(let blob):
                    if position < blob.size {
                        try await blobs.read(blob: blob.id, range: position..<blob.size, chunk: Self.chunk, into: send)
                    }
                    try await writer.finish(nil)
                    return
                case .gone:
                    throw RelayError.notFound("transfer \"\(transfer)\" was abandoned before its upload ended")
                }
            }
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Where a range of a content whose length is not known yet starts: `N-`, or `N-M`
    /// with an M no length reaches; nil for a suffix or a closed range.
    static func resumes(_ spec: HeaderNumbers.ByteRangeSpec) -> Int64? {
        guard case .from(let first, let last) = spec, (last ?? .max) >= .max - 1 else { return nil }
        return first
    }
}

extension BlobRef {
    /// The strong ETag of a blob: its SHA-256, or its id while the digest is deferred.
    var etag: String { "\"\(sha256.isEmpty ? id : sha256)\"" }

    /// Whether `If-Range` names this blob: its ETag, its id (the ETag it had before its
    /// digest was worked out) or its SHA-256.
    func validates(_ ifRange: String) -> Bool {
        ifRange == "\"\(id)\"" || (!sha256.isEmpty && ifRange == "\"\(sha256)\"")
    }
}
