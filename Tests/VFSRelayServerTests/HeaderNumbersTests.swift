import Foundation
import Testing
import VFSRelayProtocol
import VFSTestSupport

/// The parsers of the numbers a client writes in headers (Range, tus, Content-Length):
/// what they accept, and that no input traps them or yields a range outside the file.
@Suite("header numbers")
struct HeaderNumbersTests {
    let max = Int64.max

    @Test("Range (RFC 9110 §14): the satisfiable ranges inside the file; another unit, or an empty file's suffix, is the whole; none satisfiable or garbage is 416")
    func ranges() {
        let huge = "99999999999999999999999999"
        // One range, or nil for 416.
        let single: [(String, Int64, Range<Int64>?)] = [
            ("bytes=0-99", 1000, 0..<100), ("bytes=500-", 1000, 500..<1000), ("bytes=-10", 1000, 990..<1000),
            ("bytes=0-9223372036854775807", 1000, 0..<1000), ("bytes=0-\(huge)", 1000, 0..<1000),
            ("bytes=-9223372036854775807", 1000, 0..<1000), ("bytes=-\(huge)", 1000, 0..<1000), ("bytes=-1000", 1000, 0..<1000),
            ("bytes=999-999", 1000, 999..<1000), ("bytes= 1-2\t", 1000, 1..<3),
            ("bytes=0-9223372036854775806", max, 0..<(max - 1) + 1), ("bytes=0-9223372036854775807", max, 0..<max),
            ("bytes=9223372036854775806-", max, (max - 1)..<max), ("bytes=-1", max, (max - 1)..<max),
            ("bytes=9223372036854775807-", 1000, nil), ("bytes=9223372036854775807-", max, nil), ("bytes=\(huge)-", max, nil),
            ("bytes=1000-", 1000, nil), ("bytes=-0", 1000, nil), ("bytes=0-0", 0, nil),
            ("bytes=abc", 1000, nil), ("bytes=-", 1000, nil),
            ("bytes=--1", 1000, nil), ("bytes=+1-2", 1000, nil), ("bytes=1-+2", 1000, nil), ("bytes=1-0", 1000, nil),
            ("bytes=-9223372036854775808", 1000, 0..<1000), ("bytes=0x1-", 1000, nil), ("bytes", 1000, nil),
            ("", 1000, nil), ("bytes=1 - 2", 1000, nil), ("bytes=١-٢", 1000, nil), ("bytes=1-2-3", 1000, nil),
            // The unit is case-insensitive; empty list elements are ignored.
            ("BYTES=0-9", 1000, 0..<10), ("Bytes=-5", 1000, 995..<1000), ("bytes=0-9,", 1000, 0..<10), ("bytes=, ,0-9 ,", 1000, 0..<10),
            // A set: the unsatisfiable elements are left out.
            ("bytes=0-9,1000000-", 1000, 0..<10), ("bytes=2000-,-0,5-", 1000, 5..<1000),
            ("bytes=1000-,2000-", 1000, nil), ("bytes=,", 1000, nil), ("bytes=0-9,x", 1000, nil),
            ("=0-9", 1000, nil), ("by tes=0-9", 1000, nil), ("bytes =0-9", 1000, nil),
        ]
        for (header, size, expected) in single {
            let answer = HeaderNumbers.rangeAnswer(header, size: size)
            #expect(answer == (expected.map { .ranges([$0]) } ?? .unsatisfiable), "\(header) of \(size) bytes")
        }
        let others: [(String, Int64, HeaderNumbers.RangeAnswer)] = [
            // Another unit MUST be ignored.
            ("items=0-1", 1000, .whole), ("ITEMS=0-9", 0, .whole), ("lines=anything at all", 1000, .whole),
            // On an empty file a suffix is the one satisfiable form: the whole (empty) file.
            ("bytes=-5", 0, .whole), ("bytes=0-9,-1", 0, .whole),
            ("bytes=0-1,3-4", 1000, .ranges([0..<2, 3..<5])), ("bytes=-1,-2", 1000, .ranges([999..<1000, 998..<1000])),
            ("bytes=0-9,20-29", 1000, .ranges([0..<10, 20..<30])),
        ]
        for (header, size, expected) in others {
            #expect(HeaderNumbers.rangeAnswer(header, size: size) == expected, "\(header) of \(size) bytes")
        }
        #expect(HeaderNumbers.rangeHeader("bytes=5-") == .bytes([.from(5, through: nil)]))
        #expect(HeaderNumbers.rangeHeader("bytes=-5, 1-2") == .bytes([.suffix(5), .from(1, through: 2)]))
        #expect(HeaderNumbers.rangeHeader("Items=5-") == .otherUnit)
        #expect(HeaderNumbers.rangeHeader("bytes=2-1") == nil)
    }

    @Test("tus and Content-Length numbers: digits only, at most Int64.max")
    func byteCounts() {
        let cases: [(String, Int64?)] = [
            ("0", 0), ("10", 10), ("007", 7), ("9223372036854775807", max), ("9223372036854775808", nil),
            ("99999999999999999999", nil), ("-1", nil), ("+5", nil), ("", nil), (" 5", nil), ("5 ", nil), ("1e3", nil),
            ("0x10", nil), ("١٢", nil), ("5\u{0}", nil),
        ]
        for (text, expected) in cases { #expect(HeaderNumbers.byteCount(text) == expected, "\"\(text)\"") }
        #expect(HeaderNumbers.fits(max, at: 1, within: 10) == false)
        #expect(HeaderNumbers.fits(max, at: 1, within: max) == false)
        #expect(HeaderNumbers.fits(max - 1, at: 1, within: max))
        #expect(HeaderNumbers.fits(9, at: 1, within: 10) && !HeaderNumbers.fits(10, at: 1, within: 10))
        #expect(HeaderNumbers.fits(0, at: 11, within: 10) == false)
    }

    /// Hostile header values made of the pieces that break parsers: long digit runs,
    /// Int64's limits, signs, separators, spaces, units and random bytes.
    static func generated(count: Int) -> [[UInt8]] {
        let pieces = ["bytes=", "bytes=", "-", "-", ",", " ", "\t", "+", "0", "9223372036854775807", "9223372036854775808",
                      "18446744073709551615", "99999999999999999999999999999999", "items=", "=", "0x", "e", "١", "\u{0}"]
        var stream = Array(testBytes(count * 128, seed: 25)).makeIterator()
        func next() -> Int { Int(stream.next()!) }
        var out = [[UInt8]]()
        for _ in 0..<count {
            var size = [UInt8]()
            for _ in 0..<8 { size.append(UInt8(next())) }
            // Small sizes as often as big ones: the edges of a real file.
            if next() % 2 == 0 { size = [0, 0, 0, 0, 0, 0, UInt8(next() % 4), UInt8(next())] }
            func piece() -> [UInt8] {
                switch next() % 3 {
                case 0: return [UInt8(next())]
                default: return Array(pieces[next() % pieces.count].utf8)
                }
            }
            func number() -> [UInt8] {
                switch next() % 5 {
                case 0: return []
                case 1: return Array(String(repeating: "9", count: 1 + next() % 24).utf8)
                case 2: return Array(String(next() * next() * 4).utf8)
                case 3: return Array(String(next() % 8).utf8)
                default: return piece()
                }
            }
            // Mostly the shape of a range, so the accepting paths run too; then a tail.
            var text = next() % 4 == 0 ? piece() : Array("bytes=".utf8)
            text += number() + (next() % 4 == 0 ? piece() : Array("-".utf8)) + number()
            for _ in 0..<(next() % 4 == 0 ? 1 + next() % 4 : 0) { text += next() % 2 == 0 ? piece() : number() }
            out.append(size + text)
        }
        return out
    }

    @Test("10,000 generated hostile inputs and the fuzz seeds: no trap, every accepted range lies inside the file, fits agrees with exact arithmetic")
    func generatedInputs() throws {
        let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/seeds/relay-headers")
        let seedInputs = try FileManager.default.contentsOfDirectory(atPath: seeds.path).sorted()
            .map { Array(try Data(contentsOf: seeds.appendingPathComponent($0))) }
        #expect(seedInputs.count >= 8)
        var accepted = 0
        for input in seedInputs + Self.generated(count: 10_000) {
            // The fuzz target's own checks (preconditions: a failure traps the test).
            HeaderNumbers.exercise(input)
            let size = Int64(bitPattern: input.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } & UInt64(Int64.max))
            let header = String(decoding: input.dropFirst(8), as: UTF8.self)
            if case .ranges(let ranges) = HeaderNumbers.rangeAnswer(header, size: size) {
                accepted += 1
                for range in ranges {
                    #expect(!range.isEmpty && range.lowerBound >= 0 && range.upperBound <= size, "\(header) of \(size) bytes → \(range)")
                }
            }
        }
        // The generator reaches the accepting paths, not only the refusals.
        #expect(accepted > 50)
    }
}
