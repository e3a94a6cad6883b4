internal import COpenSSL

/// Ed25519 signatures (RFC 8032, pure EdDSA) through EVP_PKEY_ED25519.
///
/// Each EVP_PKEY has one owner (`EVPKey`) that frees it, and its pointer is used only in
/// the owner's own methods, where the owner is alive; each EVP_MD_CTX lives in one method,
/// freed by a `defer`. Every libcrypto failure becomes an `OpenSSLError` through `check`
/// or `OpenSSLError.current`.
package enum Ed25519 {
    public static let seedCount = 32
    public static let publicKeyCount = 32
    public static let signatureCount = 64

    /// A private signing key: the 32-byte RFC 8032 seed, kept in wiped memory.
    public final class SigningKey: Sendable {
        public let seed: SecretBytes
        public let publicKey: [UInt8]

        /// A new random key (EVP_PKEY_keygen).
        public convenience init() throws {
            guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nil) else { throw OpenSSLError.current("EVP_PKEY_CTX_new_id") }
            defer { EVP_PKEY_CTX_free(ctx) }
            try check(EVP_PKEY_keygen_init(ctx), "EVP_PKEY_keygen_init")
            var raw: OpaquePointer?
            try check(EVP_PKEY_keygen(ctx, &raw), "EVP_PKEY_keygen")
            guard let raw else { throw OpenSSLError.current("EVP_PKEY_keygen") }
            try self.init(seed: try EVPKey(raw).seed())
        }

        /// The key of a 32-byte seed (raw private key import); derives the public key.
        public init(seed: SecretBytes) throws {
            guard seed.count == seedCount else { throw Ed25519Error.badLength(what: "seed", count: seed.count, expected: seedCount) }
            self.seed = seed
            publicKey = try EVPKey.privateKey(seed).publicKey()
        }

        /// The 64-byte signature of `message` (deterministic, as RFC 8032 defines it).
        public func sign(_ message: [UInt8]) throws -> [UInt8] {
            try EVPKey.privateKey(seed).sign(message)
        }
    }

    /// True if `signature` is a valid signature of `message` by `publicKey`. A key or
    /// signature of the wrong length, or a key that is not a curve point, is false.
    public static func verify(signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == signatureCount, publicKey.count == publicKeyCount else { return false }
        guard let raw = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, publicKey, publicKeyCount) else {
            ERR_clear_error()
            return false
        }
        return EVPKey(raw).verify(signature: signature, of: message)
    }
}

package enum Ed25519Error: Error, Equatable, Sendable, CustomStringConvertible {
    case badLength(what: String, count: Int, expected: Int)
    public var description: String {
        switch self {
        case let .badLength(what, count, expected): return "an Ed25519 \(what) has \(expected) bytes, not \(count)"
        }
    }
}

/// The one owner of an EVP_PKEY: freed when it goes. Its pointer stays private: a method
/// runs with its object alive, while a pointer read out of it can outlive the object.
private final class EVPKey {
    private let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    static func privateKey(_ seed: SecretBytes) throws -> EVPKey {
        let raw = seed.withUnsafeBytes { s in
            EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, s.baseAddress!.assumingMemoryBound(to: UInt8.self), s.count)
        }
        guard let raw else { throw OpenSSLError.current("EVP_PKEY_new_raw_private_key") }
        return EVPKey(raw)
    }

    /// The 32-byte seed (raw private key), in wiped memory.
    func seed() throws -> SecretBytes {
        var failed = false
        let seed = SecretBytes(count: Ed25519.seedCount) { out in
            var length = Ed25519.seedCount
            failed = EVP_PKEY_get_raw_private_key(pointer, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) != 1
                || length != Ed25519.seedCount
        }
        if failed { throw OpenSSLError.current("EVP_PKEY_get_raw_private_key") }
        return seed
    }

    func publicKey() throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Ed25519.publicKeyCount)
        var length = Ed25519.publicKeyCount
        try check(EVP_PKEY_get_raw_public_key(pointer, &out, &length), "EVP_PKEY_get_raw_public_key")
        return out
    }

    /// The 64-byte signature of `message` (deterministic, as RFC 8032 defines it).
    func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw OpenSSLError.current("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(ctx) }
        try check(EVP_DigestSignInit(ctx, nil, nil, nil, pointer), "EVP_DigestSignInit")
        var signature = [UInt8](repeating: 0, count: Ed25519.signatureCount)
        var length = Ed25519.signatureCount
        try check(message.withUnsafeBufferPointer { m in
            EVP_DigestSign(ctx, &signature, &length, m.baseAddress, m.count)
        }, "EVP_DigestSign")
        guard length == Ed25519.signatureCount else { throw OpenSSLError(function: "EVP_DigestSign", reason: "signature of \(length) bytes") }
        return signature
    }

    func verify(signature: [UInt8], of message: [UInt8]) -> Bool {
        guard let ctx = EVP_MD_CTX_new() else { ERR_clear_error(); return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, nil, nil, pointer) == 1 else { ERR_clear_error(); return false }
        let result = message.withUnsafeBufferPointer { m in
            EVP_DigestVerify(ctx, signature, signature.count, m.baseAddress, m.count)
        }
        if result != 1 { ERR_clear_error() }
        return result == 1
    }
}
