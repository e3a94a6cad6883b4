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

    /// The one byte range a `Range` header asks of a representation of `size` bytes:
    /// `bytes=A-B`, `bytes=A-` or `bytes=-N`. Nil when it is unsatisfiable (starts past
    /// the end, an empty file, a zero suffix), is not one range of bytes (several ranges,
    /// another unit), or is not a range at all: the relay answers 416 to each. An answer
    /// is never empty and always lies inside `0..<size`.
    public static func byteRange<S: StringProtocol>(_ header: S, size: Int64) -> Range<Int64>? {
        guard size > 0 else { return nil }
        let text = Substring(header)
        guard text.hasPrefix("bytes=") else { return nil }
        let spec = trimmed(text.dropFirst(6))
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            // The last N bytes (all of them when N is past the size).
            guard let suffix = rangeNumber(last), suffix > 0 else { return nil }
            return (suffix >= size ? 0 : size - suffix)..<size
        }
        guard let start = rangeNumber(first), start < size else { return nil }
        if last.isEmpty { return start..<size }
        guard let end = rangeNumber(last), end >= start else { return nil }
        // end ≥ start ≥ 0 and size > start: `end < size` keeps end + 1 in range.
        return start..<(end < size ? end + 1 : size)
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
            if let range = byteRange(text, size: candidate) {
                precondition(!range.isEmpty && range.lowerBound >= 0 && range.upperBound <= candidate,
                             "range \(range) of \"\(text)\" is not inside \(candidate) bytes")
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
