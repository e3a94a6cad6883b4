internal import COpenSSL

/// The CSPRNG (OpenSSL RAND_bytes).
package enum SecureRandom {
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws {
        guard buffer.count > 0 else { return }
        try check(RAND_bytes(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)), "RAND_bytes")
    }

    public static func bytes(_ count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        try out.withUnsafeMutableBytes { try fill($0) }
        return out
    }

    public static func secret(_ count: Int) throws -> SecretBytes {
        try SecretBytes(count: count) { try fill($0) }
    }
}
