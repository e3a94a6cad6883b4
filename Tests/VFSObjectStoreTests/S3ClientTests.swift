import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import VFSObjectStore
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The S3 client against Ceph's RADOS Gateway (one per test process, a bucket per test).
@Suite("S3 client on RADOS Gateway")
struct S3ClientTests {
    let gateway: RGWFixture
    let client: S3Client

    init() throws {
        gateway = try RGWFixture.start()
        client = S3Client(endpoint: URL(string: gateway.endpoint)!, bucket: try gateway.newBucket(), region: gateway.region,
                          credentials: S3Credentials(accessKeyID: gateway.accessKey, secretAccessKey: gateway.secretKey))
    }

    static func content(_ count: Int, seed: Int = 1) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7 &+ ($0 >> 11)) }
    }

    func read(_ key: String, range: Range<Int64>? = nil) async throws -> (bytes: [UInt8], chunks: Int) {
        var bytes: [UInt8] = []
        var chunks = 0
        try await client.get(key, range: range) { chunk in
            bytes += chunk.readableBytesView
            chunks += 1
        }
        return (bytes, chunks)
    }

    @Test("put, then whole and ranged gets stream back exactly those bytes; size, delete")
    func putGetDelete() async throws {
        let data = Self.content(3 << 20)
        try await client.put("blobs/one", ByteBuffer(bytes: data))
        let whole = try await read("blobs/one")
        #expect(whole.bytes == data)
        #expect(whole.chunks > 1, "a 3 MiB body arrives in chunks, not in one buffer")
        #expect(try await read("blobs/one", range: 1_000_000..<2_500_001).bytes == Array(data[1_000_000..<2_500_001]))
        #expect(try await read("blobs/one", range: Int64(data.count - 1)..<Int64(data.count)).bytes == [data.last!])
        #expect(try await client.size("blobs/one") == Int64(data.count))
        try await client.delete("blobs/one")
        #expect(try await client.size("blobs/one") == nil)
        #expect(try gateway.objectKeys(bucket: client.bucket).isEmpty)
        try await client.delete("blobs/one")  // gone already: no error
        let missing = await #expect(throws: S3Error.self) { try await read("blobs/one") }
        #expect(missing?.code == "NoSuchKey")
        #expect(try await client.getSmall("blobs/one") == nil)
    }

    @Test("keys with spaces, +, and non-ASCII letters are signed and stored as given")
    func awkwardKeys() async throws {
        let key = "dir/a b+c/ü~x=y&z"
        try await client.put(key, ByteBuffer(string: "awkward"))
        #expect(try gateway.objectKeys(bucket: client.bucket) == [key])
        #expect(try await client.getSmall(key).map { String(buffer: $0) } == "awkward")
        #expect(try await client.list(prefix: "dir/a b+c/").map(\.key) == [key])
    }

    @Test("a listing names only the prefix's objects, with sizes, across pages")
    func listWithPrefix() async throws {
        for (key, size) in [("a/1", 10), ("a/2", 20), ("a/3", 0), ("b/1", 5)] {
            try await client.put(key, ByteBuffer(bytes: Self.content(size)))
        }
        let listed = try await client.list(prefix: "a/", pageSize: 2)
        #expect(listed.map(\.key) == ["a/1", "a/2", "a/3"])
        #expect(listed.map(\.size) == [10, 20, 0])
        #expect(listed.allSatisfy { abs($0.lastModified.timeIntervalSinceNow) < 3600 })
        #expect(try await client.list(prefix: "c/").isEmpty)
    }

    @Test("a multipart upload: parts of 5 MiB and a short last one, listed while open, joined by complete")
    func multipartComplete() async throws {
        let first = Self.content(5 << 20, seed: 2), second = Self.content(5 << 20, seed: 3), last = Self.content(1234, seed: 4)
        let id = try await client.createMultipartUpload("big")
        #expect(try await client.multipartUploads(prefix: "").map(\.uploadID) == [id])
        #expect(try gateway.multipartUploads(bucket: client.bucket).contains(id))
        var parts: [(number: Int, etag: String)] = []
        for (number, bytes) in [first, second, last].enumerated() {
            parts.append((number + 1, try await client.uploadPart("big", uploadID: id, number: number + 1, ByteBuffer(bytes: bytes))))
        }
        #expect(try await client.size("big") == nil, "nothing is an object before complete")
        try await client.completeMultipartUpload("big", uploadID: id, parts: parts)
        let stored = try await read("big")
        #expect(stored.bytes == first + second + last)
        #expect(try await read("big", range: Int64(5 << 20) - 3..<Int64(5 << 20) + 3).bytes == Array((first + second)[(5 << 20) - 3..<(5 << 20) + 3]))
        #expect(try await client.multipartUploads(prefix: "").isEmpty)
    }

    @Test("a multipart upload aborted leaves nothing; a wrong part ETag makes complete fail")
    func multipartAbortAndRefusal() async throws {
        let id = try await client.createMultipartUpload("gone")
        _ = try await client.uploadPart("gone", uploadID: id, number: 1, ByteBuffer(bytes: Self.content(1000)))
        try await client.abortMultipartUpload("gone", uploadID: id)
        #expect(try await client.multipartUploads(prefix: "").isEmpty)
        #expect(try await client.size("gone") == nil)
        try await client.abortMultipartUpload("gone", uploadID: id)  // gone already: no error

        let other = try await client.createMultipartUpload("wrong")
        _ = try await client.uploadPart("wrong", uploadID: other, number: 1, ByteBuffer(bytes: Self.content(1000)))
        await #expect(throws: S3Error.self) {
            try await client.completeMultipartUpload("wrong", uploadID: other, parts: [(1, "\"0123456789abcdef0123456789abcdef\"")])
        }
        #expect(try await client.size("wrong") == nil)
        try await client.abortMultipartUpload("wrong", uploadID: other)
    }

    @Test("a wrong secret key is refused with S3's code (the gateway checks the signature)")
    func wrongSecret() async throws {
        let wrong = S3Client(endpoint: client.endpoint, bucket: client.bucket, region: gateway.region,
                             credentials: S3Credentials(accessKeyID: gateway.accessKey, secretAccessKey: gateway.secretKey + "x"))
        let refused = await #expect(throws: S3Error.self) { try await wrong.put("x", ByteBuffer(string: "x")) }
        #expect(refused?.httpStatus == 403)
        #expect(refused?.code == "SignatureDoesNotMatch")
        #expect(try gateway.objectKeys(bucket: client.bucket).isEmpty)
    }

    @Test("a dropped connection: an idempotent request (PUT, GET, HEAD) is sent again and succeeds; a POST is sent once; a store that keeps dropping fails after 3 attempts")
    func retriesAfterADroppedConnection() async throws {
        let bucket = client.bucket
        let target = try #require(URL(string: gateway.endpoint)?.port)
        func through(_ proxy: TestProxy) -> S3Client {
            S3Client(endpoint: URL(string: "http://127.0.0.1:\(proxy.port)")!, bucket: bucket, region: gateway.region,
                     credentials: S3Credentials(accessKeyID: gateway.accessKey, secretAccessKey: gateway.secretKey))
        }
        let data = Self.content(1 << 20, seed: 4)
        // Each first connection dropped: the request goes again, on a second connection.
        let putProxy = try TestProxy(to: target, drops: 1)
        try await through(putProxy).put("retried", ByteBuffer(bytes: data))
        #expect(putProxy.accepted == 2)
        let getProxy = try TestProxy(to: target, drops: 1)
        var bytes: [UInt8] = []
        try await through(getProxy).get("retried") { bytes += $0.readableBytesView }
        #expect(bytes == data)
        #expect(getProxy.accepted == 2)
        let headProxy = try TestProxy(to: target, drops: 1)
        #expect(try await through(headProxy).size("retried") == Int64(data.count))
        #expect(headProxy.accepted == 2)
        // Not a POST: a multipart upload created twice would leave one behind.
        let postProxy = try TestProxy(to: target, drops: 1)
        await #expect(throws: (any Error).self) { _ = try await through(postProxy).createMultipartUpload("once") }
        #expect(postProxy.accepted == 1)
        // Bounded: a store that drops every connection fails the request after 3 attempts.
        let deadProxy = try TestProxy(to: target, drops: 1000)
        await #expect(throws: (any Error).self) { _ = try await through(deadProxy).size("retried") }
        #expect(deadProxy.accepted == 3)
    }

    @Test("a store that takes no connection (backlog full) fails a request with its connect timeout, and one that takes it and never answers with its read timeout; neither is sent again")
    func unansweringStore() async throws {
        let bucket = client.bucket
        let credentials = S3Credentials(accessKeyID: gateway.accessKey, secretAccessKey: gateway.secretKey)
        let region = gateway.region
        func silentClient(_ listener: SilentListener) -> S3Client {
            S3Client(endpoint: URL(string: "http://127.0.0.1:\(listener.port)")!, bucket: bucket, region: region, credentials: credentials,
                     connectTimeout: .seconds(1), readTimeout: .seconds(1))
        }
        let full = try SilentListener(full: true)
        let fullClient = silentClient(full)
        let refused = try await within(seconds: 600) {
            await #expect(throws: HTTPClientError.connectTimeout) { try await fullClient.put("x", ByteBuffer(string: "x")) }
            return true
        }
        #expect(refused)
        let silent = try SilentListener(full: false)
        let silentOne = silentClient(silent)
        let unanswered = try await within(seconds: 600) {
            await #expect(throws: HTTPClientError.readTimeout) { _ = try await silentOne.size("x") }
            await #expect(throws: HTTPClientError.readTimeout) { try await silentOne.put("x", ByteBuffer(string: "x")) }
            return true
        }
        #expect(unanswered)
    }

    @Test("a download cut off midway goes on with a ranged GET from the byte reached, whole or ranged; one cut every time fails after 3 connections, having written only the object's bytes in order")
    func downloadCutOffMidway() async throws {
        let data = Self.content(3 << 20, seed: 5)
        try await client.put("cut", ByteBuffer(bytes: data))
        let target = try #require(URL(string: gateway.endpoint)?.port)
        let bucket = client.bucket
        func through(_ proxy: TestProxy) -> S3Client {
            S3Client(endpoint: URL(string: "http://127.0.0.1:\(proxy.port)")!, bucket: bucket, region: gateway.region,
                     credentials: S3Credentials(accessKeyID: gateway.accessKey, secretAccessKey: gateway.secretKey))
        }
        let once = try TestProxy(to: target, cuts: 1, cutAfter: 1 << 20)
        var whole: [UInt8] = []
        try await through(once).get("cut") { whole += $0.readableBytesView }
        #expect(whole == data)
        #expect(once.cut == 1 && once.accepted == 2)

        let ranged = try TestProxy(to: target, cuts: 2, cutAfter: 700_000)
        var part: [UInt8] = []
        try await through(ranged).get("cut", range: 100_000..<3_000_000) { part += $0.readableBytesView }
        #expect(part == Array(data[100_000..<3_000_000]))
        #expect(ranged.cut == 2 && ranged.accepted == 3)

        let always = try TestProxy(to: target, cuts: 1000, cutAfter: 500_000)
        var written: [UInt8] = []
        await #expect(throws: (any Error).self) { try await through(always).get("cut") { written += $0.readableBytesView } }
        #expect(always.cut == 3 && always.accepted == 3)
        #expect(written.count < data.count && written == Array(data[..<written.count]))
    }
}
