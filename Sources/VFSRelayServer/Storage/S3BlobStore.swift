import Crypto
import Foundation
import NIOCore
import VFSObjectStore
#if canImport(Glibc)
import Glibc
#endif

/// Where `--blobs s3://BUCKET[/PREFIX]?endpoint=URL&region=R` keeps blobs: objects
/// `PREFIX/blobs/ID` in an S3-compatible store, path-style.
public struct S3BlobLocation: Sendable, Equatable {
    public var bucket: String
    /// "" or a prefix ending in "/".
    public var prefix: String
    public var endpoint: URL
    public var region: String

    /// Parses the `s3://` form; nil with a reason for anything else.
    public static func parse(_ text: String) -> Result<S3BlobLocation, ParseError> {
        guard text.hasPrefix("s3://"), let components = URLComponents(string: text) else {
            return .failure(ParseError("write s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION"))
        }
        guard let bucket = components.host, bucket.count >= 3 else {
            return .failure(ParseError("a bucket name has at least 3 characters: s3://BUCKET"))
        }
        var items: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard ["endpoint", "region"].contains(item.name), let value = item.value, !value.isEmpty else {
                return .failure(ParseError("unknown or empty setting \"\(item.name)\" (endpoint=URL and region=REGION are known)"))
            }
            items[item.name] = value
        }
        guard let endpointText = items["endpoint"], let endpoint = URL(string: endpointText),
              ["http", "https"].contains(endpoint.scheme ?? ""), endpoint.host?.isEmpty == false else {
            return .failure(ParseError("endpoint=URL is needed: http(s)://HOST[:PORT] of the S3 service"))
        }
        let path = components.path.split(separator: "/").joined(separator: "/")
        return .success(S3BlobLocation(bucket: bucket, prefix: path.isEmpty ? "" : path + "/", endpoint: endpoint,
                                       region: items["region"] ?? "us-east-1"))
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    public var description: String { "s3://\(bucket)/\(prefix)" }
}

extension BlobStoreError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .tooLong: "the upload is longer than allowed"
        case .noSpace: "no space left on the blob store's disk"
        case .missing(let id): "no blob or upload \"\(id)\""
        case .io(let message): message
        }
    }
}

/// `--blobs s3://…` and its credentials (from the environment or `--s3-credentials`, never argv).
public struct ObjectStoreSettings: Sendable {
    public var location: S3BlobLocation
    public var credentials: S3Credentials

    public init(location: S3BlobLocation, credentials: S3Credentials) {
        self.location = location
        self.credentials = credentials
    }
}

extension S3Credentials {
    /// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), if both are set.
    public static func environment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> S3Credentials? {
        guard let key = environment["AWS_ACCESS_KEY_ID"], !key.isEmpty,
              let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else { return nil }
        return S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// A credentials file as the AWS tools write it (`aws_access_key_id = …` and
    /// `aws_secret_access_key = …`, in its `[default]` section or before any section).
    public static func file(_ text: String) -> S3Credentials? {
        var section = "default"
        var values: [String: String] = [:]
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                continue
            }
            guard section == "default", let equals = line.firstIndex(of: "=") else { continue }
            values[line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        guard let key = values["aws_access_key_id"], !key.isEmpty, let secret = values["aws_secret_access_key"], !secret.isEmpty else { return nil }
        return S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: values["aws_session_token"])
    }
}

/// Blobs as objects in an S3-compatible store: a finished upload becomes the object
/// `PREFIX/blobs/ID` (a multipart upload of parts of `partSize`), downloads are ranged
/// GETs streamed as they arrive, deletes and gc delete objects. Uploads in progress are
/// staged in `staging` (a local FileBlobStore) until they finish.
public struct S3BlobStore: BlobStore {
    public let location: S3BlobLocation
    let client: S3Client
    let staging: FileBlobStore
    /// The part size of the multipart uploads that store blobs (S3's least is 5 MiB).
    var partSize = 16 << 20

    public init(_ settings: ObjectStoreSettings, staging: FileBlobStore) {
        location = settings.location
        client = S3Client(endpoint: location.endpoint, bucket: location.bucket, region: location.region, credentials: settings.credentials)
        self.staging = staging
    }

    func key(_ blob: String) -> String { "\(location.prefix)blobs/\(blob)" }
    var blobPrefix: String { "\(location.prefix)blobs/" }

    /// Runs an S3 request; what goes wrong becomes a BlobStoreError.
    func s3<T>(_ what: String, blob: String? = nil, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as S3Error where error.code == "NoSuchKey" && blob != nil {
            throw BlobStoreError.missing(blob!)
        } catch let error as BlobStoreError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw BlobStoreError.io("\(what) in \(location.description): \(error)")
        }
    }

    public func createUpload(_ id: String) async throws { try staging.createUpload(id) }

    public func append<Body: AsyncSequence & Sendable>(_ body: Body, upload: String, offset: Int64, limit: Int64,
                                                       progress: @escaping @Sendable (Int64) async throws -> Void) async throws -> Int64
        where Body.Element == ByteBuffer {
        try await staging.append(body, upload: upload, offset: offset, limit: limit, progress: progress)
    }

    public func digest(upload: String, length: Int64) async throws -> String { try staging.digest(upload: upload, length: length) }

    public func deleteUpload(_ id: String) async { staging.deleteUpload(id) }

    public func uploads(olderThan date: Date) async throws -> Set<String> { staging.uploads(olderThan: date) }

    /// An upload is staged on this instance's disk until it ends: a streaming transfer is
    /// read through the instance that receives its upload.
    public func read(upload: String, range: Range<Int64>, chunk: Int,
                     into write: (ByteBuffer) async throws -> Void) async throws {
        try await staging.read(upload: upload, range: range, chunk: chunk, into: write)
    }

    /// The staged file goes up as the blob's object; the staged file stays until `deleteUpload`.
    public func adopt(upload: String, as blob: String) async throws {
        let fd = open(staging.uploadPath(upload), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BlobStoreError.missing(upload) }
        defer { close(fd) }
        var position: Int64 = 0
        try await store(blob) {
            var buffer = ByteBufferAllocator().buffer(capacity: partSize)
            while buffer.readableBytes < partSize {
                let want = partSize - buffer.readableBytes
                let n = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { raw in
                    max(0, pread(fd, raw.baseAddress!, want, off_t(position)))
                }
                if n == 0 { break }
                position += Int64(n)
            }
            return buffer
        }
    }

    /// Writes the object of `blob` from `next` (each call a part, the last one shorter
    /// or empty): one PUT when it fits one part, else a multipart upload, aborted if
    /// anything fails on the way.
    func store(_ blob: String, next: () async throws -> ByteBuffer) async throws {
        let key = key(blob)
        let first = try await next()
        guard first.readableBytes == partSize else {
            try await s3("cannot store blob \(blob)") { _ = try await client.put(key, first) }
            return
        }
        let uploadID = try await s3("cannot start storing blob \(blob)") { try await client.createMultipartUpload(key) }
        do {
            var parts: [(number: Int, etag: String)] = []
            var part = first
            while part.readableBytes > 0 {
                let number = parts.count + 1
                let body = part
                parts.append((number, try await s3("cannot store part \(number) of blob \(blob)") {
                    try await client.uploadPart(key, uploadID: uploadID, number: number, body)
                }))
                if part.readableBytes < partSize { break }
                part = try await next()
            }
            try await s3("cannot finish blob \(blob)") { try await client.completeMultipartUpload(key, uploadID: uploadID, parts: parts) }
        } catch {
            try? await client.abortMultipartUpload(key, uploadID: uploadID)
            throw error
        }
    }

    public func unadopt(blob: String, upload: String) async { await deleteBlob(blob) }

    /// A failed delete leaves an orphan object, which the next sweep finds and deletes.
    public func deleteBlob(_ id: String) async { try? await client.delete(key(id)) }

    public func blobs(olderThan date: Date) async throws -> Set<String> {
        try await s3("cannot list the blobs") {
            Set(try await client.list(prefix: blobPrefix).filter { $0.lastModified < date }.map { String($0.key.dropFirst(blobPrefix.count)) })
        }
    }

    /// The blob objects there are now, listed once: the sweep's check while the database is locked.
    public func existenceCheck() async throws -> @Sendable (String) -> Bool {
        let listed = try await s3("cannot list the blobs") {
            Set(try await client.list(prefix: blobPrefix).map { String($0.key.dropFirst(blobPrefix.count)) })
        }
        return { listed.contains($0) }
    }

    public func rewrite(blob source: String, replacing: Int64, with header: [UInt8], as blob: String) async throws -> (size: Int64, sha256: String) {
        guard let size = try await s3("cannot read blob \(source)", blob: source, { try await client.size(key(source)) }) else {
            throw BlobStoreError.missing(source)
        }
        var hash = SHA256()
        var total: Int64 = 0
        var position = replacing
        var pending = ByteBuffer(bytes: header)
        let partSize = self.partSize
        try await store(blob) {
            // Parts of the source after its old header, read range by range.
            while pending.readableBytes < partSize, position < size {
                let end = min(size, position + Int64(partSize - pending.readableBytes))
                try await read(blob: source, range: position..<end, chunk: partSize) { chunk in
                    var chunk = chunk
                    pending.writeBuffer(&chunk)
                }
                position = end
            }
            let part = pending.readSlice(length: min(partSize, pending.readableBytes)) ?? ByteBuffer()
            pending.discardReadBytes()
            part.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
            total += Int64(part.readableBytes)
            return part
        }
        return (total, hash.finalize().map { String(format: "%02x", $0) }.joined())
    }

    public func read(blob: String, range: Range<Int64>, chunk: Int, into write: (ByteBuffer) async throws -> Void) async throws {
        try await s3("cannot read blob \(blob)", blob: blob) { try await client.get(key(blob), range: range, into: write) }
    }
}
