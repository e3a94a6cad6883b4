/// The age v1 header: version line, stanzas, and the MAC line.
struct Header: Sendable {
    public static let versionLine = "age-encryption.org/v1"

    public var stanzas: [Stanza]
    public var mac: [UInt8]
    /// The header bytes the MAC covers: everything up to and including `---`.
    public var macInput: [UInt8]

    /// Everything up to and including "---" for the given stanzas.
    static func macInput(for stanzas: [Stanza]) -> [UInt8] {
        var out = Array((versionLine + "\n").utf8)
        for stanza in stanzas { out += stanza.encoded }
        out += Array("---".utf8)
        return out
    }

    /// Serialises a header with its MAC.
    static func encode(stanzas: [Stanza], mac: [UInt8]) -> [UInt8] {
        macInput(for: stanzas) + Array(" \(Base64.encode(mac))\n".utf8)
    }

    /// The longest header line accepted, LF not counted. Neither the spec nor age
    /// (which reads lines with an unbounded `ReadBytes`) sets one; the longest line a
    /// native recipient writes is a post-quantum stanza's argument line (1,511 bytes),
    /// and plugin stanzas are far shorter than this.
    public static let maxLineLength = 16 * 1024
    /// The largest header accepted: about 2,600 post-quantum or 40,000 X25519
    /// recipient stanzas, while parsing stays within a few times this in memory.
    public static let maxSize = 4 * 1024 * 1024

    /// Parses a header strictly from `source`, leaving it at the first payload byte.
    /// A line over `maxLineLength` or a header over `maxSize` is refused as soon as
    /// it is seen, without reading it whole.
    static func parse(from source: BufferedSource) throws -> Header {
        var raw = [UInt8]()
        func line() throws -> [UInt8] {
            let line = try source.readLine(maxLength: maxLineLength)
            guard line.last == 0x0A else {
                if line.count > maxLineLength {
                    throw AgeError.header("a header line is longer than \(maxLineLength) bytes")
                }
                throw AgeError.header(line.isEmpty ? "unexpected end of file" : "unexpected end of file in a header line")
            }
            guard raw.count + line.count <= maxSize else {
                throw AgeError.header("the header is larger than \(maxSize >> 20) MiB")
            }
            raw += line
            return Array(line.dropLast())
        }
        let version = try line()
        guard version.starts(with: Array("age-encryption.org/".utf8)) else {
            throw AgeError.header("not an age file (no \"age-encryption.org/v1\" line)")
        }
        guard version == Array(versionLine.utf8) else {
            throw AgeError.header("unsupported version \"\(String(decoding: version.dropFirst(19), as: UTF8.self))\"")
        }
        var stanzas = [Stanza]()
        var current = try line()
        while true {
            if current.starts(with: Array("---".utf8)) {
                guard current.count == 4 + 43, current[3] == 0x20 else { throw AgeError.header("malformed MAC line") }
                guard let mac = Base64.decode(current[4...]), mac.count == 32 else {
                    throw AgeError.header("malformed MAC")
                }
                guard !stanzas.isEmpty else { throw AgeError.header("no recipient stanzas") }
                let macInput = Array(raw.dropLast(current.count + 1 - 3))
                return Header(stanzas: stanzas, mac: mac, macInput: macInput)
            }
            guard current.starts(with: Array("-> ".utf8)) else {
                throw AgeError.header("unexpected line \(quoted(current))")
            }
            stanzas.append(try Stanza.parse(current, bodyLine: line))
            current = try line()
        }
    }
}

func quoted<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    let text = String(decoding: bytes.prefix(60), as: UTF8.self)
    let escaped = text.unicodeScalars.map { $0.value < 32 || $0.value == 127 ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
    return "\"\(escaped)\(bytes.count > 60 ? "…" : "")\""
}
