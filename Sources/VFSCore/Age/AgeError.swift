/// What can go wrong reading or writing an age file. The cases follow the failure
/// classes of the conformance suite, so a lower-level error is never masked by a
/// higher-level one.
public enum AgeError: Error, CustomStringConvertible, Equatable {
    /// The header does not parse (or a stanza an identity recognises is malformed).
    case header(String)
    /// The header parses but no identity unwraps the file key.
    case noMatch(String)
    /// The file key unwraps but the header MAC does not match.
    case headerMAC
    /// The STREAM payload fails before the end.
    case payload(String)
    /// The ASCII armor does not parse.
    case armor(String)
    /// A key or recipient string is not valid.
    case invalidKey(String)
    /// The passphrase-file work factor is above the allowed maximum.
    case workFactorTooLarge(Int, maximum: Int)
    /// An OpenSSH private key protected by a passphrase (bcrypt-pbkdf), which this
    /// toolkit does not open; the source (a quoted path) is kept for the message.
    case encryptedSSHKey(String)

    public var description: String {
        switch self {
        case .header(let why): return "invalid header: \(why)"
        case .noMatch(let why): return why
        case .headerMAC: return "bad header MAC: the file was modified or the key is wrong"
        case .payload(let why): return "corrupt payload: \(why)"
        case .armor(let why): return "invalid armor: \(why)"
        case .invalidKey(let why): return why
        case .workFactorTooLarge(let n, let maximum):
            return "passphrase work factor \(n) is above the maximum \(maximum)"
        case .encryptedSSHKey(let source): return "\(source): \(SSHKeyText.encryptedKeyMessage)"
        }
    }
}
