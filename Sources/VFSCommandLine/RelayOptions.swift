import ArgumentParser
import VFSCore

/// Where vfs-device, vfs-push and vfs-fetch find this device's relay token and
/// identity: the keychain (unlocked by its agent, else the passcode), or two files.
public struct RelayCredentialOptions: ParsableArguments {
    @Option(name: .customLong("token-file"), help: ArgumentHelp("Keep the device's relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).", valueName: "path"), completion: .file())
    public var tokenFile: String?

    @Option(name: .customLong("identity-file"), help: ArgumentHelp("Keep the device's age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).", valueName: "path"), completion: .file())
    public var identityFile: String?

    @Option(help: ArgumentHelp("Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).", valueName: "seconds"))
    public var timeout: Int?

    @OptionGroup public var passcode: PasscodeOptions

    /// `--timeout`, checked: 1 to 86400 seconds.
    public var relayTimeout: Int? {
        get throws {
            if let timeout, timeout <= 0 || timeout > 86_400 { throw ToolError.usage("--timeout takes 1 to 86400 seconds") }
            return timeout
        }
    }

    public init() {}

    /// The token and identity files: the options', else the systemd credentials in
    /// `$CREDENTIALS_DIRECTORY` (`CredentialFiles`), each checked to be its owner's alone.
    public var credentialFiles: (token: String?, identity: String?) {
        get throws {
            try CredentialFiles.resolve(token: tokenFile, identity: identityFile, directory: CredentialFiles.directory)
        }
    }

    /// The keychain file these tools use.
    public var keychainPath: String { get throws { try VFSPaths.current.keychain } }

    /// Reads the keychain passcode when asked; fails at once without a source and a terminal.
    public var passcodeReader: @Sendable () throws -> SecretBytes { passcodeReader(prompt: true) }

    /// With `prompt` false the terminal is never asked (completion scripts).
    public func passcodeReader(prompt: Bool) -> @Sendable () throws -> SecretBytes {
        let file = passcode.passcodeFile, fd = passcode.passcodeFD
        return {
            let source = SecretSource(file: file, fd: fd, noun: "passcode", environmentVariable: "VFS_PASSCODE")
            return try KeychainSession.readPasscode(source, locked: true, prompt: prompt)
        }
    }
}

/// The approved-apps gate vfs-unwrap and vfs-fetch apply before releasing a byte:
/// the policy's decision for the bundle's files and group (PolicySource.decide); a
/// denial is exit 77.
public enum PolicyGate {
    public static func authorize(_ app: String, group: String?, paths: [String], source: PolicySource? = nil) throws {
        let source = try source ?? PolicyChoice.source()
        if case .denied(let denial) = try source.decide(files: paths, group: group, app: app) {
            throw ToolError(denial.description, exit: .permissionDenied, hints: hints(for: denial))
        }
    }

    /// What to do about a denial.
    public static func hints(for denial: PolicyDenial) -> [String] {
        if denial.reason == .policyStale {
            return ["nothing was written; vfs-policy sync fetches the organisation's list (the relay must be reachable), vfs-fetch --watch keeps it fresh"]
        }
        return ["nothing was written; vfs-policy list shows what each app may receive"]
    }
}

/// `--retry-for DURATION` (vfs-push, vfs-fetch, vfs-cloud): how long a temporary failure
/// (the relay down or restarting, full, busy) is tried again before it is reported.
public struct RetryOptions: ParsableArguments {
    @Option(name: .customLong("retry-for"), help: ArgumentHelp(
        "Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.",
        valueName: "duration"))
    public var retryFor: String?

    public init() {}

    /// `--retry-for`, else `$VFS_RETRY_FOR`, else `defaultSeconds`; `0` (no unit needed) is no retry.
    public func seconds(default defaultSeconds: Int) throws -> Int {
        let (text, source) = retryFor.map { ($0, "--retry-for") }
            ?? VFSPaths.current.environment["VFS_RETRY_FOR"].map { ($0, "VFS_RETRY_FOR") } ?? ("", "")
        if text.isEmpty { return defaultSeconds }
        if text == "0" { return 0 }
        do {
            return try DurationText.seconds(text)
        } catch {
            throw ToolError.usage("\(source): \(error)", hints: ["give a duration with its unit: 30s, 5m, 1h; 0 never tries again"])
        }
    }
}
