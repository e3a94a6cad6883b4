internal import COpenSSL

/// A fast stream of random-looking bytes: the AES-256-CTR keystream under a random key
/// (AES-NI makes it several GB/s per core), for overwriting data. It owns one
/// EVP_CIPHER_CTX. The same key and IV give the same stream again, which is how a
/// written pass is checked by reading it back.
final class Keystream {
    public static let keyCount = 32
    public static let ivCount = 16

    private let context: OpaquePointer
    /// The key and IV this stream started from, for `restarted()`.
    private let key: SecretBytes
    private let iv: SecretBytes

    /// A stream under a fresh random key and IV.
    public convenience init() throws {
        try self.init(key: SecureRandom.secret(Self.keyCount), iv: SecureRandom.secret(Self.ivCount))
    }

    public init(key: SecretBytes, iv: SecretBytes) throws {
        precondition(key.count == Self.keyCount && iv.count == Self.ivCount, "AES-256-CTR takes a 32-byte key and a 16-byte IV")
        guard let ctx = EVP_CIPHER_CTX_new() else { throw OpenSSLError.current("EVP_CIPHER_CTX_new") }
        context = ctx
        self.key = key
        self.iv = iv
        do {
            try key.withUnsafeBytes { k in
                try iv.withUnsafeBytes { v in
                    try check(EVP_EncryptInit_ex(ctx, EVP_aes_256_ctr(), nil,
                                                 k.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                 v.baseAddress!.assumingMemoryBound(to: UInt8.self)), "EVP_EncryptInit_ex")
                }
            }
        } catch {
            EVP_CIPHER_CTX_free(ctx)
            throw error
        }
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// A new stream that yields the same bytes as this one did from its start.
    public func restarted() throws -> Keystream {
        try Keystream(key: key, iv: iv)
    }

    /// Fills `buffer` with the next bytes of the stream.
    public func fill(_ buffer: UnsafeMutableRawBufferPointer) throws {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        // CTR mode XORs the keystream into its input, so encrypting zeros yields the keystream.
        base.initializeMemory(as: UInt8.self, repeating: 0, count: buffer.count)
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var offset = 0
        while offset < buffer.count {
            let n = min(buffer.count - offset, 1 << 30)
            var written: Int32 = 0
            try check(EVP_EncryptUpdate(context, bytes + offset, &written, bytes + offset, Int32(n)), "EVP_EncryptUpdate")
            offset += n
        }
    }
}
