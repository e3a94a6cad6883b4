import ArgumentParser
import VFSCore

/// `--passcode-file` and `--passcode-fd`, with VFS_PASSCODE: the keychain's passcode
/// when no unlock agent holds its key.
public struct PasscodeOptions: ParsableArguments {
    @Option(name: .customLong("passcode-file"), help: ArgumentHelp("Read the keychain passcode from the first line of PATH.", valueName: "path"))
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
    public static func open(passcode: SecretSource, path: String? = nil, useAgent: Bool = true) throws -> UnlockedKeychain {
        let (store, sealed, key) = try unlock(passcode: passcode, path: path, useAgent: useAgent)
        return try UnlockedKeychain(store: store, sealed: sealed, masterKey: key)
    }

    /// The keychain file and its master key, the body not yet opened (`get` looks up
    /// one entry without decoding the others). The key is checked against the file
    /// when the body is opened: the agent answers only for this keychain's id, so if
    /// its key then fails to authenticate, the file was modified (65), not locked.
    public static func unlock(passcode: SecretSource, path: String? = nil, useAgent: Bool = true) throws
        -> (store: KeychainStore, sealed: SealedKeychain, masterKey: SecretBytes) {
        let store = KeychainStore(path: path ?? VFSPaths.current.keychain)
        let sealed = try store.read()
        if useAgent, let key = AgentClient(keychainPath: store.path).masterKey(keychainID: sealed.header.id) {
            return (store, sealed, key)
        }
        return (store, sealed, try sealed.unlock(passcode: readPasscode(passcode, locked: useAgent)))
    }

    /// The passcode; fails at once (never waits) when there is no source and no terminal.
    static func readPasscode(_ source: SecretSource, locked: Bool, prompt: String = "Keychain passcode: ") throws -> SecretBytes {
        guard source.isNonInteractive || Terminal.canPrompt else {
            throw ToolError(locked ? "the keychain is locked and no passcode was given (no terminal to ask for one)"
                                   : "no passcode given and no terminal to ask for one",
                            exit: .permissionDenied, hints: [
                                "give it with --passcode-file PATH or --passcode-fd N, or in VFS_PASSCODE (least safe)",
                            ] + (locked ? ["or unlock the keychain for a while first: vfs-keychain unlock --timeout 15m"] : []))
        }
        return try source.read(prompt: prompt)
    }
}

/// What names may be in a keychain.
public enum KeychainNames {
    /// A service, account or identity name: 1 to 1024 UTF-8 bytes, no control characters.
    public static func check(_ name: String, what: String) throws {
        guard !name.isEmpty else { throw ToolError.usage("the \(what) must not be empty") }
        guard name.utf8.count <= 1024 else { throw ToolError.usage("the \(what) is longer than 1024 bytes") }
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
