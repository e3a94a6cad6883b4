internal import COpenSSL

/// ChaCha20-Poly1305 (RFC 7539) with a 12-byte nonce and a 16-byte tag appended to the
/// ciphertext. One context per thread: it owns an EVP_CIPHER_CTX and keeps its key
/// schedule between messages, so a stream of chunks only changes the nonce.
final class ChaChaPoly {
    public static let keyCount = 32
    public static let nonceCount = 12
    public static let tagCount = 16

    private let context: OpaquePointer
    private let encrypting: Bool

    public init(key: SecretBytes, encrypting: Bool) throws {
        precondition(key.count == Self.keyCount, "ChaCha20-Poly1305 key must be 32 bytes")
        guard let ctx = EVP_CIPHER_CTX_new() else { throw OpenSSLError.current("EVP_CIPHER_CTX_new") }
        context = ctx
        self.encrypting = encrypting
        do {
            try check(EVP_CipherInit_ex(ctx, EVP_chacha20_poly1305(), nil, nil, nil, encrypting ? 1 : 0), "EVP_CipherInit_ex")
            try key.withUnsafeBytes { k in
                try check(EVP_CipherInit_ex(ctx, nil, nil, k.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, -1), "EVP_CipherInit_ex(key)")
            }
        } catch {
            EVP_CIPHER_CTX_free(ctx)
            throw error
        }
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// Seals `plaintext` into `output` (plaintext.count + 16 bytes).
    public func seal(nonce: UnsafeRawBufferPointer, plaintext: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws {
        precondition(encrypting && nonce.count == Self.nonceCount && output.count >= plaintext.count + Self.tagCount)
        let out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        try check(EVP_CipherInit_ex(context, nil, nil, nil, nonce.baseAddress!.assumingMemoryBound(to: UInt8.self), -1), "EVP_CipherInit_ex(nonce)")
        var written: Int32 = 0
        if plaintext.count > 0 {
            try check(EVP_CipherUpdate(context, out, &written, plaintext.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(plaintext.count)), "EVP_CipherUpdate")
        }
        var final: Int32 = 0
        try check(EVP_CipherFinal_ex(context, out + Int(written), &final), "EVP_CipherFinal_ex")
        try check(EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(Self.tagCount), out + plaintext.count), "EVP_CTRL_AEAD_GET_TAG")
    }

    /// Opens `ciphertext` (with its tag) into `output`; false when authentication fails,
    /// in which case `output` must not be used.
    public func open(nonce: UnsafeRawBufferPointer, ciphertext: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws -> Bool {
        precondition(!encrypting && nonce.count == Self.nonceCount)
        guard ciphertext.count >= Self.tagCount else { return false }
        let bodyCount = ciphertext.count - Self.tagCount
        precondition(output.count >= bodyCount)
        let input = ciphertext.baseAddress!.assumingMemoryBound(to: UInt8.self)
        try check(EVP_CipherInit_ex(context, nil, nil, nil, nonce.baseAddress!.assumingMemoryBound(to: UInt8.self), -1), "EVP_CipherInit_ex(nonce)")
        var written: Int32 = 0
        let out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        if bodyCount > 0 {
            try check(EVP_CipherUpdate(context, out, &written, input, Int32(bodyCount)), "EVP_CipherUpdate")
        }
        try check(EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(Self.tagCount), UnsafeMutableRawPointer(mutating: input + bodyCount)), "EVP_CTRL_AEAD_SET_TAG")
        var final: Int32 = 0
        var scratch: UInt8 = 0
        let ok = withUnsafeMutablePointer(to: &scratch) { scratchPointer in
            EVP_CipherFinal_ex(context, out.map { $0 + Int(written) } ?? scratchPointer, &final)
        }
        if ok != 1 { ERR_clear_error() }
        return ok == 1
    }

    // MARK: one-shot helpers for small messages
    //
    // No nonce default: a fixed nonce is safe only where each key seals one message, and
    // the callers that rely on that (WrappedFileKey, KeySlot) say why beside their call.

    public static func seal(key: SecretBytes, nonce: [UInt8], plaintext: SecretBytes) throws -> [UInt8] {
        let cipher = try ChaChaPoly(key: key, encrypting: true)
        var out = [UInt8](repeating: 0, count: plaintext.count + tagCount)
        try nonce.withUnsafeBytes { n in
            try plaintext.withUnsafeBytes { p in
                try out.withUnsafeMutableBytes { try cipher.seal(nonce: n, plaintext: p, into: $0) }
            }
        }
        return out
    }

    /// nil when authentication fails.
    public static func open(key: SecretBytes, nonce: [UInt8], ciphertext: [UInt8]) throws -> SecretBytes? {
        guard ciphertext.count >= tagCount else { return nil }
        let cipher = try ChaChaPoly(key: key, encrypting: false)
        var authentic = false
        let plain = try SecretBytes(count: ciphertext.count - tagCount) { out in
            authentic = try nonce.withUnsafeBytes { n in
                try ciphertext.withUnsafeBytes { c in try cipher.open(nonce: n, ciphertext: c, into: out) }
            }
        }
        return authentic ? plain : nil
    }
}
