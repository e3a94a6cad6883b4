import ArgumentParser
import VFSCore

/// `-K NAME`: identities kept in the keychain, for the tools that decrypt (in addition
/// to -i) and encrypt (to the identity's recipient). The keychain is unlocked through
/// its agent when one runs, else with the passcode from --passcode-file, --passcode-fd,
/// VFS_PASSCODE or the terminal.
public struct KeychainIdentityOptions: ParsableArguments {
    /// -K NAME / --keychain-identity NAME, repeatable. The reserved name `all` means every identity in the keychain.
    @Option(name: [.customShort("K", allowingJoined: true), .customLong("keychain-identity")],
            help: ArgumentHelp("Use the keychain identity NAME ('all' for every one). Repeatable.", valueName: "name"), completion: .vfsKeychainIdentities)
    public var names: [String] = []

    @OptionGroup public var passcodeOptions: PasscodeOptions

    public init() {}

    public var isEmpty: Bool { names.isEmpty }

    /// Called from the command's `check()` (see CheckedCommand: not ArgumentParser's
    /// `validate()`, which runs before unknown options are reported).
    public func check() throws {
        if names.isEmpty && (passcodeOptions.passcodeFile != nil || passcodeOptions.passcodeFD != nil) {
            throw ToolError.usage("--passcode-file and --passcode-fd go with -K NAME")
        }
    }

    /// The named identities (all of them for `all`), unlocking the keychain through the
    /// agent or a passcode source. Unknown name => exit 66 with a hint listing the
    /// names; wrong passcode => exit 77.
    public func identities() throws -> [AgeIdentity] {
        guard !names.isEmpty else { return [] }
        let session = try KeychainSession.open(passcode: passcodeOptions.source)
        return try session.identityEntries(named: names).map { try $0.ageIdentity() }
    }

    /// Their recipients (for encrypting to a keychain identity), from the keychain's
    /// recipients table: no passcode and no agent needed, so cron jobs encrypt at any
    /// time. When an agent runs, its key checks the header first. A keychain that is
    /// not the user's own private file (another owner, writable by others), or a
    /// format-1 file (no table yet), is unlocked as for decrypting instead.
    public func recipients() throws -> [AgeRecipient] {
        guard !names.isEmpty else { return [] }
        return try KeychainSession.recipients(named: names, passcode: passcodeOptions.source)
    }
}
