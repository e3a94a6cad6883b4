/// A strict JSON (RFC 8259) reader that knows where it is: it names the line and
/// column of a syntax error, rejects duplicate keys, and finds the line on which the
/// value at a coding path starts, so a policy that does not parse is reported with
/// the line a person has to fix.
struct JSONLocator {
    struct SyntaxError: Error, Equatable {
        let line: Int
        let column: Int
        let message: String
    }

    enum PathComponent: Equatable {
        case key(String)
        case index(Int)
    }

    private let bytes: [UInt8]
    private var i = 0
    private var target: [PathComponent]?
    /// Where the reader is, kept only while looking for `target`.
    private var path: [PathComponent] = []
    private var found: Int?
    private static let maxDepth = 256

    private init(_ bytes: [UInt8], target: [PathComponent]?) {
        self.bytes = bytes
        self.target = target
    }

    /// Throws a `SyntaxError` if `bytes` is not one well-formed JSON value.
    static func validate(_ bytes: [UInt8]) throws {
        var reader = JSONLocator(bytes, target: nil)
        try reader.document()
    }

    /// The 1-based line on which the value at `path` starts (nil if there is none).
    static func line(of path: [PathComponent], in bytes: [UInt8]) -> Int? {
        var reader = JSONLocator(bytes, target: path)
        try? reader.document()
        return reader.found.map { reader.position(of: $0).line }
    }

    /// 1-based line and column (in characters) of a byte offset.
    func position(of offset: Int) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for byte in bytes[0..<min(offset, bytes.count)] {
            if byte == 0x0A { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return (line, column)
    }

    private func fail(_ message: String, at offset: Int? = nil) -> SyntaxError {
        let p = position(of: offset ?? i)
        return SyntaxError(line: p.line, column: p.column, message: message)
    }

    private mutating func document() throws {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        skipSpace()
        try value(depth: 0)
        skipSpace()
        guard i == bytes.count else { throw fail("unexpected \(describe(i)) after the end of the document") }
    }

    private mutating func skipSpace() {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    }

    private func describe(_ at: Int) -> String {
        guard at < bytes.count else { return "end of file" }
        let b = bytes[at]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return b == 0x0A ? "line break" : "byte 0x" + String(b, radix: 16)
    }

    private mutating func value(depth: Int) throws {
        if let target, found == nil, path == target { found = i }
        guard depth < Self.maxDepth else { throw fail("nested too deeply") }
        guard i < bytes.count else { throw fail("unexpected end of file, expected a value") }
        switch bytes[i] {
        case 0x7B: try object(depth: depth)
        case 0x5B: try array(depth: depth)
        case 0x22: _ = try string(keep: false)
        case 0x2D, 0x30...0x39: try number()
        case 0x74: try literal("true")
        case 0x66: try literal("false")
        case 0x6E: try literal("null")
        default: throw fail("unexpected \(describe(i)), expected a value")
        }
    }

    private mutating func object(depth: Int) throws {
        i += 1
        skipSpace()
        if i < bytes.count, bytes[i] == 0x7D { i += 1; return }
        var keys = Set<String>()
        while true {
            guard i < bytes.count, bytes[i] == 0x22 else { throw fail("unexpected \(describe(i)), expected a key in quotes") }
            let keyStart = i
            let key = try string(keep: true)
            guard keys.insert(key).inserted else { throw fail("duplicate key \"\(key)\"", at: keyStart) }
            skipSpace()
            guard i < bytes.count, bytes[i] == 0x3A else { throw fail("unexpected \(describe(i)), expected ':'") }
            i += 1
            skipSpace()
            if target != nil { path.append(.key(key)) }
            try value(depth: depth + 1)
            if target != nil { path.removeLast() }
            skipSpace()
            guard i < bytes.count else { throw fail("unexpected end of file, expected ',' or '}'") }
            if bytes[i] == 0x2C { i += 1; skipSpace(); continue }
            if bytes[i] == 0x7D { i += 1; return }
            throw fail("unexpected \(describe(i)), expected ',' or '}'")
        }
    }

    private mutating func array(depth: Int) throws {
        i += 1
        skipSpace()
        if i < bytes.count, bytes[i] == 0x5D { i += 1; return }
        var index = 0
        while true {
            if target != nil { path.append(.index(index)) }
            try value(depth: depth + 1)
            if target != nil { path.removeLast() }
            index += 1
            skipSpace()
            guard i < bytes.count else { throw fail("unexpected end of file, expected ',' or ']'") }
            if bytes[i] == 0x2C { i += 1; skipSpace(); continue }
            if bytes[i] == 0x5D { i += 1; return }
            throw fail("unexpected \(describe(i)), expected ',' or ']'")
        }
    }

    /// Reads a string; its value is built only when `keep` (keys), else "".
    private mutating func string(keep: Bool) throws -> String {
        i += 1
        // Most strings have no escape: find the closing quote and take the bytes as they are.
        var end = i
        while end < bytes.count, bytes[end] != 0x22, bytes[end] != 0x5C, bytes[end] >= 0x20 { end += 1 }
        if end < bytes.count, bytes[end] == 0x22 {
            defer { i = end + 1 }
            return keep ? String(decoding: bytes[i..<end], as: UTF8.self) : ""
        }
        var scalars = String.UnicodeScalarView()
        var run = [UInt8]()
        func flush() {
            scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
            run.removeAll(keepingCapacity: true)
        }
        while true {
            guard i < bytes.count else { throw fail("unterminated string") }
            let b = bytes[i]
            if b == 0x22 { i += 1; flush(); return String(scalars) }
            if b < 0x20 { throw fail("control character in a string (write it as an escape)") }
            if b != 0x5C { run.append(b); i += 1; continue }
            flush()
            guard i + 1 < bytes.count else { throw fail("unterminated string") }
            let e = bytes[i + 1]
            i += 2
            switch e {
            case 0x22: scalars.append("\"")
            case 0x5C: scalars.append("\\")
            case 0x2F: scalars.append("/")
            case 0x62: scalars.append("\u{08}")
            case 0x66: scalars.append("\u{0C}")
            case 0x6E: scalars.append("\n")
            case 0x72: scalars.append("\r")
            case 0x74: scalars.append("\t")
            case 0x75:
                var code = try hex4()
                if (0xD800...0xDBFF).contains(code), i + 1 < bytes.count, bytes[i] == 0x5C, bytes[i + 1] == 0x75 {
                    i += 2
                    let low = try hex4()
                    if (0xDC00...0xDFFF).contains(low) { code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00) }
                }
                scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
            default: throw fail("invalid escape in a string", at: i - 2)
            }
        }
    }

    private mutating func hex4() throws -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("invalid \\u escape") }
        var value: UInt32 = 0
        for b in bytes[i..<(i + 4)] {
            guard let d = Character(Unicode.Scalar(b)).hexDigitValue else { throw fail("invalid \\u escape") }
            value = value * 16 + UInt32(d)
        }
        i += 4
        return value
    }

    private mutating func number() throws {
        let start = i
        func isDigit(_ at: Int) -> Bool { at < bytes.count && (0x30...0x39).contains(bytes[at]) }
        if bytes[i] == 0x2D { i += 1 }
        guard isDigit(i) else { throw fail("invalid number", at: start) }
        if bytes[i] == 0x30 { i += 1 } else { while isDigit(i) { i += 1 } }
        if i < bytes.count, bytes[i] == 0x2E {
            i += 1
            guard isDigit(i) else { throw fail("invalid number", at: start) }
            while isDigit(i) { i += 1 }
        }
        if i < bytes.count, bytes[i] == 0x65 || bytes[i] == 0x45 {
            i += 1
            if i < bytes.count, bytes[i] == 0x2B || bytes[i] == 0x2D { i += 1 }
            guard isDigit(i) else { throw fail("invalid number", at: start) }
            while isDigit(i) { i += 1 }
        }
        if isDigit(i) { throw fail("invalid number", at: start) }
    }

    private mutating func literal(_ word: String) throws {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<(i + w.count)]) == w else {
            throw fail("unexpected \(describe(i)), expected a value")
        }
        i += w.count
    }
}
