/// One recipient stanza of an age header: `-> type args…` and a base64 body.
public struct Stanza: Equatable, Sendable {
    public var type: String
    public var arguments: [String]
    public var body: [UInt8]

    public init(type: String, arguments: [String], body: [UInt8]) {
        self.type = type
        self.arguments = arguments
        self.body = body
    }

    /// The stanza as it appears in the header, body wrapped at 64 columns and ended
    /// by a line shorter than 64 (empty if need be); a plugin message too.
    package var encoded: [UInt8] {
        var out = Array("-> ".utf8)
        out += Array(([type] + arguments).joined(separator: " ").utf8)
        out.append(0x0A)
        let body = Array(Base64.encode(self.body).utf8)
        var index = 0
        while true {
            let end = min(index + 64, body.count)
            out += body[index..<end]
            out.append(0x0A)
            if end - index < 64 { break }
            index = end
        }
        return out
    }

    /// Parses a stanza from its `-> type args…` line (LF removed) and the body lines
    /// `bodyLine` gives (LF removed), up to the final short one: the age header's
    /// grammar, which the plugin protocol's messages share. Throws `AgeError.header`.
    package static func parse(_ first: [UInt8], bodyLine: () throws -> [UInt8]) throws -> Stanza {
        precondition(first.starts(with: Array("-> ".utf8)))
        let fields = first.dropFirst(3).split(separator: 0x20, omittingEmptySubsequences: false)
        for field in fields {
            guard !field.isEmpty, field.allSatisfy({ $0 >= 33 && $0 <= 126 }) else {
                throw AgeError.header("malformed stanza line \(quoted(first))")
            }
        }
        var body = [UInt8]()
        while true {
            let line = try bodyLine()
            guard line.count <= 64 else { throw AgeError.header("stanza body line longer than 64 columns") }
            guard let decoded = Base64.decode(line) else {
                if line.starts(with: Array("-> ".utf8)) || line.starts(with: Array("---".utf8)) {
                    throw AgeError.header("stanza body is missing its final short line")
                }
                throw AgeError.header("stanza body is not canonical base64")
            }
            body += decoded
            if line.count < 64 { break }
        }
        let strings = fields.map { String(decoding: $0, as: UTF8.self) }
        return Stanza(type: strings[0], arguments: Array(strings.dropFirst()), body: body)
    }
}
