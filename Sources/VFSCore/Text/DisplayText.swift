/// Text made safe to show: on a terminal, in a diagnostic, or in a command line the
/// user may paste into a shell.
public enum DisplayText {
    /// `text` with control characters written as escapes (`\n`, `\t`, `\x1b`, `\u{9b}`),
    /// for names that come from files or bundles: printed raw, an escape sequence in a
    /// hostile name could clear the screen, move the cursor or forge a line of output.
    /// Bytes that were not UTF-8 (RawName) are written \xHH.
    /// Unicode format characters (General_Category Cf: bidi overrides and isolates such as
    /// U+202E, zero-width characters, U+FEFF) are escaped too (`\u{202e}`): raw, they make
    /// "invoice\u{202e}fdp.exe" show as "invoiceexe.pdf".
    public static func printable(_ text: String) -> String {
        let text = RawName.escaped(text)
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x80 && isControl(scalar):
                out += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            case _ where isControl(scalar): out += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.properties.generalCategory == .format
    }

    /// `text` as one shell word: as it is when it holds only characters no shell treats
    /// specially, else in single quotes (a quote inside written `'\''`).
    public static func shellQuoted(_ text: String) -> String {
        let safe = text.unicodeScalars.allSatisfy {
            $0.isASCII && ("a"..."z" ~= $0 || "A"..."Z" ~= $0 || "0"..."9" ~= $0 || "/._-+=:@,".unicodeScalars.contains($0))
        }
        guard !safe || text.isEmpty else { return text }
        var out = "'"
        for c in text { if c == "'" { out += "'\\''" } else { out.append(c) } }
        return out + "'"
    }
}
