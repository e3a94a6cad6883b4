/// Sizes as people type them on a command line: a number of bytes (`1048576`), or a
/// number with a binary unit, `K`, `M`, `G`, `T` or `P` (powers of 1024, either case, an
/// optional `B` or `iB` after it: `512M`, `10G`, `10GiB`), with a decimal part when it
/// comes to whole bytes (`1.5T`, not `1.1K`). Beside `DurationText`, for the same kind of
/// option.
public enum SizeText {
    public struct ParseError: Error, CustomStringConvertible {
        public let text: String
        public let reason: String
        public var description: String { "invalid size \"\(text)\": \(reason)" }
    }

    static let units: [Character: Int64] = ["k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50]

    /// The size in bytes.
    public static func bytes(_ text: String) throws -> Int64 {
        func fail(_ reason: String) -> ParseError { ParseError(text: text, reason: reason) }
        var rest = Substring(text)
        var multiplier: Int64 = 1
        let lower = rest.lowercased()
        for suffix in ["ib", "b"] where lower.hasSuffix(suffix) && lower.count > suffix.count {
            let unit = lower.dropLast(suffix.count).last!
            if let size = units[unit] {
                multiplier = size
                rest = rest.dropLast(suffix.count + 1)
            } else if suffix == "b" {
                rest = rest.dropLast()  // `512B`: bytes
            }
            break
        }
        if multiplier == 1, let last = rest.last, let size = units[Character(last.lowercased())] {
            multiplier = size
            rest = rest.dropLast()
        }
        let parts = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0], fraction = parts.count > 1 ? parts[1] : ""
        guard !whole.isEmpty, whole.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              parts.count == 1 || !fraction.isEmpty, fraction.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw fail("write a number of bytes, or one with a unit such as 512M, 10G or 1.5T")
        }
        guard let number = Int64(whole) else { throw fail("too large") }
        let (base, o1) = number.multipliedReportingOverflow(by: multiplier)
        guard !o1 else { throw fail("too large") }
        // The decimal part, exactly: digits × multiplier / 10^count must be whole bytes.
        var numerator = 0 as Int64, denominator = 1 as Int64
        for digit in fraction.utf8 {
            let (n, o2) = numerator.multipliedReportingOverflow(by: 10)
            let (d, o3) = denominator.multipliedReportingOverflow(by: 10)
            guard !o2, !o3 else { throw fail("too many decimals") }
            numerator = n + Int64(digit - 0x30)
            denominator = d
        }
        let (scaled, o4) = numerator.multipliedReportingOverflow(by: multiplier)
        guard !o4 else { throw fail("too many decimals") }
        guard scaled % denominator == 0 else { throw fail("not a whole number of bytes") }
        let (total, o5) = base.addingReportingOverflow(scaled / denominator)
        guard !o5 else { throw fail("too large") }
        return total
    }
}
