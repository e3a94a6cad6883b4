/// ASCII armor: strict PEM (RFC 7468) with the label "AGE ENCRYPTED FILE", padded
/// canonical base64 in 64-column lines, up to 1024 bytes of whitespace around it.
package enum Armor {
    static let begin = Array("-----BEGIN AGE ENCRYPTED FILE-----".utf8)
    static let end = Array("-----END AGE ENCRYPTED FILE-----".utf8)
    static let columns = 64
    static let bytesPerLine = 48
    static let maxWhitespace = 1024

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// True if the input, after leading whitespace, starts a PEM block.
    package static func looksArmored(_ source: BufferedSource) throws -> Bool {
        let start = try source.peek(maxWhitespace + begin.count)
        guard let first = start.firstIndex(where: { !isWhitespace($0) }) else { return false }
        return start[first...].starts(with: Array("-----BEGIN".utf8))
    }
}

/// Decodes armored input as it is read.
final class ArmorDecodingSource: ByteSource {
    private let base: BufferedSource
    private var started = false
    private var ended = false
    private var sawShortLine = false
    private var decoded: [UInt8] = []
    private var decodedStart = 0

    init(_ base: BufferedSource) { self.base = base }

    func prepareForStreaming() { base.prepareForStreaming() }

    static let maxLineLength = 1024

    private func fail(_ why: String) -> AgeError { .armor(why) }

    /// A line without its LF (and an optional CR before it); nil at end of input.
    private func nextLine() throws -> [UInt8]? {
        // Armor lines are at most 64 columns (and a CR): a longer one is refused
        // without being read whole.
        var line = try base.readLine(maxLength: Self.maxLineLength)
        if line.isEmpty { return nil }
        if line.last != 0x0A && line.count > Self.maxLineLength { throw fail("a line is longer than 64 columns") }
        if line.last == 0x0A { line.removeLast() }
        if line.last == 0x0D { line.removeLast() }
        return line
    }

    private func start() throws {
        var skipped = 0
        while let byte = try base.peek(1).first, Armor.isWhitespace(byte) {
            skipped += 1
            guard skipped <= Armor.maxWhitespace else { throw fail("too much whitespace before the armor") }
            var byte: UInt8 = 0
            _ = try withUnsafeMutableBytes(of: &byte) { try base.read(into: $0) }
        }
        guard let line = try nextLine() else { throw fail("empty input") }
        guard line == Armor.begin else { throw fail("the first line is not \"-----BEGIN AGE ENCRYPTED FILE-----\"") }
        started = true
    }

    private func finish() throws {
        ended = true
        var trailing = [UInt8](repeating: 0, count: Armor.maxWhitespace + 1)
        let n = try trailing.withUnsafeMutableBytes { try base.readFully(into: $0) }
        guard n <= Armor.maxWhitespace, trailing[0..<n].allSatisfy(Armor.isWhitespace) else {
            throw fail("unexpected data after the end line")
        }
    }

    /// Decodes the next data lines into `decoded`; false at the end of the armor.
    private func decodeMore() throws -> Bool {
        if ended { return false }
        if !started { try start() }
        decoded.removeAll(keepingCapacity: true)
        decodedStart = 0
        while decoded.count < 48 * 256 {
            guard let line = try nextLine() else { throw fail("no \"-----END AGE ENCRYPTED FILE-----\" line") }
            if line == Armor.end {
                try finish()
                return !decoded.isEmpty
            }
            guard !sawShortLine else { throw fail("a line shorter than 64 columns is followed by more data") }
            guard !line.isEmpty else { throw fail("empty line") }
            guard line.count <= Armor.columns else { throw fail("line longer than 64 columns") }
            guard let bytes = Base64.decode(line, padded: true) else {
                throw fail("line is not canonical padded base64: \(quoted(line))")
            }
            if line.count < Armor.columns || line.last == UInt8(ascii: "=") { sawShortLine = true }
            decoded += bytes
        }
        return true
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if decodedStart == decoded.count {
            guard try decodeMore() else { return 0 }
        }
        let n = min(buffer.count, decoded.count - decodedStart)
        decoded.withUnsafeBytes { src in buffer.baseAddress!.copyMemory(from: src.baseAddress! + decodedStart, byteCount: n) }
        decodedStart += n
        return n
    }
}

/// Encodes everything written as armor; `finish()` writes the last line and the footer.
final class ArmorEncodingSink: ByteSink {
    private let base: ByteSink
    private var pending: [UInt8] = []
    private var wroteHeader = false

    init(_ base: ByteSink) { self.base = base }

    func prepareForStreaming() { base.prepareForStreaming() }

    private func emit(lines data: ArraySlice<UInt8>) throws {
        var out = [UInt8]()
        if !wroteHeader { out += Armor.begin + [0x0A]; wroteHeader = true }
        var index = data.startIndex
        while index < data.endIndex {
            let end = min(index + Armor.bytesPerLine, data.endIndex)
            out += Array(Base64.encode(data[index..<end], padded: true).utf8)
            out.append(0x0A)
            index = end
        }
        try base.write(out)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        pending += bytes
        let whole = pending.count / Armor.bytesPerLine * Armor.bytesPerLine
        if whole >= Armor.bytesPerLine * 1024 {
            try emit(lines: pending[0..<whole])
            pending.removeFirst(whole)
        }
    }

    func finish() throws {
        try emit(lines: pending[...])
        pending.removeAll()
        try base.write(Armor.end + [0x0A])
        try base.finish()
    }
}
