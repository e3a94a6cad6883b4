/// The shapes of the values an item holds, as plain predicates: the policy file
/// (VFSCore's `PolicyRules`) and the relay check the same rules.
public enum PolicyValueRules {
    /// A command name or reverse-DNS id: 1–255 of letters, digits, `.`, `_`, `-`, `+`,
    /// not starting with `-` or `.`.
    public static func isValidApp(_ app: String) -> Bool {
        !app.isEmpty && app.utf8.count <= 255 && app.first != "-" && app.first != "."
            && app.unicodeScalars.allSatisfy { $0.isASCII && (isAlphanumeric($0) || "._-+".unicodeScalars.contains($0)) }
    }

    /// A group id: 1–255 printable characters without spaces or commas.
    public static func isValidGroup(_ group: String) -> Bool {
        !group.isEmpty && group.utf8.count <= 255
            && group.unicodeScalars.allSatisfy { s in
                // ASCII decided by value (its white space is 0x09–0x0D and 0x20); the Unicode
                // tables only for the rest, where the other conditions always hold.
                s.isASCII ? s.value > 0x20 && s.value != 0x7F && s != "," : !s.properties.isWhitespace
            }
    }

    /// A file type in stored form: 1–32 of lowercase letters, digits, `_`, `-`, `+`.
    public static func isValidType(_ type: String) -> Bool {
        !type.isEmpty && type.utf8.count <= 32
            && type.unicodeScalars.allSatisfy { $0.isASCII && (isAlphanumeric($0) && !("A"..."Z").contains($0) || "_-+".unicodeScalars.contains($0)) }
    }

    /// An id: 1–64 of lowercase letters, digits, `-`, `_`.
    public static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.unicodeScalars.allSatisfy { $0.isASCII && (("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
    }

    static func isAlphanumeric(_ s: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(s) || ("A"..."Z").contains(s) || ("0"..."9").contains(s)
    }
}
