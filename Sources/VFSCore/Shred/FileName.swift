/// A name in a folder as the kernel has it: bytes, not necessarily UTF-8. Kept as a
/// NUL-terminated C string so names that are not valid UTF-8 are still found and
/// removed; `description` is for messages only.
package struct FileName: Hashable, Sendable, CustomStringConvertible {
    /// NUL-terminated.
    package let bytes: [CChar]

    init(_ string: String) { bytes = Array(string.utf8CString) }

    init<Bytes: Collection>(raw: Bytes) where Bytes.Element == UInt8 {
        bytes = raw.map { CChar(bitPattern: $0) } + [0]
    }

    /// Length in bytes.
    var count: Int { bytes.count - 1 }

    /// The name as the tools carry names: bytes that are not UTF-8 kept as RawName
    /// characters (shown \xHH, written back as the bytes); a name that holds those
    /// characters itself, as it reads.
    package var description: String { FileName.text(bytes.dropLast().map { UInt8(bitPattern: $0) }) }

    /// A path's or name's bytes as the tools carry them (RawName), else as it reads.
    package static func text<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        RawName.string(bytes) ?? String(decoding: Array(bytes), as: UTF8.self)
    }

    var isDotOrDotDot: Bool { bytes == [46, 0] || bytes == [46, 46, 0] }
}
