#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import COpenSSL

/// SHA-256, one-shot or incremental (EVP_MD_CTX, owned and freed here).
package final class SHA256 {
    public static let byteCount = 32
    private let context: OpaquePointer

    public init() {
        guard let ctx = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        context = ctx
        precondition(EVP_DigestInit_ex(ctx, EVP_sha256(), nil) == 1, "EVP_DigestInit_ex(sha256)")
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ data: UnsafeRawBufferPointer) {
        guard data.count > 0 else { return }
        precondition(EVP_DigestUpdate(context, data.baseAddress, data.count) == 1, "EVP_DigestUpdate")
    }

    public func update<Bytes: ContiguousBytes>(_ data: Bytes) {
        data.withUnsafeBytes { update($0) }
    }

    /// The digest; the hasher must not be used afterwards.
    public func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.byteCount)
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, &out, &length) == 1, "EVP_DigestFinal_ex")
        return out
    }

    public static func hash<Bytes: ContiguousBytes>(_ data: Bytes) -> [UInt8] {
        let hasher = SHA256()
        hasher.update(data)
        return hasher.finalize()
    }
}
