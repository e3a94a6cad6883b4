#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSPolicyModel

/// Times in the policy: ISO 8601 in UTC to the second (`2027-01-31T00:00:00Z`).
public enum PolicyDates {
    public struct ParseError: Error, CustomStringConvertible {
        public let text: String
        /// "expiry" (which also takes a date or a duration) or "time".
        public let what: String
        public var description: String { "invalid \(what) \"\(text)\"" }
    }

    static var utc: Calendar { DateText.utc }

    /// `2027-01-31T00:00:00Z`.
    public static func format(_ date: Date) -> String { DateText.iso8601(date) }

    /// An expiry as `--expires` takes it. A date alone (`2027-01-31`) keeps the item valid
    /// through that whole day in UTC: it expires at the next midnight UTC
    /// (`2027-02-01T00:00:00Z`). A full time (`2027-01-31T17:00:00Z`, `…+02:00`) is the
    /// expiry instant itself. A duration (`90d`, `12h`) counts from `now`.
    /// Fractions of a second are dropped.
    public static func parseExpiry(_ text: String, now: Date = Date()) throws -> Date {
        if let end = RFC3339.expiry(ofDay: text) { return end }
        if let instant = parseTime(text) { return instant }
        if let first = text.first, first.isASCII, first.isNumber, let seconds = try? DurationText.seconds(text) {
            return Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down) + Double(seconds))
        }
        throw ParseError(text: text, what: "expiry")
    }

    /// A moment as `check --at` takes it: what `--expires` takes, read as a moment. A
    /// date alone is the start of that day (UTC), so an item that expires "2027-01-31"
    /// still approves `--at 2027-01-31`; a full time is itself; a duration counts from `now`.
    public static func parseMoment(_ text: String, now: Date = Date()) throws -> Date {
        if let day = parseDay(text), day.count == text.utf8.count { return day.start }
        if let instant = parseTime(text) { return instant }
        if let first = text.first, first.isASCII, first.isNumber, let seconds = try? DurationText.seconds(text) {
            return Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down) + Double(seconds))
        }
        throw ParseError(text: text, what: "time")
    }

    /// An expiry as a person wrote it: `2027-01-31` for an item valid through that day
    /// (stored as the next midnight UTC), else the full time.
    public static func displayExpiry(_ date: Date) -> String {
        RFC3339.expiryDay(date) ?? format(date)
    }

    /// A full ISO 8601 time (date, `T`, hours, minutes, optional seconds and fraction,
    /// then `Z` or `±hh:mm`), as in the policy file and `check --at`.
    static func parseInstant(_ text: String, what: String = "time") throws -> Date {
        guard let date = parseTime(text) else { throw ParseError(text: text, what: what) }
        return date
    }

    // MARK: - parsing

    /// `YYYY-MM-DD` at the start of `text`: the start of that day (UTC) and how many bytes it took.
    static func parseDay(_ text: String) -> (start: Date, count: Int)? { RFC3339.day(text) }

    static func parseTime(_ text: String) -> Date? { RFC3339.date(text) }
}
