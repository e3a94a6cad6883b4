import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import VFSRelayProtocol

/// Serves a blob with HTTP Range (one range: 206, or 416 past the end) and a strong
/// ETag (its SHA-256), so downloads resume and stream in chunks.
struct BlobDownload {
    let blobs: any BlobStore
    let sent: Counter

    /// The bytes read from the blob and handed to the channel at a time, each one async
    /// write (a quarter of the writes 64 KiB took; the relay's CPU for serving 1 GiB was
    /// the same within noise with 64 KiB, 256 KiB and 1 MiB: the kernel's copies dominate).
    static let chunk = 256 * 1024

    func response(_ blob: BlobRef, request: Request) throws -> Response {
        let etag = "\"\(blob.sha256)\""
        var headers: HTTPFields = [
            .contentType: "application/octet-stream", .eTag: etag, .acceptRanges: "bytes", .cacheControl: "private, no-store",
        ]
        var range: Range<Int64> = 0..<blob.size
        var status = HTTPResponse.Status.ok
        // If-Range with another ETag: the client's partial copy is stale, send it all.
        let ifRangeMatches = request.headers[.ifRange].map { $0 == etag } ?? true
        if let header = request.headers[.range], ifRangeMatches {
            guard let parsed = HeaderNumbers.byteRange(header, size: blob.size) else {
                throw RelayError(.rangeNotSatisfiable, .rangeNotSatisfiable, "range \"\(header)\" is outside the \(blob.size) bytes",
                                 headers: [.contentRange: "bytes */\(blob.size)"])
            }
            range = parsed
            status = .partialContent
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(blob.size)"
        }
        let blobs = self.blobs
        let id = blob.id
        let span = range
        let sent = self.sent
        let body = ResponseBody(contentLength: Int(span.count)) { writer in
            try await blobs.read(blob: id, range: span, chunk: Self.chunk) { chunk in
                try await writer.write(chunk)
                sent.increment(by: chunk.readableBytes)
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }
}
