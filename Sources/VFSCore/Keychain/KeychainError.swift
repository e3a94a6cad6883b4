/// What can go wrong with a keychain file, with the exit status each tool reports.
public enum KeychainError: ReportableError, Equatable {
    /// There is no keychain at the path.
    case notFound(path: String)
    /// `init` found a keychain already there.
    case exists(path: String)
    /// The file is not a keychain, is truncated, or failed authentication.
    /// `backup` is the previous good copy, when there is one.
    case corrupt(path: String, why: String, backup: String?)
    /// A keychain written by a later version of the format.
    case unsupportedVersion(path: String, version: Int)
    /// No key slot opens with the passcode given.
    case wrongPasscode
    /// The recovery answers do not open the recovery slot.
    case wrongAnswers
    /// `recover` on a keychain made without security questions.
    case noRecovery(path: String)
    /// A name (service, account, identity, label, question) is not acceptable.
    case invalidName(String)

    public var description: String {
        switch self {
        case .notFound(let path): return "no keychain at \"\(path)\""
        case .exists(let path): return "a keychain already exists at \"\(path)\""
        case .corrupt(let path, let why, _): return "the keychain \"\(path)\" is damaged or was modified: \(why)"
        case .unsupportedVersion(let path, let version):
            return "the keychain \"\(path)\" has format version \(version); this vfs-keychain reads version \(KeychainFormat.version)"
        case .wrongPasscode: return "incorrect passcode"
        case .wrongAnswers: return "the answers do not match the recovery questions"
        case .noRecovery(let path): return "the keychain \"\(path)\" has no recovery questions"
        case .invalidName(let why): return why
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .notFound, .noRecovery: return .noInput
        case .exists: return .cannotCreate
        case .corrupt, .unsupportedVersion: return .dataError
        case .wrongPasscode, .wrongAnswers: return .permissionDenied
        case .invalidName: return .usage
        }
    }

    public var hints: [String] {
        switch self {
        case .notFound: return ["create one with vfs-keychain init (VFS_KEYCHAIN or VFS_HOME choose where)"]
        case .exists: return ["it is kept as it is; to start over, move it away first"]
        case .corrupt(let path, _, let backup):
            var out = ["the file is left untouched, and no later save will overwrite it"]
            if let backup {
                out.append("the previous good copy is \"\(backup)\": check it with VFS_KEYCHAIN=\(shellQuoted(backup)) vfs-keychain list, then restore it with cp -p \(shellQuoted(backup)) \(shellQuoted(path))")
            }
            return out
        case .unsupportedVersion: return ["use the vfs-keychain that wrote it, or a newer one"]
        case .wrongPasscode: return ["nothing was changed; if you forgot it, vfs-keychain recover answers the security questions"]
        case .wrongAnswers: return ["answers are compared trimmed, case-folded and with inner spaces collapsed; nothing was changed"]
        case .noRecovery: return ["only a keychain made with vfs-keychain init --questions FILE can be recovered"]
        case .invalidName: return []
        }
    }
}

/// `'text'` for a shell, quoted only when needed.
func shellQuoted(_ text: String) -> String {
    let safe = text.unicodeScalars.allSatisfy { $0.isASCII && ("a"..."z" ~= $0 || "A"..."Z" ~= $0 || "0"..."9" ~= $0 || "/._-+=:@,".unicodeScalars.contains($0)) }
    return safe && !text.isEmpty ? text : "'" + text.replacingAll("'", with: "'\\''") + "'"
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
