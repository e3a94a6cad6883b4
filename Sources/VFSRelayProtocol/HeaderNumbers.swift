/// The numbers a client writes in HTTP headers (`Range`, tus's `Upload-Offset` and
/// `Upload-Length`, `Content-Length`), parsed without arithmetic that can overflow: a
/// request is untrusted input, and one trap stops the relay for everyone. Foundation-free
/// and pure, so the relay and the fuzz harness (make fuzz, target `relay-headers`) share it.
public enum HeaderNumbers {
    /// A byte count or offset as tus and `Content-Length` write it: one or more ASCII
    /// digits, nothing else (no sign, no spaces), at most `Int64.max`; nil otherwise.
    public static func byteCount<S: StringProtocol>(_ text: S) -> Int64? { digits(text.utf8, saturating: false) }

    /// `1*DIGIT` of a byte range (RFC 9110 §14.1.1), which has no upper bound: a value
    /// past `Int64.max` is `Int64.max` (no file is that long, so the meaning is kept:
    /// "to the end", "past the end", "all of it"). Nil if not digits.
    static func rangeNumber(_ text: Substring) -> Int64? { digits(text.utf8, saturating: true) }

    private static func digits<C: Collection<UInt8>>(_ bytes: C, saturating: Bool) -> Int64? {
        guard !bytes.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - 0x30))
            if overflow1 || overflow2 {
                guard saturating else { return nil }
                value = .max
            } else {
                value = sum
            }
        }
        return value
    }

    /// One `range-spec` of a `bytes` range set (RFC 9110 §14.1.1), its numbers saturated
    /// at `Int64.max` (`rangeNumber`).
    public enum ByteRangeSpec: Equatable, Sendable {
        /// `first-` or `first-last` (`last`, when given, at least `first`).
        case from(Int64, through: Int64?)
        /// `-length`: the last `length` bytes.
        case suffix(Int64)
    }

    /// A `Range` header as RFC 9110 §14.2 reads it, before any file size is known.
    public enum RangeHeader: Equatable, Sendable {
        /// A range unit other than `bytes` (compared without case): the header MUST be
        /// ignored, and the whole representation is the answer.
        case otherUnit
        /// A `bytes` range set, its empty list elements (`bytes=0-9,`) left out; never empty.
        case bytes([ByteRangeSpec])
    }

    /// Parses a `Range` header (`range-unit "=" range-set`, RFC 9110 §14.1–14.2): the unit
    /// is a token compared without case; the set is a list whose elements are separated by
    /// commas with optional blanks, empty elements ignored (§5.6.1). Nil when it is no
    /// valid ranges-specifier: no `=`, a unit that is not a token, a `bytes` set with no
    /// element or with one that is not `first-[last]` (last ≥ first) or `-length`.
    public static func rangeHeader<S: StringProtocol>(_ header: S) -> RangeHeader? {
        let text = Substring(header)
        guard let equals = text.firstIndex(of: "=") else { return nil }
        let unit = text[..<equals]
        guard !unit.isEmpty, unit.utf8.allSatisfy(isTokenByte) else { return nil }
        guard unit.lowercased() == "bytes" else { return .otherUnit }
        var specs: [ByteRangeSpec] = []
        for element in text[text.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false) {
            let spec = trimmed(element)
            if spec.isEmpty { continue }
            guard let parsed = rangeSpec(spec) else { return nil }
            specs.append(parsed)
        }
        return specs.isEmpty ? nil : .bytes(specs)
    }

    private static func rangeSpec(_ spec: Substring) -> ByteRangeSpec? {
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            guard let length = rangeNumber(last) else { return nil }
            return .suffix(length)
        }
        guard let start = rangeNumber(first) else { return nil }
        if last.isEmpty { return .from(start, through: nil) }
        guard let end = rangeNumber(last), end >= start else { return nil }
        return .from(start, through: end)
    }

    /// What a `Range` header asks of a representation of `size` bytes.
    public enum RangeAnswer: Equatable, Sendable {
        /// The whole representation, 200: the header names another unit (ignored, as it
        /// MUST be), or the representation is empty and a suffix range asks for it (the
        /// one satisfiable form there, RFC 9110 §14.1.3, and no 206 can say "0 bytes").
        case whole
        /// The satisfiable ranges, in the order asked (each non-empty, inside `0..<size`);
        /// the unsatisfiable elements of the set are left out. Never empty.
        case ranges([Range<Int64>])
        /// No range of the set is satisfiable (each starts at or past the end, or is a
        /// zero suffix), or the header is no valid ranges-specifier: 416, with
        /// `Content-Range: bytes */size`. (RFC 9110 §14.2 lets a server reject an invalid one.)
        case unsatisfiable
    }

    /// The answer to `Range: header` on a representation of `size` bytes (RFC 9110 §14).
    public static func rangeAnswer<S: StringProtocol>(_ header: S, size: Int64) -> RangeAnswer {
        switch rangeHeader(header) {
        case nil: return .unsatisfiable
        case .otherUnit: return .whole
        case .bytes(let specs):
            var ranges: [Range<Int64>] = []
            var emptyAsked = false
            for spec in specs {
                switch spec {
                case .suffix(let length):
                    // The last N bytes (all of them when N is past the size).
                    guard length > 0 else { continue }
                    if size == 0 { emptyAsked = true } else { ranges.append((length >= size ? 0 : size - length)..<size) }
                case .from(let start, let end):
                    guard start < size else { continue }
                    // end ≥ start ≥ 0 and size > start: `end < size` keeps end + 1 in range.
                    let upper = end.map { $0 < size ? $0 + 1 : size } ?? size
                    ranges.append(start..<upper)
                }
            }
            if !ranges.isEmpty { return .ranges(ranges) }
            return emptyAsked ? .whole : .unsatisfiable
        }
    }

    /// `tchar` of RFC 9110 §5.6.2: the bytes a token (a range unit) is made of.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Whether `declared` more bytes written at `offset` stay within `length`
    /// (`offset + declared <= length`, asked without the sum).
    public static func fits(_ declared: Int64, at offset: Int64, within length: Int64) -> Bool {
        declared >= 0 && offset >= 0 && offset <= length && declared <= length - offset
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) }) else { return "" }
        return text[first...last]
    }
}

extension HeaderNumbers {
    /// One input of the fuzz target `relay-headers` and of the relay's generated-input
    /// test: the first 8 bytes are a file size, the rest a header value fed to every
    /// parser above. Traps (precondition) if a parser traps, accepts a range outside the
    /// file, or answers `fits` unlike exact (128-bit) arithmetic.
    package static func exercise(_ bytes: [UInt8]) {
        let raw = bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let size = Int64(bitPattern: raw & UInt64(Int64.max))
        let text = String(decoding: bytes.dropFirst(8), as: UTF8.self)
        for candidate in [size, size & 0xFFFF, Int64.max] {
            if case .ranges(let ranges) = rangeAnswer(text, size: candidate) {
                precondition(!ranges.isEmpty, "no range of \"\(text)\" and yet not whole nor unsatisfiable")
                for range in ranges {
                    precondition(!range.isEmpty && range.lowerBound >= 0 && range.upperBound <= candidate,
                                 "range \(range) of \"\(text)\" is not inside \(candidate) bytes")
                }
            }
        }
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { byteCount($0) }
        for case let value? in numbers {
            precondition(value >= 0, "byte count \(value) is negative")
        }
        let values = numbers.compactMap { $0 } + [size, 0, 1, .max]
        for declared in values.prefix(4) {
            for offset in values.prefix(4) {
                for length in values.prefix(4) {
                    let exact = Int128(offset) + Int128(declared) <= Int128(length) && offset <= length
                    precondition(fits(declared, at: offset, within: length) == exact,
                                 "fits(\(declared), at: \(offset), within: \(length)) is wrong")
                }
            }
        }
    }
}
