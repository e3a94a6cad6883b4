internal import COpenSSL

/// X25519 (RFC 7748) through EVP_PKEY.
enum X25519 {
    public static let keyCount = 32

    public static func generatePrivateKey() throws -> SecretBytes {
        try SecureRandom.secret(keyCount)
    }

    private static func privateKey(_ scalar: SecretBytes) throws -> OpaquePointer {
        precondition(scalar.count == keyCount)
        let key = scalar.withUnsafeBytes { s in
            EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nil, s.baseAddress!.assumingMemoryBound(to: UInt8.self), keyCount)
        }
        guard let key else { throw OpenSSLError.current("EVP_PKEY_new_raw_private_key") }
        return key
    }

    /// The public key (scalar × base point).
    public static func publicKey(of scalar: SecretBytes) throws -> [UInt8] {
        let key = try privateKey(scalar)
        defer { EVP_PKEY_free(key) }
        var out = [UInt8](repeating: 0, count: keyCount)
        var length = keyCount
        try check(EVP_PKEY_get_raw_public_key(key, &out, &length), "EVP_PKEY_get_raw_public_key")
        return out
    }

    /// The shared secret; callers must reject an all-zero result (low-order points).
    /// OpenSSL itself refuses some of those, which is reported as `nil` too.
    public static func sharedSecret(privateKey scalar: SecretBytes, publicKey: [UInt8]) throws -> SecretBytes? {
        precondition(publicKey.count == keyCount)
        let mine = try privateKey(scalar)
        defer { EVP_PKEY_free(mine) }
        guard let theirs = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nil, publicKey, keyCount) else {
            throw OpenSSLError.current("EVP_PKEY_new_raw_public_key")
        }
        defer { EVP_PKEY_free(theirs) }
        guard let ctx = EVP_PKEY_CTX_new(mine, nil) else { throw OpenSSLError.current("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(ctx) }
        try check(EVP_PKEY_derive_init(ctx), "EVP_PKEY_derive_init")
        try check(EVP_PKEY_derive_set_peer(ctx, theirs), "EVP_PKEY_derive_set_peer")
        var length = keyCount
        var failed = false
        let secret = SecretBytes(count: keyCount) { out in
            failed = EVP_PKEY_derive(ctx, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) != 1
        }
        if failed { ERR_clear_error(); return nil }
        return secret.isAllZero ? nil : secret
    }
}
