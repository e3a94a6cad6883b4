import ArgumentParser
import VFSCore
#if canImport(Glibc)
import Glibc
#endif

/// `--passcode-file` and `--passcode-fd`, with VFS_PASSCODE: the keychain's passcode
/// when no unlock agent holds its key.
public struct PasscodeOptions: ParsableArguments {
    @Option(name: .customLong("passcode-file"), help: ArgumentHelp("Read the keychain passcode from the first line of PATH.", valueName: "path"), completion: .file())
    public var passcodeFile: String?

    @Option(name: .customLong("passcode-fd"), help: ArgumentHelp("Read the keychain passcode from file descriptor N.", valueName: "n"))
    public var passcodeFD: Int32?

    public init() {}

    public var source: SecretSource {
        SecretSource(file: passcodeFile, fd: passcodeFD, noun: "passcode", environmentVariable: "VFS_PASSCODE")
    }
}

/// Opening the keychain from a command: through its unlock agent when one runs, else
/// with a passcode from the command's sources (the operations are UnlockedKeychain's).
public enum KeychainSession {
    /// Opens the keychain at `path` (the default location if nil): with the key of its
    /// unlock agent when one runs, else with the passcode from `passcode`.
    /// Without an agent and without any passcode source it fails at once (77).
    /// With `prompt` false the terminal is never asked (completion scripts): without an
    /// agent or a passcode file, descriptor or VFS_PASSCODE it fails at once (77).
    public static func open(passcode: SecretSource, path: String? = nil, useAgent: Bool = true, prompt: Bool = true) throws -> UnlockedKeychain {
        let (store, sealed, key) = try unlock(passcode: passcode, path: path, useAgent: useAgent, prompt: prompt)
        return try UnlockedKeychain(store: store, sealed: sealed, masterKey: key)
    }

    /// The keychain file and its master key, the body not yet opened (`get` looks up
    /// one entry without decoding the others). The key is checked against the file
    /// when the body is opened: the agent answers only for this keychain's id, so if
    /// its key then fails to authenticate, the file was modified (65), not locked.
    public static func unlock(passcode: SecretSource, path: String? = nil, useAgent: Bool = true, prompt: Bool = true) throws
        -> (store: KeychainStore, sealed: SealedKeychain, masterKey: SecretBytes) {
        let store = KeychainStore(path: try path ?? VFSPaths.current.keychain)
        let sealed = try store.read()
        if useAgent, let key = AgentClient(keychainPath: store.path).masterKey(keychainID: sealed.header.id) {
            return (store, sealed, key)
        }
        return (store, sealed, try checkedPasscode(passcode, for: sealed, locked: useAgent, prompt: prompt).masterKey)
    }

    /// The passcode and the master key it unwraps. A passcode typed on the terminal may
    /// be retyped, three tries in all (as sudo); one from a file, a descriptor or the
    /// environment is tried once.
    public static func checkedPasscode(_ source: SecretSource, for sealed: SealedKeychain, locked: Bool, prompt: Bool = true) throws
        -> (passcode: SecretBytes, masterKey: SecretBytes) {
        var tries = 0
        while true {
            tries += 1
            let passcode = try readPasscode(source, locked: locked, prompt: prompt)
            do {
                return (passcode, try sealed.unlock(passcode: passcode))
            } catch KeychainError.wrongPasscode where !source.isNonInteractive && tries < SecretSource.tries {
                Diagnostics.info("sorry, try again")
            } catch KeychainError.wrongPasscode where sealed.header.recoverySlot == nil {
                // No recovery questions to send the user to.
                throw ToolError("\(KeychainError.wrongPasscode)", exit: .permissionDenied, hints: [
                    "nothing was changed; this keychain has no recovery questions, so only its passcode opens it (check VFS_PASSCODE, --passcode-file or the keychain VFS_KEYCHAIN names)",
                ])
            }
        }
    }

    /// The recipients of the keychain identities `names` (every one for `all`), from
    /// the keychain's recipients table: no passcode and no agent needed. When an agent
    /// runs, its key checks the header first. A keychain that is not the user's own
    /// private file (another owner, writable by others), or a format-1 file (no table
    /// yet), is unlocked instead, through the agent or with the passcode.
    public static func recipients(named names: [String], passcode: SecretSource, path: String? = nil) throws -> [AgeRecipient] {
        let store = KeychainStore(path: try path ?? VFSPaths.current.keychain)
        let sealed = try store.read()
        var info = stat()
        let trusted = stat(store.path, &info) == 0 && (info.st_uid == getuid() || info.st_uid == 0) && info.st_mode & 0o022 == 0
        let agentKey = AgentClient(keychainPath: store.path).masterKey(keychainID: sealed.header.id)
        do {
            if trusted, let recipients = try sealed.publicRecipients(named: names, masterKey: agentKey) { return recipients }
        } catch KeychainError.noSuchRecipient(let name, let path) {
            // When the keychain can be opened (a plugin's identity is only in the body), say
            // which names there are.
            guard agentKey != nil || passcode.isNonInteractive || Terminal.canPrompt else {
                throw KeychainError.noSuchRecipient(name: name, path: path)
            }
        }
        return try open(passcode: passcode, path: store.path).identityEntries(named: names).map { try $0.ageIdentity().recipient }
    }

    /// The passcode; fails at once (never waits) when there is no source and no terminal
    /// (or `prompt` is false).
    public static func readPasscode(_ source: SecretSource, locked: Bool, prompt: Bool = true, promptText: String = "Keychain passcode: ") throws -> SecretBytes {
        guard source.isNonInteractive || (prompt && Terminal.canPrompt) else {
            let why = prompt ? "no terminal to ask for one" : "and this use never asks"
            throw ToolError(locked ? "the keychain is locked and no passcode was given (\(why))"
                                   : "no passcode given (\(why))",
                            exit: .permissionDenied, hints: [
                                "give it with --passcode-file PATH or --passcode-fd N, or in VFS_PASSCODE (least safe)",
                            ] + (locked ? ["or unlock the keychain for a while first: vfs-keychain unlock --timeout 15m"] : []))
        }
        return try source.read(prompt: promptText)
    }
}

/// What names may be in a keychain.
public enum KeychainNames {
    /// A service, account or identity name (or a label, a question): 1 to 1024 UTF-8
    /// bytes, no control characters. The quoted name in a message is escaped
    /// (Diagnostics prints control characters as escapes) and cut to 64 characters.
    public static func check(_ name: String, what: String, allowEmpty: Bool = false) throws {
        guard allowEmpty || !name.isEmpty else { throw ToolError.usage("the \(what) must not be empty") }
        guard name.utf8.count <= KeychainEntry.maxNameCount else {
            throw ToolError.usage("the \(what) is \(name.utf8.count) bytes long, more than \(KeychainEntry.maxNameCount)")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ToolError.usage("the \(what) \"\(name.debugDescription.dropFirst().dropLast())\" contains a control character")
        }
    }

    public static func checkIdentity(_ name: String) throws {
        try check(name, what: "identity name")
        guard name != UnlockedKeychain.allIdentities else {
            throw ToolError.usage("\"all\" is reserved for every identity (-K all); choose another name")
        }
    }
}
