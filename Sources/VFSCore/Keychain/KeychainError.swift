/// What can go wrong with a keychain file.
public enum KeychainError: Error, CustomStringConvertible, Equatable {
    /// There is no keychain at the path.
    case notFound(path: String)
    /// `init` found a keychain already there.
    case exists(path: String)
    /// The file is not a keychain, is truncated, or failed authentication.
    /// `backup` is the previous good copy, when there is one.
    case corrupt(path: String, why: String, backup: String?)
    /// A keychain written by a later version of the format.
    case unsupportedVersion(path: String, version: Int)
    /// The file authenticates but is older (`epoch`) than the one this machine last saw
    /// (`seen`, recorded in `record`): a rollback.
    case rolledBack(path: String, epoch: UInt64, seen: UInt64, record: String)
    /// A name, label or secret too long for the keychain: nothing was saved.
    case entryTooLarge(what: String, count: Int, limit: Int)
    /// Encrypting to an identity the keychain's recipients table does not list.
    case noSuchRecipient(name: String, path: String)
    /// No key slot opens with the passcode given.
    case wrongPasscode
    /// The recovery answers do not open the recovery slot.
    case wrongAnswers
    /// `recover` on a keychain made without security questions.
    case noRecovery(path: String)
    /// Setting a secret that exists, without asking to replace it.
    case secretExists(service: String, account: String)
    /// An import that would replace an existing secret, without asking to: nothing is imported.
    case importWouldReplace(service: String, account: String)
    /// Adding an identity under a name that is taken.
    case identityExists(name: String)
    /// Asking for every identity of a keychain that holds none.
    case noIdentities(path: String)
    /// Asking for an identity the keychain does not hold; `known` are the names it has.
    case noSuchIdentity(name: String, path: String, known: [String])
    /// Asking for (replacing, copying, moving) a secret the keychain does not hold.
    case noSuchSecret(service: String, account: String)
    /// The secret an edit started from was changed by another command meanwhile: nothing saved.
    case changedMeanwhile(service: String, account: String)
    /// A secret that is not UTF-8 text, which the JSON of export cannot hold as it is.
    case secretNotText(service: String, account: String)

    public var description: String {
        switch self {
        case .notFound(let path): return "no keychain at \"\(path)\""
        case .exists(let path): return "a keychain already exists at \"\(path)\""
        case .corrupt(let path, let why, _): return "the keychain \"\(path)\" is damaged or was modified: \(why)"
        case .unsupportedVersion(let path, let version):
            return "the keychain \"\(path)\" has format version \(version); this vfs-keychain reads versions 1 to \(KeychainFormat.postQuantumVersion)"
        case let .rolledBack(path, epoch, seen, _):
            return "the keychain \"\(path)\" is an older copy (save \(epoch)) than the one last seen here (save \(seen)): it was rolled back"
        case let .entryTooLarge(what, count, limit): return "a \(what) of \(count) bytes is more than the keychain holds (\(limit))"
        case let .noSuchRecipient(name, path): return "no identity \"\(name)\" in the keychain \"\(path)\""
        case .wrongPasscode: return "incorrect passcode"
        case .wrongAnswers: return "the answers do not match the recovery questions"
        case .noRecovery(let path): return "the keychain \"\(path)\" has no recovery questions"
        case let .secretExists(service, account): return "an entry for \"\(service)\" \"\(account)\" already exists"
        case let .importWouldReplace(service, account):
            return "an entry for \"\(service)\" \"\(account)\" already exists; nothing was imported"
        case .identityExists(let name): return "an identity \"\(name)\" already exists"
        case .noIdentities(let path): return "the keychain \"\(path)\" holds no identities"
        case let .noSuchIdentity(name, path, _): return "no identity \"\(name)\" in the keychain \"\(path)\""
        case let .noSuchSecret(service, account): return "no secret for \"\(service)\" \"\(account)\""
        case let .changedMeanwhile(service, account):
            return "the secret of \"\(service)\" \"\(account)\" was changed by another command meanwhile; nothing was saved"
        case let .secretNotText(service, account):
            return "the secret of \"\(service)\" \"\(account)\" is not UTF-8 text, which the JSON of export cannot hold; nothing was exported"
        }
    }
}
