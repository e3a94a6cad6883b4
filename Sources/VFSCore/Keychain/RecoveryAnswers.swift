#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
// Canonical composition and case folding from the standard library's Unicode data
// (String._nfc, Unicode.Scalar.Properties._caseFolded), not Foundation's, so vfs-keychain
// needs no ICU. RecoveryAnswersTests pin the results (and compare them with Foundation).
@_spi(_Unicode) import Swift

/// The secret a recovery slot is wrapped under: the answers to its questions, each
/// normalised so that "  New   York " and "new york" are the same answer, then
/// joined without ambiguity (each prefixed by its UTF-8 length as a big-endian u32).
public enum RecoveryAnswers {
    /// Canonical composition (NFC), trimmed, inner whitespace runs collapsed to one
    /// space, Unicode case folding ("Straße" and "STRASSE" agree).
    public static func normalise(_ answer: String) -> String {
        var composed = String.UnicodeScalarView()
        for scalar in answer._nfc { composed.append(scalar) }
        let words = String(composed).split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        var folded = String.UnicodeScalarView()
        for scalar in words.unicodeScalars { folded.append(contentsOf: fold(scalar).unicodeScalars) }
        return String(folded)
    }

    /// One scalar's full case folding (CaseFolding.txt, C and F), as Foundation's
    /// `folding(options: .caseInsensitive, locale: nil)` did when vfs used it, so answers
    /// set then still open their slot: Cherokee folded to its lowercase letters (the
    /// standard folds them to the capitals), and the letters newer than Foundation's
    /// tables (Unicode 9's Cyrillic variants U+1C80–U+1C89, Unicode 14 and 16's Latin
    /// U+A7CB–U+A7DC, Garay, Kirat Rai) left as they are.
    static func fold(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x13A0...0x13F5, 0x13F8...0x13FD, 0xAB70...0xABBF:
            return scalar.properties.lowercaseMapping
        case 0x1C80...0x1C89, 0xA7CB, 0xA7CC, 0xA7CE, 0xA7D2, 0xA7D4, 0xA7DA, 0xA7DC,
             0x10D50...0x10D65, 0x16EA0...0x16EB8:
            return String(scalar)
        default:
            return scalar.properties._caseFolded
        }
    }

    public static func secret(_ answers: [String]) -> SecretBytes {
        var joined: [UInt8] = []
        defer { joined.wipe() }
        for answer in answers {
            let bytes = Array(normalise(answer).utf8)
            var writer = ByteWriter()
            writer.u32(UInt32(bytes.count))
            joined += writer.bytes + bytes
        }
        return SecretBytes(copying: joined)
    }
}

/// The text files `init --questions` and `--answers-file` read.
public enum RecoveryText {
    /// Questions, one a line; blank lines and `#` comments skipped, each trimmed.
    public static func questions(in text: String) -> [String] {
        lines(text).map { $0.trimmingUnicodeWhitespace() }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// Answers, one a line, kept as written (a final newline ends the last one).
    public static func answers(in text: String) -> [String] {
        var lines = lines(text)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The lines of `text`, ended by LF or CRLF. (Swift sees "\r\n" as one Character,
    /// so splitting on "\n" alone would leave a CRLF file one long line.)
    static func lines(_ text: String) -> [String] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map(String.init)
    }
}

/// How a secret given on standard input is stored.
public enum PipedSecret {
    /// The most a secret may hold; larger data belongs in an encrypted file.
    public static let maxCount = 16 << 20

    /// `bytes` less one trailing newline (LF or CRLF), so that echo and here-strings
    /// store what was meant; all of them with `raw`.
    public static func trimmed(_ bytes: [UInt8], raw: Bool) -> ArraySlice<UInt8> {
        var end = bytes.count
        if !raw && end > 0 && bytes[end - 1] == 0x0A {
            end -= 1
            if end > 0 && bytes[end - 1] == 0x0D { end -= 1 }
        }
        return bytes[0..<end]
    }
}
