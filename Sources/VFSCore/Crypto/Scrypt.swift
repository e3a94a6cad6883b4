internal import COpenSSL

/// scrypt (RFC 7914) through EVP_PBE_scrypt.
enum Scrypt {
    /// Memory scrypt needs for N = 2^logN, r, p: 128·r·N for V plus 128·r·p for B, and a margin.
    public static func memoryNeeded(logN: Int, r: Int = 8, p: Int = 1) -> UInt64 {
        128 * UInt64(r) * (UInt64(1) << UInt64(logN)) + 128 * UInt64(r) * UInt64(p) + (1 << 20)
    }

    public static func deriveKey(password: SecretBytes, salt: [UInt8], logN: Int, r: Int = 8, p: Int = 1, count: Int = 32) throws -> SecretBytes {
        precondition(logN > 0 && logN < 64)
        let maxMemory = memoryNeeded(logN: logN, r: r, p: p)
        return try SecretBytes(count: count) { out in
            try password.withUnsafeBytes { pass in
                try check(EVP_PBE_scrypt(pass.baseAddress!.assumingMemoryBound(to: CChar.self), pass.count,
                                         salt, salt.count, UInt64(1) << UInt64(logN), UInt64(r), UInt64(p), maxMemory,
                                         out.baseAddress!.assumingMemoryBound(to: UInt8.self), out.count), "EVP_PBE_scrypt")
            }
        }
    }
}
