/// Durations as people type them on a command line: `90s`, `30m`, `12h`, `7d`, `2w`,
/// or a sum such as `1h30m`. A bare number is seconds.
public enum DurationText {
    public struct ParseError: Error, CustomStringConvertible {
        public let text: String
        public var description: String { "invalid duration \"\(text)\"" }
    }

    static let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800]

    /// The duration in seconds.
    public static func seconds(_ text: String) throws -> Int {
        var total = 0
        var number: Int? = nil
        var sawUnit = false
        for c in text {
            if let digit = c.wholeNumberValue, c.isASCII {
                let (times10, o1) = (number ?? 0).multipliedReportingOverflow(by: 10)
                let (next, o2) = times10.addingReportingOverflow(digit)
                guard !o1 && !o2 else { throw ParseError(text: text) }
                number = next
            } else if let unit = units[c], let n = number {
                let (part, o1) = n.multipliedReportingOverflow(by: unit)
                let (sum, o2) = total.addingReportingOverflow(part)
                guard !o1 && !o2 else { throw ParseError(text: text) }
                total = sum
                number = nil
                sawUnit = true
            } else {
                throw ParseError(text: text)
            }
        }
        if let n = number {
            // A trailing bare number is seconds only when it stands alone ("90").
            guard !sawUnit else { throw ParseError(text: text) }
            total = n
        } else if !sawUnit {
            throw ParseError(text: text)
        }
        return total
    }

    /// `3725` → `1h2m5s`, for messages.
    public static func format(seconds: Int) -> String {
        if seconds == 0 { return "0s" }
        var rest = seconds, out = ""
        for (unit, size) in [("d", 86400), ("h", 3600), ("m", 60), ("s", 1)] where rest >= size {
            out += "\(rest / size)\(unit)"
            rest %= size
        }
        return out
    }
}
