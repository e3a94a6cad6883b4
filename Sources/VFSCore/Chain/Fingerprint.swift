#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Codes people compare out of band (docs/device-chain.md).
package enum Fingerprint {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)  // RFC 4648 base32

    /// A device's fingerprint: 125 bits of SHA-256 over a context string, its signing key
    /// and its recipient (each after its 64-bit length: the relay may list any length), in RFC 4648 base32 as five groups of five, as
    /// Syncthing shows device ids: `ABCDE-FGHIJ-KLMNO-PQRST-UVWXY`.
    ///
    /// A send-only device's (issue 48) has another context string: the role is part of
    /// what people compare, so a relay that lists a send-only device as a reader (or the
    /// other way round) shows the approver another fingerprint than the device's own.
    public static func device(signingKey: [UInt8], recipient: String, sendOnly: Bool = false) -> String {
        var input = CanonicalWriter()
        input.raw(Array((sendOnly ? "vfs send-only device fingerprint v1\0" : "vfs device fingerprint v1\0").utf8))
        input.field64(signingKey)
        input.field64(Array(recipient.utf8))
        let characters = base32(SHA256.hash(input.bytes), count: 25)
        return stride(from: 0, to: 25, by: 5).map { String(decoding: characters[$0..<$0 + 5], as: UTF8.self) }.joined(separator: "-")
    }

    /// The first `count` RFC 4648 base32 characters of `bytes` (the bits past the last
    /// byte are zero): fingerprints and recovery keys.
    static func base32(_ bytes: [UInt8], count: Int) -> [UInt8] {
        var characters: [UInt8] = []
        var buffer = 0, bits = 0
        for byte in bytes + [0] where characters.count < count {
            buffer = buffer << 8 | Int(byte); bits += 8
            while bits >= 5 && characters.count < count {
                bits -= 5
                characters.append(alphabet[(buffer >> bits) & 31])
            }
            buffer &= (1 << bits) - 1
        }
        return characters
    }

    /// A fingerprint as typed, normalised for comparison: uppercase, without spaces or
    /// dashes; nil if what remains is not 25 base32 characters.
    public static func normalised(_ typed: String) -> String? {
        let kept = typed.uppercased().unicodeScalars.filter { $0 != "-" && $0 != " " }
        guard kept.count == 25, kept.allSatisfy({ $0.isASCII && alphabet.contains(UInt8($0.value)) }) else { return nil }
        return String(String.UnicodeScalarView(kept))
    }

    /// True if `typed` is `fingerprint`, whatever its case, spaces and dashes.
    public static func matches(_ typed: String, _ fingerprint: String) -> Bool {
        guard let a = normalised(typed), let b = normalised(fingerprint) else { return false }
        return a == b
    }

    /// One user's share of a safety code, as Signal's numeric fingerprints iterate: 5200
    /// rounds of SHA-256 over the root key and the user's id (the rounds make it costly to
    /// grind a root key whose share looks alike).
    public static func safetyShare(user: String, rootKey: [UInt8]) -> [UInt8] {
        var start = CanonicalWriter()
        start.raw(Array("vfs safety code v1\0".utf8))
        start.field64(rootKey)
        start.field64(Array(user.utf8))
        var hash = SHA256.hash(start.bytes)
        for _ in 0..<5200 { hash = SHA256.hash(hash + rootKey) }
        return hash
    }

    /// The safety code of two users: 60 digits, shown as twelve groups of five, every one
    /// of them derived from both users' shares (the smaller first, so both sides see the
    /// same code). A relay that substitutes one side's root changes every group: no half
    /// of the code stays the same for it to hide behind (issue 43, item 7).
    public static func safetyCode(_ a: (user: String, rootKey: [UInt8]), _ b: (user: String, rootKey: [UInt8])) -> String {
        let shares = [safetyShare(user: a.user, rootKey: a.rootKey), safetyShare(user: b.user, rootKey: b.rootKey)]
            .sorted { $0.lexicographicallyPrecedes($1) }
        var input = CanonicalWriter()
        input.raw(Array("vfs safety code v2\0".utf8))
        input.field64(shares[0])
        input.field64(shares[1])
        let bytes = SHA256.hash(input.bytes + [1]) + SHA256.hash(input.bytes + [2])
        return (0..<12).map { group -> String in
            let value = bytes[group * 5..<group * 5 + 5].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 100_000
            let digits = String(value)
            return String(repeating: "0", count: 5 - digits.count) + digits
        }.joined(separator: " ")
    }
}
