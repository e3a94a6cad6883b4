/// Shamir's secret sharing over GF(2^8), byte by byte, with the field of AES
/// (x^8 + x^4 + x^3 + x + 1, 0x11B), as HashiCorp Vault's shamir package and
/// SLIP-0039 use it. Each byte of the secret is the constant term of its own random
/// polynomial of degree threshold-1; share i holds every polynomial's value at x = i
/// (1…255). Any `threshold` shares give the polynomials back (Lagrange interpolation at
/// 0); fewer fit every possible secret equally well, so they reveal nothing of it.
package enum Shamir {
    /// Share indexes are 1…255 (x = 0 is the secret itself).
    package static let maxShares = 255

    /// Multiplication in GF(2^8) modulo 0x11B, without tables or branches on the
    /// operands (no look-up indexed by a secret byte).
    package static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var a = a, b = b, product: UInt8 = 0
        for _ in 0..<8 {
            product ^= a & (0 &- (b & 1))
            let carry = 0 &- (a >> 7)
            a = (a << 1) ^ (carry & 0x1B)
            b >>= 1
        }
        return product
    }

    /// The multiplicative inverse (a^254; 0 for 0, which never divides here).
    package static func inverse(_ a: UInt8) -> UInt8 {
        // a^254 = a^(2+4+8+16+32+64+128).
        var result: UInt8 = 1, square = a
        for _ in 0..<7 {
            square = multiply(square, square)
            result = multiply(result, square)
        }
        return result
    }

    /// The value at `x` of the polynomial with these coefficients (constant term first).
    package static func evaluate(_ coefficients: [UInt8], at x: UInt8) -> UInt8 {
        var value: UInt8 = 0
        for coefficient in coefficients.reversed() { value = multiply(value, x) ^ coefficient }
        return value
    }

    /// The `count` shares' values (share i at x = i, from 1) of `secret` under
    /// `coefficients`: threshold-1 rows, each one random byte per byte of the secret
    /// (row j is the coefficient of x^(j+1)).
    package static func split(_ secret: [UInt8], count: Int, coefficients: [[UInt8]]) -> [[UInt8]] {
        precondition((1...maxShares).contains(count) && coefficients.count < count, "1 ≤ threshold ≤ count ≤ 255")
        precondition(coefficients.allSatisfy { $0.count == secret.count }, "one coefficient a byte")
        return (1...count).map { index in
            secret.indices.map { byte in
                evaluate([secret[byte]] + coefficients.map { $0[byte] }, at: UInt8(index))
            }
        }
    }

    /// `split` with coefficients from the CSPRNG.
    package static func split(_ secret: [UInt8], count: Int, threshold: Int) throws -> [[UInt8]] {
        precondition(threshold >= 1 && threshold <= count, "1 ≤ threshold ≤ count")
        let coefficients = try (1..<threshold).map { _ in try SecureRandom.bytes(secret.count) }
        return split(secret, count: count, coefficients: coefficients)
    }

    /// The secret from shares (index 1…255, distinct; values of one length): the
    /// polynomials' values at 0 by Lagrange interpolation. With fewer shares than the
    /// split's threshold the answer is some other byte string: the caller checks it.
    package static func combine(_ shares: [(index: UInt8, value: [UInt8])]) -> [UInt8] {
        precondition(!shares.isEmpty && Set(shares.map(\.index)).count == shares.count && !shares.contains { $0.index == 0 },
                     "distinct, non-zero indexes")
        let length = shares[0].value.count
        precondition(shares.allSatisfy { $0.value.count == length }, "values of one length")
        // The Lagrange basis at 0: l_i(0) = Π_{j≠i} x_j / (x_j - x_i); minus is XOR here.
        let weights = shares.map { share in
            shares.reduce(UInt8(1)) { weight, other in
                other.index == share.index ? weight : multiply(weight, multiply(other.index, inverse(other.index ^ share.index)))
            }
        }
        return (0..<length).map { byte in
            zip(shares, weights).reduce(UInt8(0)) { $0 ^ multiply($1.0.value[byte], $1.1) }
        }
    }
}
