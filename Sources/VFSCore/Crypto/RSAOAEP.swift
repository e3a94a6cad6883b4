internal import COpenSSL

/// An RSA key (EVP_PKEY, owned and freed here) with the one operation age's ssh-rsa
/// recipient type needs: RSA-OAEP with SHA-256 (and MGF1-SHA-256) and a label.
final class RSAKey: @unchecked Sendable {
    // @unchecked: the EVP_PKEY is built once and then only read; OpenSSL's encrypt and
    // decrypt take their own context per call, so sharing the key across threads is safe.
    private let key: OpaquePointer
    /// The modulus's size in bits.
    let bitCount: Int

    /// A public key from its modulus and public exponent (big-endian).
    convenience init(modulus: [UInt8], publicExponent: [UInt8]) throws {
        try self.init(components: [("n", BigNumber(bigEndian: modulus)), ("e", BigNumber(bigEndian: publicExponent))],
                      selection: VFS_EVP_PKEY_PUBLIC_KEY)
    }

    /// A private key from the parts an OpenSSH private key holds (n, e, d, iqmp, p, q);
    /// the CRT exponents are derived here.
    convenience init(modulus: [UInt8], publicExponent: [UInt8], privateExponent: [UInt8],
                     p: [UInt8], q: [UInt8], qInverse: [UInt8]) throws {
        let d = BigNumber(bigEndian: privateExponent)
        let pn = BigNumber(bigEndian: p), qn = BigNumber(bigEndian: q)
        let dp = try d.mod(try pn.minus(1)), dq = try d.mod(try qn.minus(1))
        try self.init(components: [
            ("n", BigNumber(bigEndian: modulus)), ("e", BigNumber(bigEndian: publicExponent)), ("d", d),
            ("rsa-factor1", pn), ("rsa-factor2", qn), ("rsa-exponent1", dp), ("rsa-exponent2", dq),
            ("rsa-coefficient1", BigNumber(bigEndian: qInverse)),
        ], selection: VFS_EVP_PKEY_KEYPAIR)
    }

    private init(components: [(StaticString, BigNumber)], selection: Int32) throws {
        guard let builder = OSSL_PARAM_BLD_new() else { throw OpenSSLError.current("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        // OSSL_PARAM_BLD_push_BN keeps each BIGNUM's pointer and reads the number only in
        // OSSL_PARAM_BLD_to_param: the numbers must live until then. Without this the
        // optimiser freed them after the loop, and the release build crashed on every
        // ssh-rsa key (BN_num_bits on a freed BIGNUM).
        let params = try withExtendedLifetime(components) { () throws -> UnsafeMutablePointer<OSSL_PARAM> in
            for (name, value) in components {
                try value.withPointer { try check(OSSL_PARAM_BLD_push_BN(builder, cName(name), $0), "OSSL_PARAM_BLD_push_BN") }
            }
            guard let params = OSSL_PARAM_BLD_to_param(builder) else { throw OpenSSLError.current("OSSL_PARAM_BLD_to_param") }
            return params
        }
        defer { OSSL_PARAM_free(params) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { throw OpenSSLError.current("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(ctx) }
        try check(EVP_PKEY_fromdata_init(ctx), "EVP_PKEY_fromdata_init")
        var made: OpaquePointer?
        try check(EVP_PKEY_fromdata(ctx, &made, selection, params), "EVP_PKEY_fromdata")
        guard let made else { throw OpenSSLError.current("EVP_PKEY_fromdata") }
        key = made
        bitCount = Int(EVP_PKEY_get_bits(made))
    }

    deinit { EVP_PKEY_free(key) }

    /// The OAEP parameters, set on an encrypt or decrypt context.
    private func setOAEP(_ ctx: OpaquePointer, label: [UInt8]) throws {
        var labelBytes = label
        var padMode = Array("oaep".utf8CString), digest = Array("SHA256".utf8CString)
        try labelBytes.withUnsafeMutableBytes { labelBuffer in
            try padMode.withUnsafeMutableBufferPointer { pad in
                try digest.withUnsafeMutableBufferPointer { md in
                    var params = [
                        OSSL_PARAM_construct_utf8_string(cName("pad-mode"), pad.baseAddress, 0),
                        OSSL_PARAM_construct_utf8_string(cName("digest"), md.baseAddress, 0),
                        OSSL_PARAM_construct_utf8_string(cName("mgf1-digest"), md.baseAddress, 0),
                        OSSL_PARAM_construct_octet_string(cName("oaep-label"), labelBuffer.baseAddress, labelBuffer.count),
                        OSSL_PARAM_construct_end(),
                    ]
                    try check(EVP_PKEY_CTX_set_params(ctx, &params), "EVP_PKEY_CTX_set_params(oaep)")
                }
            }
        }
    }

    /// RSA-OAEP-SHA-256 encryption of a short secret.
    func encryptOAEP(_ plaintext: SecretBytes, label: [UInt8]) throws -> [UInt8] {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { throw OpenSSLError.current("EVP_PKEY_CTX_new_from_pkey") }
        defer { EVP_PKEY_CTX_free(ctx) }
        try check(EVP_PKEY_encrypt_init(ctx), "EVP_PKEY_encrypt_init")
        try setOAEP(ctx, label: label)
        var length = 0
        try plaintext.withUnsafeBytes { p in
            try check(EVP_PKEY_encrypt(ctx, nil, &length, p.baseAddress?.assumingMemoryBound(to: UInt8.self), p.count), "EVP_PKEY_encrypt")
        }
        var out = [UInt8](repeating: 0, count: length)
        try plaintext.withUnsafeBytes { p in
            try check(EVP_PKEY_encrypt(ctx, &out, &length, p.baseAddress?.assumingMemoryBound(to: UInt8.self), p.count), "EVP_PKEY_encrypt")
        }
        return Array(out[0..<length])
    }

    /// RSA-OAEP-SHA-256 decryption; nil if the ciphertext does not decrypt under this
    /// key and label (another key, or tampered).
    func decryptOAEP(_ ciphertext: [UInt8], label: [UInt8]) throws -> SecretBytes? {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { throw OpenSSLError.current("EVP_PKEY_CTX_new_from_pkey") }
        defer { EVP_PKEY_CTX_free(ctx) }
        try check(EVP_PKEY_decrypt_init(ctx), "EVP_PKEY_decrypt_init")
        try setOAEP(ctx, label: label)
        var capacity = (bitCount + 7) / 8
        var failed = false
        let buffer = SecretBytes(count: capacity) { out in
            failed = EVP_PKEY_decrypt(ctx, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &capacity, ciphertext, ciphertext.count) != 1
        }
        if failed { ERR_clear_error(); return nil }
        return buffer.withUnsafeBytes { SecretBytes(copying: $0[0..<capacity]) }
    }
}
