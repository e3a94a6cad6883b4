#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The policy file's text: pretty-printed JSON, keys sorted, items by app, times in
/// ISO 8601 UTC to the second, a trailing newline. Reading is strict and names the
/// line of the first problem.
public enum PolicyCodec {
    public static func encode(_ document: PolicyDocument) -> [UInt8] {
        var sorted = document
        sorted.sort()
        // Encoding plain strings, bools, ints and dates cannot fail.
        let data = try! encoder(pretty: true).encode(sorted)
        return compactingEmptyLists(Array(data)) + [0x0A]
    }

    /// The pretty printer writes an empty list over three lines; `[]` reads better.
    /// (A newline inside a JSON string is always escaped, so "[", a line break, blanks,
    /// a line break, blanks, "]" is structure.)
    package static func compactingEmptyLists(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x5B {
                var j = i + 1, newlines = 0
                while j < bytes.count, bytes[j] == 0x0A || bytes[j] == 0x20 {
                    if bytes[j] == 0x0A { newlines += 1 }
                    j += 1
                }
                if newlines > 0, j < bytes.count, bytes[j] == 0x5D {
                    out += [0x5B, 0x5D]
                    i = j + 1
                    continue
                }
            }
            out.append(bytes[i])
            i += 1
        }
        return out
    }

    /// Parses and checks a policy. A file of nothing but white space is corrupt, not an
    /// empty policy: it is what a truncated write leaves, and it must not be replaced
    /// as if nothing had been there (a missing file is the empty policy).
    /// - Parameter source: the file's name, for messages.
    public static func decode(_ bytes: [UInt8], source: String) throws -> PolicyDocument {
        try decode(bytes, source: source, fastPath: true)
    }

    /// `fastPath: false` skips the fast reader: the reference the tests and the fuzz
    /// target hold it to.
    static func decode(_ bytes: [UInt8], source: String, fastPath: Bool) throws -> PolicyDocument {
        if bytes.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            throw PolicyError.corrupt(file: source, line: 1, column: nil,
                                      reason: "the file is empty (truncated?)")
        }
        // The usual file takes the fast reader; anything it declines, the decoder
        // (which names the problem and its line).
        var document: PolicyDocument
        if fastPath, let fast = PolicyFastReader.document(bytes) {
            document = fast
        } else {
            document = try decodeValue(bytes, source: source)
        }
        do {
            try PolicyRules.check(document)
        } catch {
            throw PolicyError.corrupt(file: source, line: JSONLocator.line(of: error.path, in: bytes), column: nil,
                                      reason: "\(pathText(error.path)): \(error.reason)")
        }
        document.sort()
        return document
    }

    /// Decodes any of the policy's JSON values (the document, a log line) strictly.
    static func decodeValue<T: Decodable>(_ bytes: [UInt8], source: String, lineOffset: Int = 0) throws -> T {
        do {
            try JSONLocator.validate(bytes)
        } catch let error as JSONLocator.SyntaxError {
            throw PolicyError.corrupt(file: source, line: error.line + lineOffset, column: error.column,
                                      reason: "not valid JSON: \(error.message)")
        }
        do {
            return try decoder().decode(T.self, from: Data(bytes))
        } catch let error as DecodingError {
            let (path, reason) = explain(error)
            throw PolicyError.corrupt(file: source, line: JSONLocator.line(of: path, in: bytes).map { $0 + lineOffset },
                                      column: nil, reason: path.isEmpty ? reason : "\(pathText(path)): \(reason)")
        }
    }

    static func encoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(PolicyDates.format(date))
        }
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            let text = try c.decode(String.self)
            guard let date = PolicyDates.parseTime(text) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "invalid time \"\(text)\" (write ISO 8601, such as 2027-01-31T00:00:00Z)")
            }
            return date
        }
        return decoder
    }

    /// Where a decoding error is, and a short lowercase reason.
    static func explain(_ error: DecodingError) -> ([JSONLocator.PathComponent], String) {
        func path(_ keys: [CodingKey]) -> [JSONLocator.PathComponent] {
            keys.map { key in key.intValue.map { .index($0) } ?? .key(key.stringValue) }
        }
        switch error {
        case let .typeMismatch(type, context):
            return (path(context.codingPath), "expected \(typeName(type))")
        case let .valueNotFound(type, context):
            return (path(context.codingPath), "expected \(typeName(type)), found null")
        case let .keyNotFound(key, context):
            return (path(context.codingPath), "missing \"\(key.stringValue)\"")
        case let .dataCorrupted(context):
            return (path(context.codingPath), context.debugDescription)
        @unknown default:
            return ([], "\(error)")
        }
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type: return "a whole number"
        case is Date.Type: return "an ISO 8601 time in a string"
        case is [String].Type: return "a list of strings"
        case is [PolicyItem].Type: return "a list of items"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") || name.hasPrefix("[") { return "a list" }
            if name.hasPrefix("Dictionary") || name.contains("Keyed") || name == "PolicyItem" || name == "PolicyDocument" { return "an object" }
            return name.lowercased()
        }
    }

    /// `items[3].groups[0]`.
    static func pathText(_ path: [JSONLocator.PathComponent]) -> String {
        var text = ""
        for component in path {
            switch component {
            case let .key(key): text += text.isEmpty ? key : ".\(key)"
            case let .index(n): text += "[\(n)]"
            }
        }
        return text.isEmpty ? "the document" : text
    }
}
