internal import COpenSSL

/// An OpenSSL BIGNUM, owned and (cleared and) freed here. Only what the SSH key code
/// needs: building from bytes, modular arithmetic, and bytes out.
///
/// The BIGNUM's pointer never leaves this type except through `withPointer`, valid only
/// inside its closure. Handing `pointer` out as a property let the optimiser free the
/// number right after the property was read, before OpenSSL used it (the release build
/// crashed on every ssh-rsa key that way). Inside a method, `self` and every BigNumber
/// argument are alive until the method returns, so the arithmetic lives here.
final class BigNumber {
    private let pointer: OpaquePointer

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

    /// 2^bit - word (for the prime 2^255 - 19).
    convenience init(powerOfTwo bit: Int32, minus word: UInt) throws {
        self.init()
        try check(BN_set_bit(pointer, bit), "BN_set_bit")
        try check(BN_sub_word(pointer, word), "BN_sub_word")
    }

    deinit { BN_clear_free(pointer) }

    /// Runs `body` with the BIGNUM, alive until `body` returns. A C function that keeps
    /// the pointer past `body` (OSSL_PARAM_BLD_push_BN) needs its caller to keep this
    /// number alive that long too (`withExtendedLifetime`).
    func withPointer<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(pointer) }
    }

    var bitCount: Int { Int(BN_num_bits(pointer)) }
    var isZero: Bool { BN_is_zero(pointer) == 1 }

    func compare(_ other: BigNumber) -> Int32 { BN_cmp(pointer, other.pointer) }

    /// `count` little-endian bytes, zero-padded.
    func littleEndian(count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        precondition(BN_bn2lebinpad(pointer, &out, Int32(count)) == Int32(count), "BN_bn2lebinpad")
        return out
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

    /// (self + other) mod m.
    func plus(_ other: BigNumber, modulo m: BigNumber) throws -> BigNumber {
        let out = BigNumber()
        try BigNumber.withContext { ctx in try check(BN_mod_add(out.pointer, pointer, other.pointer, m.pointer, ctx), "BN_mod_add") }
        return out
    }

    /// (self - other) mod m.
    func minus(_ other: BigNumber, modulo m: BigNumber) throws -> BigNumber {
        let out = BigNumber()
        try BigNumber.withContext { ctx in try check(BN_mod_sub(out.pointer, pointer, other.pointer, m.pointer, ctx), "BN_mod_sub") }
        return out
    }

    /// (self × other) mod m.
    func times(_ other: BigNumber, modulo m: BigNumber) throws -> BigNumber {
        let out = BigNumber()
        try BigNumber.withContext { ctx in try check(BN_mod_mul(out.pointer, pointer, other.pointer, m.pointer, ctx), "BN_mod_mul") }
        return out
    }

    /// self⁻¹ mod m; throws if there is none.
    func inverse(modulo m: BigNumber) throws -> BigNumber {
        let out = BigNumber()
        try BigNumber.withContext { ctx in
            guard BN_mod_inverse(out.pointer, pointer, m.pointer, ctx) != nil else { throw OpenSSLError.current("BN_mod_inverse") }
        }
        return out
    }
}
