// What full Foundation's trimmingCharacters(in:) and String(format: "%.1f") did here,
// without it: the tools link FoundationEssentials only, which has neither.

extension StringProtocol {
    /// Without leading and trailing white space (Unicode's White_Space: spaces, tabs,
    /// line ends, no-break and ideographic spaces).
    public func trimmingUnicodeWhitespace() -> String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}

public enum DecimalText {
    /// `value` rounded to one decimal, as `%.1f` writes it (`2.5`, `0.0`, `-1.2`), except
    /// that an exact half rounds away from zero.
    public static func oneDecimal(_ value: Double) -> String {
        guard value.isFinite else { return String(value) }
        let tenths = Int((abs(value) * 10).rounded())
        let sign = value < 0 && tenths != 0 ? "-" : ""
        return "\(sign)\(tenths / 10).\(tenths % 10)"
    }
}
