/// File names (and link targets) that are not UTF-8, carried in a `String`: each byte
/// that is not part of a valid UTF-8 sequence becomes the private-use character
/// U+F700 + byte (U+F780…U+F7FF), and goes back to that byte on the way to the kernel,
/// to libarchive or to a manifest, so the name is kept byte for byte, as tar and rsync
/// keep it. A name that holds one of those characters itself (as UTF-8) could not be
/// told apart from a raw byte, and is refused (`string` returns nil).
public enum RawName {
    static let base: UInt32 = 0xF700

    /// The name's bytes as a String; nil when they hold U+F780…U+F7FF themselves.
    public static func string<Bytes: Collection>(_ bytes: Bytes) -> String? where Bytes.Element == UInt8 {
        let bytes = Array(bytes)
        if let text = String(validating: bytes, as: UTF8.self) {
            return text.unicodeScalars.contains(where: isEscape) ? nil : text
        }
        var out = String.UnicodeScalarView()
        var i = 0
        while i < bytes.count {
            let lead = bytes[i]
            let length = lead < 0x80 ? 1 : lead >= 0xC2 && lead < 0xE0 ? 2 : lead >= 0xE0 && lead < 0xF0 ? 3 : lead >= 0xF0 && lead < 0xF5 ? 4 : 0
            if length > 0, i + length <= bytes.count,
               let piece = String(validating: bytes[i..<(i + length)], as: UTF8.self) {
                if piece.unicodeScalars.contains(where: isEscape) { return nil }
                out.append(contentsOf: piece.unicodeScalars)
                i += length
            } else {
                out.append(Unicode.Scalar(base + UInt32(lead))!)
                i += 1
            }
        }
        return String(out)
    }

    /// True when `text` carries raw bytes (it was not UTF-8 on disk).
    public static func isRaw(_ text: String) -> Bool { text.unicodeScalars.contains(where: isEscape) }

    /// The bytes the name stands for.
    public static func bytes(_ text: String) -> [UInt8] {
        guard isRaw(text) else { return Array(text.utf8) }
        var out: [UInt8] = []
        for scalar in text.unicodeScalars {
            if isEscape(scalar) { out.append(UInt8(scalar.value - base)) } else { out.append(contentsOf: String(scalar).utf8) }
        }
        return out
    }

    /// The bytes as a NUL-terminated C string, for system calls.
    public static func cString(_ text: String) -> [CChar] {
        bytes(text).map { CChar(bitPattern: $0) } + [0]
    }

    /// For messages: each raw byte written as \xHH (as ls -b and GNU tar show them).
    public static func escaped(_ text: String) -> String {
        guard isRaw(text) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isEscape(scalar) { out += "\\x" + String(scalar.value - base, radix: 16, uppercase: false) }
            else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    package static func isEscape(_ scalar: Unicode.Scalar) -> Bool { (base + 0x80...base + 0xFF).contains(scalar.value) }
}
