import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// tus's checksum extension: a PATCH may carry `Upload-Checksum: ALGORITHM BASE64`, the
/// digest of its whole body; the relay checks it once the body ended and keeps the
/// bytes only if it matches (460 otherwise, the upload left at its offset).
enum TusChecksum {
    /// What `Tus-Checksum-Algorithm` lists, in order (tus requires sha1; tuspy sends sha1
    /// unless told otherwise), each with its hash.
    static let hashes: KeyValuePairs<String, any HashFunction.Type> = ["sha1": Insecure.SHA1.self, "sha256": SHA256.self, "sha512": SHA512.self]
    static var algorithms: [String] { hashes.map(\.key) }
    /// 460 Checksum Mismatch: not an HTTP status of the RFCs, tus's own.
    static let mismatch = HTTPResponse.Status(code: 460, reasonPhrase: "Checksum Mismatch")

    /// The digest a PATCH announces, and the hash that makes it.
    struct Expected: Sendable {
        let algorithm: String
        let hash: any HashFunction.Type
        let digest: [UInt8]
    }

    /// `Upload-Checksum` read: 400 for an algorithm the relay lacks or a digest that is
    /// not base64 of that algorithm's length.
    static func expected(_ header: String) throws -> Expected {
        let parts = header.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2 else {
            throw RelayError.badRequest("Upload-Checksum is \"ALGORITHM BASE64-DIGEST\"")
        }
        let algorithm = String(parts[0])
        guard let hash = hashes.first(where: { $0.key == algorithm })?.value else {
            throw RelayError.badRequest("Upload-Checksum algorithm \"\(algorithm)\" is not supported; Tus-Checksum-Algorithm lists \(algorithms.joined(separator: ","))")
        }
        guard let digest = Data(base64Encoded: String(parts[1])), digest.count == digestCount(hash) else {
            throw RelayError.badRequest("Upload-Checksum's digest is not the base64 of a \(algorithm) digest")
        }
        return Expected(algorithm: algorithm, hash: hash, digest: Array(digest))
    }

    static func digestCount<Hash: HashFunction>(_: Hash.Type) -> Int { Hash.Digest.byteCount }
}

/// The running hash of one PATCH body, in the algorithm its `Upload-Checksum` names.
final class BodyHash: Sendable {
    private let state: NIOLockedValueBox<any HashFunction>
    let expected: TusChecksum.Expected

    init(_ expected: TusChecksum.Expected) {
        self.expected = expected
        state = NIOLockedValueBox(expected.hash.init())
    }

    func update(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { bytes in
            state.withLockedValue { $0.update(bufferPointer: bytes) }
        }
    }

    /// Throws 460 unless the bytes hashed so far are the ones announced.
    func check() throws {
        let digest = state.withLockedValue { Array($0.finalize()) }
        guard digest == expected.digest else {
            throw RelayError(TusChecksum.mismatch, .checksumMismatch,
                             "the body's \(expected.algorithm) is not Upload-Checksum's; its bytes were discarded, the offset is unchanged")
        }
    }
}

/// The client went away before its request body ended: it reads no answer, so the
/// relay's is 499 (nginx's "client closed request") in the log and the metrics, not a
/// 500 of its own.
struct ClientClosedRequest: Error {
    let underlying: any Error
}

/// A PATCH's body as the blob store reads it: a failure to read it (the client hung up,
/// the connection broke) is `ClientClosedRequest`, unless the relay itself cancelled the
/// request; with `hash`, each byte is also hashed for `Upload-Checksum`.
struct PatchBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let hash: BodyHash?

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let hash: BodyHash?

        mutating func next() async throws -> ByteBuffer? {
            let buffer: ByteBuffer?
            do {
                buffer = try await base.next()
            } catch {
                if Task.isCancelled || error is CancellationError { throw error }
                throw ClientClosedRequest(underlying: error)
            }
            if let buffer { hash?.update(buffer) }
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), hash: hash) }
}

extension ClientClosedRequest: HTTPResponseError {
    /// 499 in Hummingbird's request metrics too, which see the error before it is an answer.
    var status: HTTPResponse.Status { RelayError(self).status }
    func response(from request: Request, context: some RequestContext) throws -> Response { RelayError(self).response }
}
