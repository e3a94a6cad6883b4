internal import COpenSSL

/// HKDF-SHA-256 (extract then expand) through OpenSSL's EVP_KDF.
enum HKDF {
    public static func deriveKey(inputKey: SecretBytes, salt: [UInt8], info: String, count: Int = 32) throws -> SecretBytes {
        guard let kdf = EVP_KDF_fetch(nil, "HKDF", nil) else { throw OpenSSLError.current("EVP_KDF_fetch(HKDF)") }
        defer { EVP_KDF_free(kdf) }
        guard let ctx = EVP_KDF_CTX_new(kdf) else { throw OpenSSLError.current("EVP_KDF_CTX_new") }
        defer { EVP_KDF_CTX_free(ctx) }
        var infoBytes = Array(info.utf8)
        var saltBytes = salt
        var digest = Array("SHA256".utf8CString)
        return try SecretBytes(count: count) { out in
            try inputKey.withUnsafeBytes { ikm in
                try infoBytes.withUnsafeMutableBytes { infoBuffer in
                    try saltBytes.withUnsafeMutableBytes { saltBuffer in
                        try digest.withUnsafeMutableBufferPointer { digestName in
                            // OSSL_PARAM keeps the name pointers: they must outlive the call.
                            var params = [
                                OSSL_PARAM_construct_utf8_string(cName("digest"), digestName.baseAddress, 0),
                                OSSL_PARAM_construct_octet_string(cName("key"), UnsafeMutableRawPointer(mutating: ikm.baseAddress), ikm.count),
                            ]
                            if saltBuffer.count > 0 {
                                params.append(OSSL_PARAM_construct_octet_string(cName("salt"), saltBuffer.baseAddress, saltBuffer.count))
                            }
                            if infoBuffer.count > 0 {
                                params.append(OSSL_PARAM_construct_octet_string(cName("info"), infoBuffer.baseAddress, infoBuffer.count))
                            }
                            params.append(OSSL_PARAM_construct_end())
                            try check(EVP_KDF_derive(ctx, out.baseAddress!.assumingMemoryBound(to: UInt8.self), out.count, &params), "EVP_KDF_derive(HKDF)")
                        }
                    }
                }
            }
        }
    }
}

/// A C string with static storage, for APIs that keep the pointer.
func cName(_ name: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
}
