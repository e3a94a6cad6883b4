/// Base64 as age uses it: RFC 4648 standard alphabet. The header uses it unpadded and
/// canonical (spare bits zero); armor uses it padded and canonical.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let values: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = Int8(i) }
        return table
    }()

    static func encode<Bytes: Collection>(_ data: Bytes, padded: Bool = false) -> String where Bytes.Element == UInt8 {
        var out = [UInt8]()
        out.reserveCapacity((data.count + 2) / 3 * 4)
        var iterator = data.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next(), b2 = iterator.next()
            let n = UInt32(b0) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            if b1 != nil { out.append(alphabet[Int(n >> 6 & 63)]) } else if padded { out.append(UInt8(ascii: "=")) }
            if b2 != nil { out.append(alphabet[Int(n & 63)]) } else if padded { out.append(UInt8(ascii: "=")) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes canonical base64; nil for any character outside the alphabet, a
    /// length that cannot occur, non-zero spare bits, or padding where it is not
    /// expected (unpadded) or missing (padded).
    static func decode<Chars: Collection>(_ text: Chars, padded: Bool = false) -> [UInt8]? where Chars.Element == UInt8 {
        var chars = Array(text)
        if padded {
            guard chars.count % 4 == 0 else { return nil }
            var pad = 0
            while pad < 2, chars.last == UInt8(ascii: "=") { chars.removeLast(); pad += 1 }
        }
        guard chars.count % 4 != 1 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for c in chars {
            let v = values[Int(c)]
            guard v >= 0 else { return nil }
            accumulator = accumulator << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // Canonical: the spare bits of the last character are zero.
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }
}
