#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Times as the policy file, the relay's JSON and `--at`/`--expires` write them (RFC 3339),
/// read by hand: Foundation's ISO 8601 reader refuses fractions or offsets it should take.
public enum RFC3339 {
    /// The Gregorian calendar in UTC, the one every vfs date is read and written in.
    public static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!  // (by identifier it needs ICU, which FoundationEssentials lacks)
        return calendar
    }()

    /// `YYYY-MM-DD` at the start of `text`: the start of that day (UTC) and how many bytes it took.
    public static func day(_ text: String) -> (start: Date, count: Int)? {
        let b = Array(text.utf8)
        guard b.count >= 10, b[4] == 0x2D, b[7] == 0x2D,
              let year = digits(b, 0, 4), let month = digits(b, 5, 2), let day = digits(b, 8, 2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        let components = DateComponents(year: year, month: month, day: day)
        guard let date = RFC3339.utc.date(from: components),
              RFC3339.utc.component(.day, from: date) == day else { return nil }
        return (date, 10)
    }

    /// What an expiry given as a date alone (`2027-01-31`, all of `text`) means, for
    /// `vfs-policy --expires` and the admin web page's form alike: valid through that whole
    /// day in UTC, so it expires at the next midnight UTC (`2027-02-01T00:00:00Z`).
    public static func expiry(ofDay text: String) -> Date? {
        guard let day = day(text), day.count == text.utf8.count else { return nil }
        return day.start.addingTimeInterval(86400)
    }

    /// The date an expiry made by `expiry(ofDay:)` was given as (`2027-01-31` for
    /// `2027-02-01T00:00:00Z`); nil for an instant that is not a midnight UTC.
    public static func expiryDay(_ date: Date) -> String? {
        let seconds = Int(date.timeIntervalSince1970)
        guard Double(seconds) == date.timeIntervalSince1970, seconds % 86400 == 0 else { return nil }
        let parts = utc.dateComponents([.year, .month, .day], from: date.addingTimeInterval(-86400))
        func padded(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(padded(parts.year, 4))-\(padded(parts.month, 2))-\(padded(parts.day, 2))"
    }

    /// A full RFC 3339 / ISO 8601 time: date, `T`, hours, minutes, optional seconds and
    /// fraction (dropped), then `Z` or `±hh:mm`; `t` and `z` in lower case too. A leap
    /// second (`:60`) is refused, as the policy's fast reader refuses it.
    public static func date(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard let start = day(text)?.start, b.count >= 16, b[10] == 0x54 || b[10] == 0x74,
              let hour = digits(b, 11, 2), b[13] == 0x3A, let minute = digits(b, 14, 2),
              hour < 24, minute < 60 else { return nil }
        var i = 16
        var second = 0
        if i < b.count, b[i] == 0x3A {
            guard let s = digits(b, i + 1, 2), s < 60 else { return nil }
            second = s
            i += 3
            if i < b.count, b[i] == 0x2E || b[i] == 0x2C {
                i += 1
                let start = i
                while i < b.count, (0x30...0x39).contains(b[i]) { i += 1 }
                guard i > start else { return nil }
            }
        }
        guard i < b.count else { return nil }
        var offset = 0
        if b[i] == 0x5A || b[i] == 0x7A {
            i += 1
        } else if b[i] == 0x2B || b[i] == 0x2D {
            guard let h = digits(b, i + 1, 2), i + 3 < b.count, b[i + 3] == 0x3A, let m = digits(b, i + 4, 2),
                  h < 24, m < 60 else { return nil }
            offset = (h * 3600 + m * 60) * (b[i] == 0x2D ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let seconds = hour * 3600 + minute * 60 + second - offset
        return start.addingTimeInterval(Double(seconds))
    }

    static func digits(_ b: [UInt8], _ at: Int, _ count: Int) -> Int? {
        guard at >= 0, at + count <= b.count else { return nil }
        var value = 0
        for byte in b[at..<(at + count)] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }
}
