import Testing
@testable import VFSCore

/// A source that yields `prefix`, then `count` bytes made by repeating `pattern`,
/// without holding them, and counts what was read.
final class GeneratedSource: ByteSource {
    private let prefix: [UInt8]
    private let pattern: [UInt8]
    private let total: Int
    private(set) var consumed = 0

    init(prefix: String, pattern: String, count: Int) {
        self.prefix = Array(prefix.utf8)
        self.pattern = Array(pattern.utf8)
        total = self.prefix.count + count
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, total - consumed)
        for i in 0..<n {
            let at = consumed + i
            buffer[i] = at < prefix.count ? prefix[at] : pattern[(at - prefix.count) % pattern.count]
        }
        consumed += n
        return n
    }
}

@Suite("age header limits")
struct HeaderLimitTests {
    static let version = "age-encryption.org/v1\n"

    func parse(_ source: GeneratedSource) throws -> Header {
        try Header.parse(from: BufferedSource(source))
    }

    @Test("a 64 MiB stanza line is refused after reading about the line limit, not the line",
          arguments: ["-> X25519 ", "-> X25519 AAAA\n", "-> grease\nAAAA"])
    func longLine(prefix: String) throws {
        let source = GeneratedSource(prefix: Self.version + prefix, pattern: "AAAA", count: 64 << 20)
        #expect(throws: AgeError.header("a header line is longer than \(Header.maxLineLength) bytes")) { try parse(source) }
        #expect(source.consumed < 4 * Header.maxLineLength, "read \(source.consumed) bytes")
    }

    @Test("a 64 MiB version line is refused early too")
    func longVersionLine() throws {
        let source = GeneratedSource(prefix: "", pattern: "age-encryption.org/v1", count: 64 << 20)
        #expect(throws: AgeError.header("a header line is longer than \(Header.maxLineLength) bytes")) { try parse(source) }
        #expect(source.consumed < 4 * Header.maxLineLength)
    }

    @Test("endless small stanzas are refused at the header size limit")
    func headerSize() throws {
        let source = GeneratedSource(prefix: Self.version, pattern: "-> grease a b c\nAAAA\n", count: 64 << 20)
        #expect(throws: AgeError.header("the header is larger than \(Header.maxSize >> 20) MiB")) { try parse(source) }
        #expect(source.consumed < Header.maxSize + 4 * Header.maxLineLength)
    }

    @Test("a stanza line exactly at the limit parses")
    func lineAtLimit() throws {
        let argument = String(repeating: "a", count: Header.maxLineLength - "-> grease ".count)
        let text = Self.version + "-> grease \(argument)\n\n-> X25519 AAAA\nAAAA\n--- " + String(repeating: "A", count: 43) + "\n"
        let header = try Header.parse(from: BufferedSource(MemorySource(Array(text.utf8))))
        #expect(header.stanzas.count == 2)
        #expect(header.stanzas[0].arguments == [argument])
        let over = Self.version + "-> grease a\(argument)\n\n--- " + String(repeating: "A", count: 43) + "\n"
        #expect(throws: AgeError.header("a header line is longer than \(Header.maxLineLength) bytes")) {
            try Header.parse(from: BufferedSource(MemorySource(Array(over.utf8))))
        }
    }

    @Test("a long line stops buffered line reading without consuming the rest")
    func bufferedLimit() throws {
        let source = BufferedSource(MemorySource(Array("abcdefgh\nxy\n".utf8)))
        #expect(try source.readLine(maxLength: 3) == Array("abcd".utf8))
        #expect(try source.readLine(maxLength: 3) == Array("efgh".utf8))
        #expect(try source.readLine(maxLength: 3) == Array("\n".utf8))
        #expect(try source.readLine(maxLength: 3) == Array("xy\n".utf8))
        #expect(try source.readLine(maxLength: 3) == [])
    }
}

@Suite("armor line limit")
struct ArmorLimitTests {
    @Test("a 64 MiB armor line is refused after reading about a kilobyte of it")
    func longArmorLine() throws {
        let source = GeneratedSource(prefix: "-----BEGIN AGE ENCRYPTED FILE-----\n", pattern: "YWdl", count: 64 << 20)
        let buffered = BufferedSource(source)
        #expect(throws: AgeError.armor("a line is longer than 64 columns")) {
            let decryptor = try AgeDecryptor(source: buffered)
            _ = decryptor
        }
        #expect(source.consumed < 64 * 1024, "read \(source.consumed) bytes")
    }
}
