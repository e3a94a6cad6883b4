#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSPolicyModel

/// Times as vfs shows them, always in UTC: the one date formatter (the policy file and
/// its listings, key files, manifests, keychain listings).
public enum DateText {
    static var utc: Calendar { RFC3339.utc }

    /// ISO 8601 to the second: `2027-01-31T00:00:00Z` (what ISO8601DateFormatter writes).
    public static func iso8601(_ date: Date) -> String {
        let c = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return "\(day(c))T\(two(c.hour)):\(two(c.minute)):\(two(c.second))Z"
    }

    /// To the minute, for listings: `2027-01-31 17:05` (ls's long format, in UTC).
    public static func minutes(sinceEpoch seconds: Int) -> String {
        let c = utc.dateComponents([.year, .month, .day, .hour, .minute],
                                   from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return "\(day(c)) \(two(c.hour)):\(two(c.minute))"
    }

    private static func day(_ c: DateComponents) -> String {
        let year = String(c.year ?? 0)
        return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-\(two(c.month))-\(two(c.day))"
    }

    private static func two(_ n: Int?) -> String {
        let v = n ?? 0
        return v < 10 ? "0\(v)" : "\(v)"
    }
}
