internal import COpenSSL

/// An OpenSSL BIGNUM, owned and (cleared and) freed here. Only what the SSH key code
/// needs: building from bytes, modular arithmetic, and bytes out.
final class BigNumber {
    let pointer: OpaquePointer

    init() {
        guard let bn = BN_new() else { fatalError("BN_new: out of memory") }
        pointer = bn
    }

    /// From big-endian bytes (SSH's mpint, without its sign byte).
    convenience init(bigEndian bytes: [UInt8]) {
        self.init()
        precondition(BN_bin2bn(bytes, Int32(bytes.count), pointer) != nil, "BN_bin2bn")
    }

    /// From little-endian bytes (curve25519's field elements).
    convenience init(littleEndian bytes: [UInt8]) {
        self.init()
        precondition(BN_lebin2bn(bytes, Int32(bytes.count), pointer) != nil, "BN_lebin2bn")
    }

    deinit { BN_clear_free(pointer) }

    var bitCount: Int { Int(BN_num_bits(pointer)) }
    var isZero: Bool { BN_is_zero(pointer) == 1 }

    func compare(_ other: BigNumber) -> Int32 { BN_cmp(pointer, other.pointer) }

    /// `count` little-endian bytes, zero-padded.
    func littleEndian(count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        precondition(BN_bn2lebinpad(pointer, &out, Int32(count)) == Int32(count), "BN_bn2lebinpad")
        return out
    }

    /// A copy (for OpenSSL calls that take ownership).
    func copy() -> OpaquePointer {
        guard let bn = BN_dup(pointer) else { fatalError("BN_dup: out of memory") }
        return bn
    }

    /// Runs `body` with a scratch context.
    static func withContext<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
        guard let ctx = BN_CTX_new() else { fatalError("BN_CTX_new: out of memory") }
        defer { BN_CTX_free(ctx) }
        return try body(ctx)
    }

    /// self mod m.
    func mod(_ m: BigNumber) throws -> BigNumber {
        let out = BigNumber()
        try BigNumber.withContext { ctx in try check(BN_div(nil, out.pointer, pointer, m.pointer, ctx), "BN_div") }
        return out
    }

    /// self - word (for p - 1).
    func minus(_ word: UInt) throws -> BigNumber {
        let out = BigNumber()
        guard BN_copy(out.pointer, pointer) != nil else { throw OpenSSLError.current("BN_copy") }
        try check(BN_sub_word(out.pointer, word), "BN_sub_word")
        return out
    }
}
