internal import COpenSSL

/// The birational map from Ed25519 keys to X25519 keys that age's ssh-ed25519 recipient
/// type uses (RFC 7748 section 4.1): u = (1 + y) / (1 - y) mod 2^255 - 19 for a public
/// key, and the first half of SHA-512(seed) for a private key (X25519 clamps it).
enum Ed25519Conversion {
    /// The X25519 public key of an Ed25519 public key; nil if it is not a canonical
    /// encoding of a y coordinate (or y = 1, which has no image).
    static func montgomeryPublicKey(edwards publicKey: [UInt8]) throws -> [UInt8]? {
        guard publicKey.count == 32 else { return nil }
        var yBytes = publicKey
        yBytes[31] &= 0x7F  // the top bit is the sign of x, not part of y
        let p = try BigNumber(powerOfTwo: 255, minus: 19)
        let y = BigNumber(littleEndian: yBytes)
        guard y.compare(p) < 0 else { return nil }
        let one = BigNumber(littleEndian: [1])
        let denominator = try one.minus(y, modulo: p)
        guard !denominator.isZero else { return nil }
        let u = try one.plus(y, modulo: p).times(try denominator.inverse(modulo: p), modulo: p)
        return u.littleEndian(count: 32)
    }

    /// The X25519 private scalar of an Ed25519 seed: SHA-512(seed)[0..<32].
    static func montgomeryPrivateKey(seed: SecretBytes) throws -> SecretBytes {
        precondition(seed.count == 32)
        var digest = [UInt8](repeating: 0, count: 64)
        defer { digest.wipe() }
        var length: UInt32 = 0
        try seed.withUnsafeBytes { s in
            try check(EVP_Digest(s.baseAddress, s.count, &digest, &length, EVP_sha512(), nil), "EVP_Digest(sha512)")
        }
        return SecretBytes(copying: digest[0..<32])
    }
}
