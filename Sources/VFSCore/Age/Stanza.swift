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
    /// by a line shorter than 64 (empty if need be).
    var encoded: [UInt8] {
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
}
