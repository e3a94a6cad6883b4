#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which earlier versions of a cloud file an organisation keeps (issue 50, item 3; `vfs-relay
/// org set --cloud-versions`). A version's age counts from when it stopped being the head
/// (the put that replaced it, the move that took it elsewhere, the removal that put it in
/// the trash); the head is always kept. The relay's sweep drops what the policy no longer
/// keeps, and each row dropped gives up its blob reference.
public enum CloudVersionPolicy: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Syncthing's staggered schedule, the default: every version younger than a day; of
    /// those younger than 30 days, the newest of each UTC day; of those younger than 365
    /// days, the newest of each week (Monday 00:00 to Sunday 24:00 UTC); none older.
    case staggered
    /// Every version, forever.
    case all
    /// No earlier version (and no trash): each goes at the next sweep.
    case none
    /// Every version younger than this many days (1 to 3650), none older.
    case days(Int)

    public static let longestDays = 3650
    static let day: Double = 86400
    /// 1970-01-01 was a Thursday: weeks counted from Monday 1970-01-05 00:00 UTC.
    static let firstMonday: Double = 4 * 86400

    /// `staggered`, `all`, `none` (or `0`), `days:N`; nil for anything else.
    public init?(text: String) {
        switch text {
        case "staggered": self = .staggered
        case "all": self = .all
        case "none", "0": self = .none
        default:
            guard text.hasPrefix("days:"), let count = Int(text.dropFirst(5)), String(count) == text.dropFirst(5),
                  (1...Self.longestDays).contains(count) else { return nil }
            self = .days(count)
        }
    }

    /// The text `init(text:)` reads.
    public var description: String {
        switch self {
        case .staggered: "staggered"
        case .all: "all"
        case .none: "none"
        case .days(let count): "days:\(count)"
        }
    }

    /// The policy in words, as `vfs-relay org show` prints it.
    public var summary: String {
        switch self {
        case .staggered: "staggered (every version for a day, the newest of each day for 30 days, of each week for a year)"
        case .all: "all (every version, forever)"
        case .none: "none (no earlier version, no trash)"
        case .days(let count): "days:\(count) (every version for \(count) day\(count == 1 ? "" : "s"))"
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let policy = CloudVersionPolicy(text: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not a cloud version policy")
        }
        self = policy
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// An earlier version of one file: its row's id and when it stopped being the head.
    public struct Ended: Sendable, Equatable {
        public var id: String
        public var until: Date
        public init(id: String, until: Date) {
            self.id = id
            self.until = until
        }
    }

    /// Of `versions`, every earlier version of one file there is (those dropped before
    /// included or not: a version dropped was never the newest of a day or week that a
    /// kept one is in), the ids the policy keeps at `now`. What it keeps at a time it
    /// keeps at every earlier time, so a sweep's result does not depend on when the
    /// sweeps before it ran.
    public func kept(_ versions: [Ended], now: Date) -> Set<String> {
        let age = { (version: Ended) in now.timeIntervalSince(version.until) }
        switch self {
        case .all: return Set(versions.map(\.id))
        case .none: return []
        case .days(let count): return Set(versions.filter { age($0) < Double(count) * Self.day }.map(\.id))
        case .staggered:
            func newest(_ interval: Double, from origin: Double) -> [Double: Ended] {
                Dictionary(versions.map { ((($0.until.timeIntervalSince1970 - origin) / interval).rounded(.down), $0) },
                           uniquingKeysWith: { a, b in (a.until, a.id) >= (b.until, b.id) ? a : b })
            }
            let days = newest(Self.day, from: 0), weeks = newest(7 * Self.day, from: Self.firstMonday)
            return Set(versions.filter { version in
                let seconds = version.until.timeIntervalSince1970
                switch age(version) {
                case ..<Self.day: return true
                case ..<(30 * Self.day): return days[(seconds / Self.day).rounded(.down)]?.id == version.id
                case ..<(365 * Self.day): return weeks[((seconds - Self.firstMonday) / (7 * Self.day)).rounded(.down)]?.id == version.id
                default: return false
                }
            }.map(\.id))
        }
    }
}
