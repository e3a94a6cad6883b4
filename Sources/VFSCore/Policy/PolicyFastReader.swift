#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSPolicyModel

/// The policy file's usual form read in one pass over its bytes, without JSONDecoder:
/// the fast path of every check, which reads the whole file to answer one question.
///
/// It reads only what is plainly right and declines (nil) at anything else: an unknown
/// or duplicate key, a key with an escape, a value of the wrong type or `null`, a
/// number other than a plain whole one, an escape it does not know, a lone surrogate,
/// bytes that are not UTF-8, a byte-order mark, a time `PolicyDates.parseTime` refuses,
/// trailing bytes. The caller then runs the JSONDecoder path, so whatever the fast path
/// declines is reported exactly as before; whatever it reads, it reads as that path does
/// (the differential tests and the `policy` fuzz target hold it to that). The rules
/// between items (`PolicyRules.check`) and the sort are the caller's, as before.
enum PolicyFastReader {
    /// A policy file: `version` (1) and `items`.
    static func document(_ bytes: [UInt8]) -> PolicyDocument? {
        guard let file = read(bytes, relay: false), file.relay == nil else { return nil }
        return PolicyDocument(items: file.items)
    }

    /// A relay copy: `version` (1), `items` and `relay`.
    static func relayCopy(_ bytes: [UInt8]) -> (items: [PolicyItem], relay: RelayPolicyOrigin)? {
        guard let file = read(bytes, relay: true), let relay = file.relay else { return nil }
        return (file.items, relay)
    }

    /// Equal to the byte (`==` on strings compares canonical equivalence) and to the bit.
    package static func identical(_ a: PolicyDocument, _ b: PolicyDocument) -> Bool {
        func same(_ x: String, _ y: String) -> Bool { x.utf8.elementsEqual(y.utf8) }
        func same(_ x: Date?, _ y: Date?) -> Bool {
            x?.timeIntervalSinceReferenceDate.bitPattern == y?.timeIntervalSinceReferenceDate.bitPattern
        }
        guard a.version == b.version, a.items.count == b.items.count else { return false }
        return zip(a.items, b.items).allSatisfy { x, y in
            same(x.id, y.id) && same(x.app, y.app) && same(x.name, y.name)
                && x.groups.count == y.groups.count && zip(x.groups, y.groups).allSatisfy(same)
                && x.types.count == y.types.count && zip(x.types, y.types).allSatisfy(same)
                && same(x.expires, y.expires) && x.enabled == y.enabled
                && same(x.created, y.created) && same(x.updated, y.updated)
        }
    }

    private static func read(_ bytes: [UInt8], relay: Bool) -> (items: [PolicyItem], relay: RelayPolicyOrigin?)? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(buffer)
            return reader.file(relay: relay)
        }
    }

    /// Declines with nil; every `guard` below that fails is "not the plain form".
    private struct Reader {
        let b: UnsafeBufferPointer<UInt8>
        var i = 0

        init(_ b: UnsafeBufferPointer<UInt8>) { self.b = b }

        // MARK: - structure

        mutating func file(relay: Bool) -> (items: [PolicyItem], relay: RelayPolicyOrigin?)? {
            skipSpace()
            guard next(0x7B) else { return nil }
            var version: Int?, items: [PolicyItem]?, origin: RelayPolicyOrigin?
            var more = !closes(0x7D)
            while more {
                guard let key = key() else { return nil }
                switch key {
                case .version:
                    guard version == nil, let n = wholeNumber(), n == PolicyDocument.currentVersion else { return nil }
                    version = n
                case .items:
                    guard items == nil, let list = itemList() else { return nil }
                    items = list
                case .relay where relay:
                    guard origin == nil, let o = relayOrigin() else { return nil }
                    origin = o
                default: return nil
                }
                guard let followed = afterMember() else { return nil }
                more = followed
            }
            skipSpace()
            guard i == b.count, version != nil, let items, relay == (origin != nil) else { return nil }
            return (items, origin)
        }

        mutating func itemList() -> [PolicyItem]? {
            guard next(0x5B) else { return nil }
            var items: [PolicyItem] = []
            if closes(0x5D) { return items }
            while true {
                guard let item = item() else { return nil }
                items.append(item)
                skipSpace()
                guard i < b.count else { return nil }
                if b[i] == 0x2C { i += 1; skipSpace(); continue }
                guard b[i] == 0x5D else { return nil }
                i += 1
                return items
            }
        }

        mutating func item() -> PolicyItem? {
            guard next(0x7B) else { return nil }
            var seen: UInt16 = 0
            var id: String?, app: String?, name = "", groups: [String] = [], types: [String] = []
            var expires: Date?, enabled = true, created: Date?, updated: Date?
            var more = !closes(0x7D)
            while more {
                guard let key = key() else { return nil }
                let bit = UInt16(1) << key.rawValue
                guard seen & bit == 0 else { return nil }
                seen |= bit
                switch key {
                case .id: guard let s = string() else { return nil }; id = s
                case .app: guard let s = string() else { return nil }; app = s
                case .name: guard let s = string() else { return nil }; name = s
                case .groups: guard let l = stringList() else { return nil }; groups = l
                case .types: guard let l = stringList() else { return nil }; types = l
                case .expires: guard let d = date() else { return nil }; expires = d
                case .enabled: guard let v = bool() else { return nil }; enabled = v
                case .created: guard let d = date() else { return nil }; created = d
                case .updated: guard let d = date() else { return nil }; updated = d
                default: return nil
                }
                guard let followed = afterMember() else { return nil }
                more = followed
            }
            guard let id, let app, let created, let updated else { return nil }
            return PolicyItem(id: id, app: app, name: name, groups: groups, types: types,
                              expires: expires, enabled: enabled, created: created, updated: updated)
        }

        mutating func relayOrigin() -> RelayPolicyOrigin? {
            guard next(0x7B) else { return nil }
            var url: String?, revision: String?, fetched: Date?, grace: Int?
            var more = !closes(0x7D)
            while more {
                guard let key = key() else { return nil }
                switch key {
                case .url: guard url == nil, let s = string() else { return nil }; url = s
                case .revision: guard revision == nil, let s = string() else { return nil }; revision = s
                case .fetched: guard fetched == nil, let d = date() else { return nil }; fetched = d
                case .graceSeconds: guard grace == nil, let n = wholeNumber() else { return nil }; grace = n
                default: return nil
                }
                guard let followed = afterMember() else { return nil }
                more = followed
            }
            guard let url, let revision, let fetched, let grace else { return nil }
            return RelayPolicyOrigin(url: url, revision: revision, fetched: fetched, graceSeconds: Int64(grace))
        }

        mutating func stringList() -> [String]? {
            guard next(0x5B) else { return nil }
            var list: [String] = []
            if closes(0x5D) { return list }
            while true {
                guard let s = string() else { return nil }
                list.append(s)
                skipSpace()
                guard i < b.count else { return nil }
                if b[i] == 0x2C { i += 1; skipSpace(); continue }
                guard b[i] == 0x5D else { return nil }
                i += 1
                return list
            }
        }

        /// After a member's value: true at `,` (the next key follows), false at `}`.
        mutating func afterMember() -> Bool? {
            skipSpace()
            guard i < b.count else { return nil }
            if b[i] == 0x2C { i += 1; skipSpace(); return true }
            if b[i] == 0x7D { i += 1; return false }
            return nil
        }

        /// After an opening bracket: white space, then true (and consumed) if `close` follows.
        mutating func closes(_ close: UInt8) -> Bool {
            skipSpace()
            if i < b.count, b[i] == close { i += 1; return true }
            return false
        }

        mutating func next(_ byte: UInt8) -> Bool {
            guard i < b.count, b[i] == byte else { return false }
            i += 1
            return true
        }

        mutating func skipSpace() {
            while i < b.count {
                let c = b[i]
                guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
                i += 1
            }
        }

        // MARK: - keys

        enum Key: UInt8 {
            case id, app, name, groups, types, expires, enabled, created, updated
            case version, items, relay, url, revision, fetched, graceSeconds
        }

        /// A key without escapes that the policy knows, and its colon.
        mutating func key() -> Key? {
            guard i < b.count, b[i] == 0x22 else { return nil }
            let start = i + 1
            var end = start
            while end < b.count, b[end] != 0x22 {
                guard b[end] != 0x5C, b[end] >= 0x20 else { return nil }
                end += 1
            }
            guard end < b.count else { return nil }
            i = end + 1
            let key = Self.key(b[start..<end])
            skipSpace()
            guard key != nil, next(0x3A) else { return nil }
            skipSpace()
            return key
        }

        static func key(_ k: Slice<UnsafeBufferPointer<UInt8>>) -> Key? {
            func equals(_ word: StaticString) -> Bool {
                guard word.utf8CodeUnitCount == k.count else { return false }
                let w = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
                return k.elementsEqual(w)
            }
            guard let first = k.first else { return nil }
            switch first {
            case 0x61: return equals("app") ? .app : nil
            case 0x63: return equals("created") ? .created : nil
            case 0x65: return equals("enabled") ? .enabled : equals("expires") ? .expires : nil
            case 0x66: return equals("fetched") ? .fetched : nil
            case 0x67: return equals("groups") ? .groups : equals("graceSeconds") ? .graceSeconds : nil
            case 0x69: return equals("id") ? .id : equals("items") ? .items : nil
            case 0x6E: return equals("name") ? .name : nil
            case 0x72: return equals("relay") ? .relay : equals("revision") ? .revision : nil
            case 0x74: return equals("types") ? .types : nil
            case 0x75: return equals("updated") ? .updated : equals("url") ? .url : nil
            case 0x76: return equals("version") ? .version : nil
            default: return nil
            }
        }

        // MARK: - values

        mutating func bool() -> Bool? {
            if literal("true") { return true }
            if literal("false") { return false }
            return nil
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let n = word.utf8CodeUnitCount
            guard i + n <= b.count else { return false }
            let w = UnsafeBufferPointer(start: word.utf8Start, count: n)
            guard b[i..<(i + n)].elementsEqual(w) else { return false }
            i += n
            return true
        }

        /// A plain whole number: `0` or a digit 1–9 then at most 17 more digits; no sign,
        /// fraction or exponent (those decline).
        mutating func wholeNumber() -> Int? {
            let start = i
            var value = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                guard i - start < 18 else { return nil }
                value = value * 10 + Int(b[i] - 0x30)
                i += 1
            }
            let count = i - start
            guard count > 0, count <= 18, count == 1 || b[start] != 0x30 else { return nil }
            if i < b.count, b[i] == 0x2E || b[i] == 0x65 || b[i] == 0x45 { return nil }
            return value
        }

        /// A string value; escapes as JSON defines them, a surrogate pair as one scalar.
        mutating func string() -> String? {
            guard i < b.count, b[i] == 0x22 else { return nil }
            let start = i + 1
            var end = start
            var ascii = true
            while end < b.count {
                let c = b[end]
                if c == 0x22 || c == 0x5C || c < 0x20 { break }
                if c >= 0x80 { ascii = false }
                end += 1
            }
            guard end < b.count else { return nil }
            if b[end] == 0x22 {
                i = end + 1
                let raw = UnsafeBufferPointer(rebasing: b[start..<end])
                return ascii ? String(decoding: raw, as: UTF8.self) : String(validating: raw, as: UTF8.self)
            }
            guard b[end] == 0x5C else { return nil }
            return escapedString(from: start)
        }

        /// The slow half of `string()`: the bytes are collected, escapes replaced by their
        /// UTF-8, and the whole validated at the end.
        mutating func escapedString(from start: Int) -> String? {
            var out: [UInt8] = []
            i = start
            while true {
                guard i < b.count else { return nil }
                let c = b[i]
                if c == 0x22 { i += 1; break }
                guard c >= 0x20 else { return nil }
                if c != 0x5C { out.append(c); i += 1; continue }
                guard i + 1 < b.count else { return nil }
                let e = b[i + 1]
                i += 2
                switch e {
                case 0x22, 0x5C, 0x2F: out.append(e)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x6E: out.append(0x0A)
                case 0x72: out.append(0x0D)
                case 0x74: out.append(0x09)
                case 0x75:
                    guard var code = hex4() else { return nil }
                    if (0xD800...0xDBFF).contains(code) {
                        guard i + 1 < b.count, b[i] == 0x5C, b[i + 1] == 0x75 else { return nil }
                        i += 2
                        guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        return nil
                    }
                    guard let scalar = Unicode.Scalar(code) else { return nil }
                    out.append(contentsOf: UTF8.encode(scalar)!)
                default: return nil
                }
            }
            return String(validating: out, as: UTF8.self)
        }

        mutating func hex4() -> UInt32? {
            guard i + 4 <= b.count else { return nil }
            var value: UInt32 = 0
            for n in i..<(i + 4) {
                let c = b[n]
                let digit: UInt8
                switch c {
                case 0x30...0x39: digit = c - 0x30
                case 0x41...0x46: digit = c - 0x41 + 10
                case 0x61...0x66: digit = c - 0x61 + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
            }
            i += 4
            return value
        }

        /// A time as the decoder's date strategy reads it (`PolicyDates.parseTime`): the
        /// usual `YYYY-MM-DDThh:mm:ssZ` from 1600 on by arithmetic, anything else by parseTime.
        mutating func date() -> Date? {
            guard i < b.count, b[i] == 0x22 else { return nil }
            let start = i + 1
            if start + 21 <= b.count, b[start + 20] == 0x22, let date = PolicyFastReader.plainTime(b, start) {
                i = start + 21
                return date
            }
            guard let text = string() else { return nil }
            return PolicyDates.parseTime(text)
        }
    }

    /// `YYYY-MM-DDThh:mm:ssZ` at `at`, in the proleptic Gregorian calendar that
    /// Foundation's uses from 1583 on; nil for anything else.
    static func plainTime(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> Date? {
        func digits(_ from: Int, _ count: Int) -> Int? {
            var value = 0
            for n in from..<(from + count) {
                let c = b[n]
                guard c >= 0x30, c <= 0x39 else { return nil }
                value = value * 10 + Int(c - 0x30)
            }
            return value
        }
        guard at >= 0, at + 20 <= b.count, b[at + 4] == 0x2D, b[at + 7] == 0x2D, b[at + 10] == 0x54, b[at + 13] == 0x3A,
              b[at + 16] == 0x3A, b[at + 19] == 0x5A,
              let year = digits(at, 4), let month = digits(at + 5, 2), let day = digits(at + 8, 2),
              let hour = digits(at + 11, 2), let minute = digits(at + 14, 2), let second = digits(at + 17, 2),
              year >= 1600, (1...12).contains(month), day >= 1, day <= daysIn(month, of: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        // Days from 1970-01-01 to the date (the civil-from-days inverse, March-based years).
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146097 + dayOfEra - 719468
        return Date(timeIntervalSince1970: Double(days * 86400 + hour * 3600 + minute * 60 + second))
    }

    static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
