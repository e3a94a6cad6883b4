import Foundation

/// HTML that is escaped by construction: text interpolated into an `HTML` literal is
/// escaped (`<`, `>`, `&`, `"`, `'`), and only another `HTML` value goes in as markup.
/// So a page can hold a name like `<script>` only as text.
struct HTML: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    private(set) var markup: String

    init(markup: String) { self.markup = markup }
    init(stringLiteral value: String) { markup = value }
    init(stringInterpolation: Interpolation) { markup = stringInterpolation.markup }

    var description: String { markup }

    struct Interpolation: StringInterpolationProtocol {
        var markup = ""
        init(literalCapacity: Int, interpolationCount: Int) { markup.reserveCapacity(literalCapacity * 2) }
        mutating func appendLiteral(_ literal: String) { markup += literal }
        mutating func appendInterpolation(_ text: String) { markup += HTML.escape(text) }
        mutating func appendInterpolation<T: BinaryInteger>(_ number: T) { markup += String(number) }
        mutating func appendInterpolation(_ html: HTML) { markup += html.markup }
        mutating func appendInterpolation(_ parts: [HTML]) { for part in parts { markup += part.markup } }
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// `attribute` when `condition` holds (`checked`, `selected`), else nothing.
    static func when(_ condition: Bool, _ html: HTML) -> HTML { condition ? html : "" }
}

/// A form's fields (`application/x-www-form-urlencoded`); a name given twice keeps the last value.
struct FormFields: Sendable {
    var values: [String: String] = [:]

    init(_ body: String) {
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            values[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
    }

    subscript(name: String) -> String? { values[name] }
    func text(_ name: String) -> String { (values[name] ?? "").trimmingCharacters(in: .whitespacesAndNewlines) }
    /// A comma- or blank-separated list field (groups, file types).
    func list(_ name: String) -> [String] {
        text(name).split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
    }
}
