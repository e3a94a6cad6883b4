/// Random secrets for `vfs-keychain generate`, made as pass makes them: `length`
/// characters drawn uniformly from letters, digits and ASCII punctuation (pass's
/// `[:punct:][:alnum:]`), or from letters and digits only (`--no-symbols`).
///
/// The bytes come from the kernel's CSPRNG (SystemRandomNumberGenerator: getrandom(2)). Each character takes one
/// byte; a byte at or above the largest multiple of the alphabet's size is drawn
/// again (rejection sampling), so every character is equally likely: no modulo bias.
public enum SecretGenerator {
    static let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
    public static let digits = Array("0123456789".utf8)
    /// The 32 ASCII punctuation characters (POSIX `[:punct:]`).
    public static let symbols = Array("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~".utf8)
    /// pass's default length.
    public static let defaultLength = 25
    /// The longest secret made (a secret holds up to 16 MiB; this is plenty).
    public static let maxLength = 4096

    public static func alphabet(symbols withSymbols: Bool) -> [UInt8] {
        letters + digits + (withSymbols ? symbols : [])
    }

    /// A new secret of `length` characters (1 to `maxLength`).
    public static func generate(length: Int, symbols: Bool) throws -> SecretBytes {
        try generate(length: length, alphabet: alphabet(symbols: symbols), random: systemRandom)
    }

    /// The same with the random bytes from `random` (a test gives fixed ones).
    static func generate(length: Int, alphabet: [UInt8], random: (Int) throws -> [UInt8]) throws -> SecretBytes {
        precondition((1...maxLength).contains(length) && (2...256).contains(alphabet.count))
        // Bytes below `limit` map evenly onto the alphabet; the rest are drawn again.
        let limit = 256 - 256 % alphabet.count
        return try SecretBytes(count: length) { out in
            var filled = 0
            while filled < length {
                var batch = try random(length - filled + 8)
                defer { batch.wipe() }
                for byte in batch where filled < length && Int(byte) < limit {
                    out[filled] = alphabet[Int(byte) % alphabet.count]
                    filled += 1
                }
            }
        }
    }

    /// `count` bytes from SystemRandomNumberGenerator: the kernel's CSPRNG (getrandom(2)
    /// on Linux), not a user-space generator.
    static func systemRandom(_ count: Int) throws -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            var word = generator.next()
            withUnsafeBytes(of: &word) { bytes.append(contentsOf: $0) }
            word = 0
        }
        return Array(bytes.prefix(count))
    }
}
