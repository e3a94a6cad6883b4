/// Bech32 (BIP 173) without the 90-character limit, as age keys use it.
enum Bech32 {
    private static let charset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)
    private static let generator: [UInt32] = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]

    private static func polymod(_ values: [UInt8]) -> UInt32 {
        var chk: UInt32 = 1
        for v in values {
            let top = chk >> 25
            chk = (chk & 0x1ffffff) << 5 ^ UInt32(v)
            for i in 0..<5 where (top >> UInt32(i)) & 1 == 1 { chk ^= generator[i] }
        }
        return chk
    }

    private static func expand(_ hrp: [UInt8]) -> [UInt8] {
        hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 }
    }

    /// Regroups bits; nil if padding is invalid when decoding.
    private static func convert(_ data: [UInt8], from: Int, to: Int, pad: Bool) -> [UInt8]? {
        var acc = 0, bits = 0
        var out = [UInt8]()
        let maxValue = (1 << to) - 1
        for value in data {
            acc = acc << from | Int(value)
            bits += from
            while bits >= to {
                bits -= to
                out.append(UInt8((acc >> bits) & maxValue))
            }
        }
        if pad {
            if bits > 0 { out.append(UInt8((acc << (to - bits)) & maxValue)) }
        } else if bits >= from || (acc << (to - bits)) & maxValue != 0 {
            return nil
        }
        return out
    }

    /// Lowercase unless `uppercase` (identities are written uppercase).
    static func encode(hrp: String, data: [UInt8], uppercase: Bool = false) -> String {
        let hrpBytes = Array(hrp.lowercased().utf8)
        let values = convert(data, from: 8, to: 5, pad: true)!
        let checksumInput = expand(hrpBytes) + values + [0, 0, 0, 0, 0, 0]
        let mod = polymod(checksumInput) ^ 1
        let checksum = (0..<6).map { UInt8((mod >> UInt32(5 * (5 - $0))) & 31) }
        let text = String(decoding: hrpBytes + [UInt8(ascii: "1")] + (values + checksum).map { charset[Int($0)] }, as: UTF8.self)
        return uppercase ? text.uppercased() : text
    }

    /// (hrp in lowercase, data); nil for mixed case, a bad character or checksum.
    static func decode(_ text: String) -> (hrp: String, data: [UInt8])? {
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy({ $0 >= 33 && $0 <= 126 }) else { return nil }
        let lower = text.lowercased(), upper = text.uppercased()
        guard text == lower || text == upper else { return nil }
        let lowered = Array(lower.utf8)
        guard let separator = lowered.lastIndex(of: UInt8(ascii: "1")), separator >= 1, lowered.count - separator - 1 >= 6 else { return nil }
        let hrp = Array(lowered[..<separator])
        var values = [UInt8]()
        for c in lowered[(separator + 1)...] {
            guard let v = charset.firstIndex(of: c) else { return nil }
            values.append(UInt8(v))
        }
        guard polymod(expand(hrp) + values) == 1 else { return nil }
        guard let data = convert(Array(values.dropLast(6)), from: 5, to: 8, pad: false) else { return nil }
        return (String(decoding: hrp, as: UTF8.self), data)
    }
}
