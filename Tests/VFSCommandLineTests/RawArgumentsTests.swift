import Testing
import VFSCommandLine

@Suite("raw command-line bytes")
struct RawArgumentsTests {
    static let options: [String: Character?] = ["passes": "n", "include": nil, "exclude": nil]

    func parse(_ arguments: [[UInt8]]) -> RawArguments { RawArguments(arguments, valueOptions: Self.options) }

    @Test("values and positionals keep their bytes, in every spelling ArgumentParser takes")
    func spellings() {
        let ff: [UInt8] = [0x61, 0xFF], fe: [UInt8] = [0x61, 0xFE]
        let raw = parse([Array("--exclude".utf8), ff, fe, Array("-rn".utf8), Array("3".utf8), Array("--include=".utf8) + fe,
                         Array("-v".utf8), Array("-".utf8), Array("--".utf8), Array("--exclude".utf8), Array("-n2".utf8)])
        #expect(raw.values["exclude"] == [ff])
        #expect(raw.values["include"] == [fe])
        #expect(raw.values["passes"] == [Array("3".utf8)])
        #expect(raw.positionals == [fe, Array("-".utf8), Array("--exclude".utf8), Array("-n2".utf8)])
        #expect(parse([Array("-zn1".utf8), ff]).values["passes"] == [Array("1".utf8)])
        #expect(parse([Array("-zn1".utf8), ff]).positionals == [ff])
    }

    @Test("the sequence keeps each value's place among the positionals (tar's -C between paths)")
    func sequence() {
        let raw = RawArguments(["a", "-Cx", "b", "--directory", "y", "--", "-C", "c"].map { Array($0.utf8) },
                               valueOptions: ["directory": "C"])
        #expect(raw.sequence.map { $0.option } == [nil, "directory", nil, "directory", nil, nil])
        #expect(raw.sequence.map { String(decoding: $0.value, as: UTF8.self) } == ["a", "x", "b", "y", "-C", "c"])
    }

    @Test("agreement: the same count and the same text once decoded; names that differ only in bytes that are not UTF-8 decode alike")
    func agreement() {
        let ff: [UInt8] = [0x61, 0xFF], fe: [UInt8] = [0x61, 0xFE]
        #expect(RawArguments.agree([ff, fe], ["a\u{FFFD}", "a\u{FFFD}"]))
        #expect(!RawArguments.agree([ff], ["a\u{FFFD}", "b"]))
        #expect(!RawArguments.agree([Array("b".utf8)], ["a"]))
    }
}
