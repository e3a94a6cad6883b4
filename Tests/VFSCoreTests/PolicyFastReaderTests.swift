import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore

/// The fast reader of the policy file and the relay copy against the JSONDecoder path:
/// what it reads, it reads to the same document (to the byte and the bit); what it does
/// not read plainly, it declines, and the decoder's error comes out as before.
@Suite("policy fast reader")
struct PolicyFastReaderTests {
    /// A seeded generator (SplitMix64), so a failure can be replayed.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Equal to the byte and the bit (`==` on String is canonical equivalence, on Date a Double compare).
    static func identical(_ a: PolicyDocument, _ b: PolicyDocument) -> Bool {
        func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
        func bits(_ d: Date?) -> UInt64? { d?.timeIntervalSinceReferenceDate.bitPattern }
        guard a.version == b.version, a.items.count == b.items.count else { return false }
        for (x, y) in zip(a.items, b.items) {
            guard bytes(x.id) == bytes(y.id), bytes(x.app) == bytes(y.app), bytes(x.name) == bytes(y.name),
                  x.groups.map(bytes) == y.groups.map(bytes), x.types.map(bytes) == y.types.map(bytes),
                  bits(x.expires) == bits(y.expires), x.enabled == y.enabled,
                  bits(x.created) == bits(y.created), bits(x.updated) == bits(y.updated) else { return false }
        }
        return true
    }

    enum Outcome: Equatable {
        case document(PolicyDocument)
        case error(String)
    }

    /// `PolicyCodec.decode` with and without the fast reader.
    static func outcomes(_ bytes: [UInt8]) -> (fast: Outcome, reference: Outcome) {
        func run(_ fast: Bool) -> Outcome {
            do { return .document(try PolicyCodec.decode(bytes, source: "p.json", fastPath: fast)) } catch { return .error("\(error)") }
        }
        return (run(true), run(false))
    }

    /// The same document, or both the same error (where the fast reader declined, both
    /// are the decoder's own, which names several unknown keys' first in alphabetical order).
    static func expectSameOutcome(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let (fast, reference) = outcomes(bytes)
        switch (fast, reference) {
        case let (.document(a), .document(b)):
            #expect(identical(a, b), "\(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
        case let (.error(a), .error(b)):
            #expect(a == b, sourceLocation: sourceLocation)
        default:
            Issue.record("the fast path and the decoder disagree: \(fast) against \(reference)", sourceLocation: sourceLocation)
        }
        let copy = Result { try RelayPolicyCache.decode(bytes, source: "c.json") }
        let copyReference = Result { try RelayPolicyCache.decode(bytes, source: "c.json", fastPath: false) }
        switch (copy, copyReference) {
        case let (.success(a), .success(b)):
            #expect(identical(a.document, b.document) && a.origin == b.origin, sourceLocation: sourceLocation)
        case let (.failure(a), .failure(b)):
            #expect("\(a)" == "\(b)", sourceLocation: sourceLocation)
        default:
            Issue.record("the relay copy reader and the decoder disagree: \(copy) against \(copyReference)", sourceLocation: sourceLocation)
        }
    }

    /// The fast reader reads `text` (it does not decline) to what the decoder reads.
    static func expectFast(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bytes = Array(text.utf8)
        let reference: PolicyDocument = try PolicyCodec.decodeValue(bytes, source: "p.json")
        let fast = try #require(PolicyFastReader.document(bytes), "declined: \(text)", sourceLocation: sourceLocation)
        #expect(identical(fast, reference), "\(text)", sourceLocation: sourceLocation)
        expectSameOutcome(bytes, sourceLocation: sourceLocation)
    }

    // MARK: - generated documents

    /// String pieces as written in JSON: plain, raw UTF-8, and every escape the reader knows.
    static let pieces = ["a", "App", "finance", "q3", " ", "-", ".", "é", "日本語", "😀", "Ω", "\\u00e9", "\\u00C9",
                         "\\u65e5", "\\ud83d\\ude00", "\\uD834\\uDD1E", "\\/", "\\\"", "\\\\", "\\n", "\\t", "\\b",
                         "\\f", "\\r", "\\u0000", "\\u001f", "\\u0041", "\\u007f", "~", "'", "<>&", "\u{7f}",
                         "\u{FEFF}", "\u{FFFF}", "\u{10FFFF}", "\u{2028}", "e\u{301}", "\\uFEFF", "\\uFFFE", "\\uDBFF\\uDFFF"]

    static func jsonString<R: RandomNumberGenerator>(_ rng: inout R, maxPieces: Int = 4) -> String {
        let count = Int.random(in: 0...maxPieces, using: &rng)
        return "\"" + (0..<count).map { _ in pieces.randomElement(using: &rng)! }.joined() + "\""
    }

    static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// A time that `PolicyDates.parseTime` reads, in one of the forms it takes.
    static func time<R: RandomNumberGenerator>(_ rng: inout R) -> String {
        let year = [Int.random(in: 1970...2100, using: &rng), Int.random(in: 1600...9999, using: &rng),
                    Int.random(in: 1000...1599, using: &rng)].randomElement(using: &rng)!
        let month = Int.random(in: 1...12, using: &rng)
        let day = Int.random(in: 1...28, using: &rng)
        var text = String(repeating: "0", count: 4 - String(year).count) + "\(year)-\(two(month))-\(two(day))"
        text += "T\(two(Int.random(in: 0...23, using: &rng))):\(two(Int.random(in: 0...59, using: &rng)))"
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: text += "+\(two(Int.random(in: 0...14, using: &rng))):30"
        case 1: text += ":\(two(Int.random(in: 0...59, using: &rng))).250z"
        case 2: text = text.replacingOccurrences(of: "T", with: "t") + ":00-05:00"
        default: text += ":\(two(Int.random(in: 0...59, using: &rng)))Z"
        }
        return "\"\(text)\""
    }

    /// White space between tokens: none, blanks, pretty-printed, tabs, CRLF.
    static func space<R: RandomNumberGenerator>(_ rng: inout R, style: Int) -> String {
        switch style {
        case 0: return ""
        case 1: return " "
        case 2: return "\n    "
        case 3: return "\t\n\t"
        default: return ["", " ", "\r\n", "\t", "\n\n  "].randomElement(using: &rng)!
        }
    }

    static func object<R: RandomNumberGenerator>(_ members: [(String, String)], _ rng: inout R, style: Int) -> String {
        let s = { (rng: inout R) in space(&rng, style: style) }
        let body = members.shuffled(using: &rng).map { "\(s(&rng))\"\($0.0)\"\(s(&rng)):\(s(&rng))\($0.1)" }.joined(separator: ",")
        return "{" + body + s(&rng) + "}"
    }

    static func list<R: RandomNumberGenerator>(_ values: [String], _ rng: inout R, style: Int) -> String {
        values.isEmpty ? ["[]", "[ ]", "[\n]"].randomElement(using: &rng)!
            : "[" + values.map { space(&rng, style: style) + $0 }.joined(separator: ",") + space(&rng, style: style) + "]"
    }

    /// A document the fast reader must read: random items, every optional key sometimes
    /// left out, keys in any order. With `valid`, items that also pass the rules.
    static func document<R: RandomNumberGenerator>(_ rng: inout R, relay: Bool = false) -> String {
        let style = Int.random(in: 0...4, using: &rng)
        let valid = Bool.random(using: &rng)
        let count = [0, 1, 2, 5, 20].randomElement(using: &rng)!
        var items: [String] = []
        for n in 0..<count {
            var members: [(String, String)] = []
            if valid {
                members.append(("id", "\"\(String(format: "%08x", n))\""))
                members.append(("app", "\"com.example.app\(n)\(["", "-x", "_y", "+"].randomElement(using: &rng)!)\""))
            } else {
                members.append(("id", jsonString(&rng)))
                members.append(("app", jsonString(&rng)))
            }
            if Bool.random(using: &rng) { members.append(("name", jsonString(&rng, maxPieces: 8))) }
            if Bool.random(using: &rng) {
                let groups = valid ? ["finance", "legal", "r\\u00e9seau", "\\u65e5\\u672c", "a\\/b", "😀"].shuffled(using: &rng)
                    .prefix(Int.random(in: 0...3, using: &rng)).map { "\"\($0)\"" } : (0..<Int.random(in: 0...3, using: &rng)).map { _ in jsonString(&rng) }
                members.append(("groups", list(Array(groups), &rng, style: style)))
            }
            if Bool.random(using: &rng) {
                let types = ["pdf", "txt", "tar-gz", "c++", "\\u0070ng"].shuffled(using: &rng)
                    .prefix(Int.random(in: 0...3, using: &rng)).map { "\"\($0)\"" }
                members.append(("types", list(Array(types), &rng, style: style)))
            }
            if Bool.random(using: &rng) { members.append(("expires", time(&rng))) }
            if Bool.random(using: &rng) { members.append(("enabled", Bool.random(using: &rng) ? "true" : "false")) }
            members.append(("created", time(&rng)))
            members.append(("updated", time(&rng)))
            items.append(object(members, &rng, style: style))
        }
        var members = [("version", "1"), ("items", list(items, &rng, style: style))]
        if relay {
            members.append(("relay", object([("url", jsonString(&rng)), ("revision", "\"\\\"r\(count)\\\"\""),
                                             ("fetched", time(&rng)), ("graceSeconds", "\(Int.random(in: 0...999_999_999, using: &rng))")],
                                            &rng, style: style)))
        }
        return space(&rng, style: style) + object(members, &rng, style: style) + space(&rng, style: style)
    }

    @Test("generated documents: the fast reader reads every one, to what the decoder reads; checked and sorted alike")
    func generated() throws {
        var rng = Seeded(state: 18)
        var accepted = 0
        for _ in 0..<400 {
            let text = Self.document(&rng)
            try Self.expectFast(text)
            if case .document = Self.outcomes(Array(text.utf8)).fast { accepted += 1 }
            // Not a relay copy: the copy's reader declines it.
            #expect(PolicyFastReader.relayCopy(Array(text.utf8)) == nil)
        }
        // Many pass the rules too (so the sort and the rules were compared, not only errors).
        #expect(accepted > 100)
    }

    @Test("generated relay copies: read with their origin as the decoder reads them")
    func generatedCopies() throws {
        var rng = Seeded(state: 1818)
        var accepted = 0
        for _ in 0..<150 {
            let bytes = Array(Self.document(&rng, relay: true).utf8)
            let reference: RelayPolicyCache.CacheFile = try PolicyCodec.decodeValue(bytes, source: "c.json")
            let fast = try #require(PolicyFastReader.relayCopy(bytes))
            #expect(Self.identical(PolicyDocument(items: fast.items), PolicyDocument(items: reference.items)))
            #expect(fast.relay == reference.relay)
            #expect(fast.relay.url.utf8.elementsEqual(reference.relay.url.utf8))
            #expect(PolicyFastReader.document(bytes) == nil)
            Self.expectSameOutcome(bytes)
            if (try? RelayPolicyCache.decode(bytes, source: "c.json")) != nil { accepted += 1 }
        }
        #expect(accepted > 30)
    }

    @Test("the fixtures: the tests' policy, the fuzz seeds, the encoder's own output, a 1,000-item policy")
    func fixtures() throws {
        try Self.expectFast(PolicyCodecTests.valid)
        let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/seeds/policy").standardized
        let seed = try String(contentsOf: seeds.appendingPathComponent("two-items.json"), encoding: .utf8)
        try Self.expectFast(seed)
        #expect(try PolicyCodec.decode(Array(seed.utf8), source: "s").items.count == 2)
        // The log line is not a policy: declined, and the decoder's error as before.
        let logLine = try Data(contentsOf: seeds.appendingPathComponent("log-line.json"))
        #expect(PolicyFastReader.document(Array(logLine)) == nil)
        Self.expectSameOutcome(Array(logLine))

        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let items = (0..<1000).map { (n: Int) -> PolicyItem in
            let groups: [String] = n % 3 == 0 ? [] : ["finance", "legal"]
            let expires: Date? = n % 2 == 0 ? nil : t0.addingTimeInterval(Double(n) * 86_399)
            return PolicyItem(id: String(format: "%08x", n), app: "com.example.app\(n)", name: "App \(n) é😀\"\\/\n",
                              groups: groups, types: ["pdf", "txt"], expires: expires,
                              enabled: n % 7 != 0, created: t0, updated: t0.addingTimeInterval(Double(n)))
        }
        let encoded = PolicyCodec.encode(PolicyDocument(items: items))
        try Self.expectFast(String(decoding: encoded, as: UTF8.self))
        #expect(try PolicyCodec.decode(encoded, source: "p") == PolicyDocument(items: items).sortedForTest())
        // The relay copy as vfs-policy sync writes it.
        let folder = try TestFolder()
        let cache = RelayPolicyCache(path: folder.path("policy-cache/organisation.json"))
        let origin = RelayPolicyOrigin(url: "http://127.0.0.1:9/é", revision: "\"r7\"", fetched: t0, graceSeconds: 259_200)
        try cache.save(PolicyDocument(items: items), origin: origin)
        let bytes = try #require(try PolicyStore.readIfPresent(cache.path))
        let fast = try #require(PolicyFastReader.relayCopy(bytes))
        #expect(fast.relay == origin)
        Self.expectSameOutcome(bytes)
        #expect(try cache.read()?.origin == origin)
    }

    // MARK: - what it declines

    @Test("declines anything irregular, and the decoder's error (or reading) comes out as before")
    func declines() throws {
        let valid = PolicyCodecTests.valid
        func replaced(_ a: String, _ b: String) -> String {
            precondition(valid.contains(a), a)
            return valid.replacingOccurrences(of: a, with: b)
        }
        let declined = [
            replaced("\"groups\"", "\"group\""),                               // unknown key
            replaced("\"name\" : \"Evince\",", "\"name\" : \"Evince\", \"name\" : \"X\","),  // duplicate key
            replaced("\"version\" : 1", "\"version\" : 1, \"version\" : 1"),
            replaced("\"name\"", "\"n\\u0061me\""),                            // a key with an escape
            replaced("\"name\" : \"Evince\"", "\"name\" : null"),              // null (the decoder reads "")
            replaced("\"groups\" : []", "\"groups\" : null"),
            replaced("\"enabled\" : true,", "\"enabled\" : true, \"expires\" : null,"),
            replaced("\"enabled\" : true", "\"enabled\" : 1"),                 // wrong types
            replaced("\"enabled\" : true", "\"enabled\" : \"true\""),
            replaced("\"types\" : [\n        \"pdf\"\n      ]", "\"types\" : \"pdf\""),
            replaced("\"pdf\"", "7"),
            replaced("\"version\" : 1", "\"version\" : 1.0"),                  // numbers other than plain
            replaced("\"version\" : 1", "\"version\" : 1e0"),
            replaced("\"version\" : 1", "\"version\" : 01"),
            replaced("\"version\" : 1", "\"version\" : -1"),
            replaced("\"version\" : 1", "\"version\" : 2"),
            replaced("\"version\" : 1", "\"version\" : 100000000000000000000001"),
            replaced("],\n  \"version\" : 1", "]"),                                  // missing keys
            replaced("\"id\" : \"0a1b2c3d\",", ""),
            replaced("\"created\" : \"2027-01-01T00:00:00Z\",", ""),
            replaced("Evince", "Ev\\ud800ince"),                               // a lone surrogate
            replaced("Evince", "Ev\\udc00ince"),
            replaced("Evince", "Ev\\ud800\\u0041ince"),
            replaced("Evince", "Ev\\qince"),                                   // unknown escape
            replaced("Evince", "Ev\\u12gince"),
            replaced("Evince", "Ev\tince"),                                    // a control character
            replaced("2027-01-02T00:00:00Z", "2027-02-29T00:00:00Z"),          // no such day
            replaced("2027-01-02T00:00:00Z", "2100-02-29T00:00:00Z"),
            replaced("2027-01-02T00:00:00Z", "2027-04-31T00:00:00Z"),
            replaced("2027-01-02T00:00:00Z", "2027-01-02T24:00:00Z"),
            replaced("2027-01-02T00:00:00Z", "2027-01-02T00:00:60Z"),
            replaced("2027-01-02T00:00:00Z", "2027-01-02 00:00:00Z"),
            replaced("2027-01-02T00:00:00Z", "yesterday"),
            replaced("\"2027-01-02T00:00:00Z\"", "1800000000"),
            "\u{FEFF}" + valid,                                                 // byte-order mark
            valid + "x",                                                        // trailing bytes
            valid + "{}",
            String(valid.dropLast(3)),                                          // truncated
            "{\"version\": 1, \"items\": {}}",
            "{\"version\": 1, \"items\": [1]}",
            "{\"version\": 1, \"items\": [], \"relay\": {}}",
            "[]", "{}", "1", "\"x\"", "",
        ]
        for text in declined {
            #expect(PolicyFastReader.document(Array(text.utf8)) == nil, "\(text)")
            Self.expectSameOutcome(Array(text.utf8))
        }
        // Bytes that are not UTF-8, raw and after an escape.
        for bad: [UInt8] in [[0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xC0, 0xAF]] {
            var bytes = Array(valid.utf8)
            let at = bytes.firstIndex(of: UInt8(ascii: "E"))!
            bytes.insert(contentsOf: bad, at: at)
            #expect(PolicyFastReader.document(bytes) == nil)
            Self.expectSameOutcome(bytes)
            bytes.insert(contentsOf: Array("\\n".utf8), at: at)
            #expect(PolicyFastReader.document(bytes) == nil)
            Self.expectSameOutcome(bytes)
        }
    }

    @Test("the errors of declined files are the decoder's, word for word")
    func errors() throws {
        let valid = PolicyCodecTests.valid
        #expect(PolicyCodecTests.corruption(valid.replacingOccurrences(of: "\"groups\"", with: "\"group\"")) ==
                .corrupt(file: "p.json", line: 7, column: nil, reason: "items[0].group: unknown key \"group\""))
        // Several unknown keys: the first in alphabetical order, whatever the decoder's
        // dictionary order (which changes from process to process).
        #expect(PolicyCodecTests.corruption(valid.replacingOccurrences(of: "\"groups\"", with: "\"zz\" : 1, \"mm\" : 2, \"ab\" : 3, \"groups\"")) ==
                .corrupt(file: "p.json", line: 7, column: nil, reason: "items[0].ab: unknown key \"ab\""))
        #expect(PolicyCodecTests.corruption(valid.replacingOccurrences(of: "2027-01-02T00:00:00Z", with: "2027-02-29T00:00:00Z")) ==
                .corrupt(file: "p.json", line: 13, column: nil,
                         reason: "items[0].updated: invalid time \"2027-02-29T00:00:00Z\" (write ISO 8601, such as 2027-01-31T00:00:00Z)"))
        #expect(PolicyCodecTests.corruption(valid.replacingOccurrences(of: "\"name\" : \"Evince\",", with: "\"name\" : \"Evince\", \"name\" : \"X\",")) ==
                .corrupt(file: "p.json", line: 9, column: 26, reason: "not valid JSON: duplicate key \"name\""))
        #expect(PolicyCodecTests.corruption(valid.replacingOccurrences(of: "\"enabled\" : true", with: "\"enabled\" : 1")) ==
                .corrupt(file: "p.json", line: 6, column: nil, reason: "items[0].enabled: expected true or false"))
        // What the fast reader reads but the rules refuse: the same message and line as before.
        #expect(PolicyCodecTests.corruption(valid.replacingOccurrences(of: "\"pdf\"", with: "\"pdf\", \"pdf\"")) ==
                .corrupt(file: "p.json", line: 11, column: nil, reason: "items[0].types[1]: type \"pdf\" is listed twice"))
        // null where a value may be left out reads as left out, as the decoder reads it.
        let null = valid.replacingOccurrences(of: "\"name\" : \"Evince\"", with: "\"name\" : null")
        #expect(try PolicyCodec.decode(Array(null.utf8), source: "p.json").items.first?.name == "")
    }

    @Test("the group rule decides ASCII by value exactly as by the Unicode white-space table")
    func groupCharacters() {
        var scalars = (0...0x3100).compactMap(Unicode.Scalar.init)
        scalars += [0xFEFF, 0x1F600, 0x10FFFF].compactMap(Unicode.Scalar.init)
        for s in scalars {
            let rule = !s.properties.isWhitespace && s.value >= 0x20 && s.value != 0x7F && s != ","
            let group = "g" + String(Character(s)) + "x"
            #expect(((try? PolicyRules.checkGroup(group)) != nil) == rule, "U+\(String(s.value, radix: 16))")
        }
    }

    @Test("times: the reader's arithmetic is parseTime's calendar, day for day from 1600 to 9999")
    func times() throws {
        var rng = Seeded(state: 86400)
        var texts: [String] = ["1600-01-01T00:00:00Z", "1600-02-29T23:59:59Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
                               "2000-02-29T12:00:00Z", "2024-02-29T00:00:00Z", "2100-03-01T00:00:00Z", "9999-12-31T23:59:59Z"]
        for _ in 0..<3000 {
            let seconds = Double(Int64.random(in: -11_676_096_000...253_402_300_799, using: &rng))
            texts.append(PolicyDates.format(Date(timeIntervalSince1970: seconds)))
        }
        for text in texts {
            let bytes = Array("\"\(text)\"".utf8)
            let fast = bytes.withUnsafeBufferPointer { PolicyFastReader.plainTime($0, 1) }
            let reference = try #require(PolicyDates.parseTime(text), "\(text)")
            #expect(fast?.timeIntervalSinceReferenceDate.bitPattern == reference.timeIntervalSinceReferenceDate.bitPattern, "\(text)")
        }
        for text in ["1900-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2027-06-31T00:00:00Z", "2027-13-01T00:00:00Z",
                     "2027-00-10T00:00:00Z", "2027-01-00T00:00:00Z", "2027-01-01T00:60:00Z"] {
            let bytes = Array("\"\(text)\"".utf8)
            #expect(bytes.withUnsafeBufferPointer { PolicyFastReader.plainTime($0, 1) } == nil, "\(text)")
            #expect(PolicyDates.parseTime(text) == nil, "\(text)")
        }
        // Before 1600 the reader leaves the time to parseTime (the calendar is Julian before 1582).
        #expect(Array("\"1500-03-01T00:00:00Z\"".utf8).withUnsafeBufferPointer { PolicyFastReader.plainTime($0, 1) } == nil)
    }
}

extension PolicyDocument {
    func sortedForTest() -> PolicyDocument {
        var copy = self
        copy.sort()
        return copy
    }
}
