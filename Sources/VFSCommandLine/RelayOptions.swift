import ArgumentParser
import VFSCore

/// Where vfs-device, vfs-push and vfs-fetch find this device's relay token and
/// identity: the keychain (unlocked by its agent, else the passcode), or two files.
public struct RelayCredentialOptions: ParsableArguments {
    @Option(name: .customLong("token-file"), help: ArgumentHelp("Keep the device's relay token in PATH instead of the keychain.", valueName: "path"))
    public var tokenFile: String?

    @Option(name: .customLong("identity-file"), help: ArgumentHelp("Keep the device's age identity in PATH instead of the keychain.", valueName: "path"))
    public var identityFile: String?

    @OptionGroup public var passcode: PasscodeOptions

    public init() {}

    /// The keychain file these tools use.
    public var keychainPath: String { ToolPaths.keychain }

    /// Reads the keychain passcode when asked; fails at once without a source and a terminal.
    public var passcodeReader: @Sendable () throws -> SecretBytes {
        let file = passcode.passcodeFile, fd = passcode.passcodeFD
        return {
            let source = SecretSource(file: file, fd: fd, noun: "passcode", environmentVariable: "VFS_PASSCODE")
            return try KeychainSession.readPasscode(source, locked: true)
        }
    }
}

/// The approved-apps gate vfs-unwrap and vfs-fetch apply before releasing a byte:
/// one policy decision per distinct file type in the bundle (one with no type when it
/// holds only folders); the first denial is exit 77.
public enum PolicyGate {
    public static func authorize(_ app: String, group: String?, paths: [String], policyPath: String = ToolPaths.policyFile) throws {
        var types: [String?] = []
        for path in paths {
            let type = PolicyRequest.fileType(ofPath: path)
            if !types.contains(type) { types.append(type) }
        }
        let store = PolicyStore(path: policyPath)
        for type in types.isEmpty ? [nil] : types {
            if case .denied(let denial) = try store.decide(PolicyRequest(app: app, group: group, fileType: type)) {
                throw ToolError(denial.description, exit: .permissionDenied,
                                hints: ["nothing was written; vfs-policy list shows what each app may receive"])
            }
        }
    }
}
