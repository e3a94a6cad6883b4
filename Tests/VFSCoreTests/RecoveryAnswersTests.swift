import Foundation
import Testing
@testable import VFSCore

/// Recovery answers are normalised with the standard library's Unicode data (NFC and
/// case folding), not Foundation's: the same answer must keep giving the same secret, so
/// the results are pinned here, and compared with what Foundation gave when vfs used it.
/// A toolchain upgrade that changes either fails here before it strands a recovery slot.
@Suite("recovery answers")
struct RecoveryAnswersTests {
    static func scalars(_ text: String) -> [UInt32] { text.unicodeScalars.map(\.value) }

    /// What vfs did before (full Foundation): NFC, whitespace collapsed, case folded.
    static func foundationNormalise(_ answer: String) -> String {
        let composed = answer.precomposedStringWithCanonicalMapping
        let words = composed.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return words.folding(options: [.caseInsensitive], locale: nil)
    }

    static let pinned: [(input: String, expected: [UInt32])] = [
        ("e\u{301}", [0xE9]),                                  // composed
        ("\u{1E9B}\u{323}", [0x1E61, 0x323]),                  // long s with dot: NFC, then folded
        ("\u{212B}", [0xE5]),                                  // Ångström sign → å
        ("A\u{30A}", [0xE5]),
        ("\u{1100}\u{1161}\u{11A8}", [0xAC01]),                // Hangul jamo → syllable
        ("\u{D55C}\u{AD6D}", [0xD55C, 0xAD6D]),                // already NFC, no case
        ("q\u{307}\u{323}", [0x71, 0x323, 0x307]),             // canonical order
        ("  New   York \t", Array("new york".unicodeScalars.map(\.value))),
        ("Tschüß", [0x74, 0x73, 0x63, 0x68, 0xFC, 0x73, 0x73]), // ß folds to ss
        ("\u{1E9E}", [0x73, 0x73]),                            // capital sharp s
        ("\u{130}", [0x69, 0x307]),                            // İ, no Turkish locale
        ("\u{3A3}\u{38A}\u{3A3}\u{3C2}", [0x3C3, 0x3AF, 0x3C3, 0x3C3]), // sigmas, final too
        ("\u{1F0}", [0x6A, 0x30C]),                            // ǰ has no capital: folds apart
        ("\u{FB03}", [0x66, 0x66, 0x69]),                      // ﬃ
        ("\u{1F88}", [0x1F00, 0x3B9]),                         // ᾈ
        ("\u{13A0}\u{AB70}", [0xAB70, 0xAB70]),                // Cherokee: to its lowercase, as Foundation
        ("\u{1C80}", [0x1C80]),                                // newer than Foundation's tables: kept
        ("\u{10D50}", [0x10D50]),
        ("日本語", [0x65E5, 0x672C, 0x8A9E]),
    ]

    @Test("NFC and case folding give the pinned scalars")
    func pinnedVectors() {
        for (input, expected) in Self.pinned {
            #expect(Self.scalars(RecoveryAnswers.normalise(input)) == expected, "\(Self.scalars(input))")
        }
    }

    @Test("the same as Foundation's normalisation, for every BMP scalar and the pinned strings")
    func sameAsFoundation() {
        var inputs = Self.pinned.map(\.input)
        for value in UInt32(0)...0xFFFF {
            if let scalar = Unicode.Scalar(value) { inputs.append(String(scalar)) }
        }
        for value in UInt32(0x10D50)...0x10D65 { inputs.append(String(Unicode.Scalar(value)!)) }
        for value in UInt32(0x16EA0)...0x16EB8 { inputs.append(String(Unicode.Scalar(value)!)) }
        var differing: [[UInt32]] = []
        for input in inputs where Self.scalars(RecoveryAnswers.normalise(input)) != Self.scalars(Self.foundationNormalise(input)) {
            differing.append(Self.scalars(input))
        }
        #expect(differing.isEmpty, "\(differing.prefix(20))")
    }

    @Test("trimmingUnicodeWhitespace, PathText.parent and DecimalText behave as the Foundation calls they replace")
    func textHelpers() {
        for text in ["  a b \t", "\u{3000}x\u{A0}", "", " ", "\ty\n", "z"] {
            #expect(text.trimmingUnicodeWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(Array(text.unicodeScalars))")
        }
        // What NSString's deletingLastPathComponent gives for each (checked by hand: in
        // this test runner it traps now and then).
        let parents = ["/a/b": "/a", "/a": "/", "a/b/": "a", "a": "", "/": "/", "a//b": "a", "/a/b//": "/a", "//a": "/", "": ""]
        for (path, parent) in parents {
            #expect(PathText.parent(path) == parent, "\(path)")
        }
        for value in [0.0, 2.54, 99.95, 12.345, 0.04, 100.0, 1234.5678] {
            #expect(DecimalText.oneDecimal(value) == String(format: "%.1f", value), "\(value)")
        }
    }
}
