#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSPolicyModel

/// The history's times to the microsecond (RFC 3339 with a fraction): a version's `since`
/// and `until` and a restore's `at` compare with the relay's own times, and two changes in
/// the same second must not look alike (the API's other times are whole seconds).
public enum PreciseTime {
    /// `2026-11-29T13:55:01.123456Z`: the microsecond `date` is in (rounded down, so a
    /// time read back is never after the one written; written again, it may be a
    /// microsecond earlier).
    public static func text(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let micros = min(999_999, Int(((date.timeIntervalSince1970 - seconds) * 1_000_000).rounded(.down)))
        let c = RFC3339.utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: seconds))
        func pad(_ n: Int?, _ width: Int) -> String {
            let text = String(n ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))T\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2))."
            + pad(micros, 6) + "Z"
    }

    /// Any RFC 3339 time, its fraction kept (`RFC3339.date` drops it).
    public static func date(_ text: String) -> Date? {
        guard let whole = RFC3339.date(text) else { return nil }
        let b = Array(text.utf8)
        guard b.count > 20, b[19] == 0x2E || b[19] == 0x2C else { return whole }
        let digits = b[20...].prefix { (0x30...0x39).contains($0) }
        return whole.addingTimeInterval(Double("0." + String(decoding: digits, as: UTF8.self)) ?? 0)
    }

    /// A time as `text` writes it, or a decoding error naming it.
    static func decode<K: CodingKey>(_ container: KeyedDecodingContainer<K>, _ key: K) throws -> Date {
        let text = try container.decode(String.self, forKey: key)
        guard let date = date(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "\"\(text)\" is not an RFC 3339 time")
        }
        return date
    }
}

/// A version of a cloud file (issue 50), as `GET /v1/cloud-log/{path}` and
/// `GET /v1/cloud-trash` list them: from `since` until `until` (none while it is the head)
/// the file at `path` held `version` (the content id a put names as its `base`), which
/// `device` put (empty for a file stored before versions were kept). `id` is this row's
/// own, which `GET /v1/cloud-version/{id}` downloads. A move keeps the version and lists
/// it again under its new path; a rekey keeps it too (the head's row then holds the new
/// header).
public struct CloudVersion: Codable, Sendable, Equatable {
    public var id: String
    public var version: String
    public var path: String
    public var size: Int64?
    public var sha256: String?
    public var device: String
    public var since: Date
    public var until: Date?

    public init(id: String, version: String, path: String, size: Int64?, sha256: String?, device: String, since: Date, until: Date?) {
        (self.id, self.version, self.path, self.size, self.sha256) = (id, version, path, size, sha256)
        (self.device, self.since, self.until) = (device, since, until)
    }

    /// Whether the file was at its path with this version at `time`.
    public func held(at time: Date) -> Bool { since <= time && until.map { $0 > time } ?? true }

    enum CodingKeys: String, CodingKey { case id, version, path, size, sha256, device, since, until }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        (id, version, path) = (try c.decode(String.self, forKey: .id), try c.decode(String.self, forKey: .version), try c.decode(String.self, forKey: .path))
        (size, sha256) = (try c.decodeIfPresent(Int64.self, forKey: .size), try c.decodeIfPresent(String.self, forKey: .sha256))
        device = try c.decode(String.self, forKey: .device)
        since = try PreciseTime.decode(c, .since)
        until = try c.contains(.until) && !c.decodeNil(forKey: .until) ? PreciseTime.decode(c, .until) : nil
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(version, forKey: .version)
        try c.encode(path, forKey: .path)
        try c.encodeIfPresent(size, forKey: .size)
        try c.encodeIfPresent(sha256, forKey: .sha256)
        try c.encode(device, forKey: .device)
        try c.encode(PreciseTime.text(since), forKey: .since)
        try c.encodeIfPresent(until.map(PreciseTime.text), forKey: .until)
    }
}

/// `POST /v1/cloud-restore/{path}`: put the file at `path` back as it was at `at` (any
/// RFC 3339 time, its fraction kept; the relay takes it as the end of its microsecond, so
/// a version's `since` as the log writes it includes that version); with `recursive`, the
/// whole tree under the folder (files not there then are removed).
public struct CloudRestore: Codable, Sendable, Equatable {
    public var at: Date
    public var recursive: Bool?

    public init(at: Date, recursive: Bool) {
        self.at = at
        self.recursive = recursive ? true : nil
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case at, recursive }
    public init(from decoder: Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        at = try PreciseTime.decode(container, .at)
        recursive = try container.decodeIfPresent(Bool.self, forKey: .recursive)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(PreciseTime.text(at), forKey: .at)
        try container.encodeIfPresent(recursive, forKey: .recursive)
    }
}

/// What a restore changed: the files it put back, the paths of the files it removed.
public struct CloudRestored: Codable, Sendable, Equatable {
    public var restored: [CloudEntry]
    public var removed: [String]

    public init(restored: [CloudEntry], removed: [String]) {
        (self.restored, self.removed) = (restored, removed)
    }
}
