import Foundation

/// The secret a recovery slot is wrapped under: the answers to its questions, each
/// normalised so that "  New   York " and "new york" are the same answer, then
/// joined without ambiguity (each prefixed by its UTF-8 length as a big-endian u32).
public enum RecoveryAnswers {
    /// Canonical composition (NFC), trimmed, inner whitespace runs collapsed to one
    /// space, Unicode case folding ("Straße" and "STRASSE" agree).
    public static func normalise(_ answer: String) -> String {
        let composed = answer.precomposedStringWithCanonicalMapping
        let words = composed.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return words.folding(options: [.caseInsensitive], locale: nil)
    }

    public static func secret(_ answers: [String]) -> SecretBytes {
        var joined: [UInt8] = []
        defer { for i in joined.indices { joined[i] = 0 } }
        for answer in answers {
            let bytes = Array(normalise(answer).utf8)
            var writer = ByteWriter()
            writer.u32(UInt32(bytes.count))
            joined += writer.bytes + bytes
        }
        return SecretBytes(copying: joined)
    }
}
