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
    /// What `Tus-Checksum-Algorithm` lists (tus requires sha1; tuspy sends sha1 unless told otherwise).
    static let algorithms = ["sha1", "sha256", "sha512"]
    /// 460 Checksum Mismatch: not an HTTP status of the RFCs, tus's own.
    static let mismatch = HTTPResponse.Status(code: 460, reasonPhrase: "Checksum Mismatch")

    /// The digest a PATCH announces, and the running hash of its body.
    struct Expected: Sendable {
        let algorithm: String
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
        guard let length = digestLength(algorithm) else {
            throw RelayError.badRequest("Upload-Checksum algorithm \"\(algorithm)\" is not supported; Tus-Checksum-Algorithm lists \(algorithms.joined(separator: ","))")
        }
        guard let digest = Data(base64Encoded: String(parts[1])), digest.count == length else {
            throw RelayError.badRequest("Upload-Checksum's digest is not the base64 of a \(algorithm) digest")
        }
        return Expected(algorithm: algorithm, digest: Array(digest))
    }

    static func digestLength(_ algorithm: String) -> Int? {
        switch algorithm {
        case "sha1": Insecure.SHA1.byteCount
        case "sha256": SHA256.byteCount
        case "sha512": SHA512.byteCount
        default: nil
        }
    }
}

/// The running hash of one PATCH body, in the algorithm its `Upload-Checksum` names.
final class BodyHash: Sendable {
    private enum State {
        case sha1(Insecure.SHA1)
        case sha256(SHA256)
        case sha512(SHA512)
    }

    private let state: NIOLockedValueBox<State>
    let expected: TusChecksum.Expected

    init(_ expected: TusChecksum.Expected) {
        self.expected = expected
        let initial: State = switch expected.algorithm {
        case "sha1": .sha1(Insecure.SHA1())
        case "sha512": .sha512(SHA512())
        default: .sha256(SHA256())
        }
        state = NIOLockedValueBox(initial)
    }

    func update(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { bytes in
            state.withLockedValue { state in
                switch state {
                case .sha1(var hash): hash.update(bufferPointer: bytes); state = .sha1(hash)
                case .sha256(var hash): hash.update(bufferPointer: bytes); state = .sha256(hash)
                case .sha512(var hash): hash.update(bufferPointer: bytes); state = .sha512(hash)
                }
            }
        }
    }

    /// Throws 460 unless the bytes hashed so far are the ones announced.
    func check() throws {
        let digest: [UInt8] = state.withLockedValue { state in
            switch state {
            case .sha1(let hash): Array(hash.finalize())
            case .sha256(let hash): Array(hash.finalize())
            case .sha512(let hash): Array(hash.finalize())
            }
        }
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
