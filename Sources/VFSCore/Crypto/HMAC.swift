#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import COpenSSL

/// HMAC-SHA-256.
enum HMACSHA256 {
    public static func authenticate(key: SecretBytes, message: UnsafeRawBufferPointer) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = key.withUnsafeBytes { k in
            HMAC(EVP_sha256(), k.baseAddress, Int32(k.count),
                 message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count, &out, &length)
        }
        guard ok != nil, length == 32 else { throw OpenSSLError.current("HMAC") }
        return out
    }

    public static func authenticate<Bytes: ContiguousBytes>(key: SecretBytes, message: Bytes) throws -> [UInt8] {
        try message.withUnsafeBytes { try authenticate(key: key, message: $0) }
    }

    /// Constant-time comparison of two MACs.
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && CRYPTO_memcmp(a, b, a.count) == 0
    }
}
