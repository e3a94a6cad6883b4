import ArgumentParser
import VFSCore

/// `-i PATH` for the tools that encrypt: the recipients of the identities in a file.
public struct IdentityRecipientOptions: ParsableArguments {
    @Option(name: [.customShort("i", allowingJoined: true), .customLong("identity")],
            help: ArgumentHelp("Encrypt to the recipients of the identities in PATH. Repeatable.", valueName: "path"), completion: .file())
    public var identityFiles: [String] = []

    @OptionGroup var plugins: PluginIdentityOption

    public init() {}

    public var isEmpty: Bool { identityFiles.isEmpty && plugins.isEmpty }

    /// The recipient of every identity in the files (a passphrase-protected file asks
    /// for its passphrase as `IdentityOptions` does), and of every -j plugin (the
    /// plugin is asked to wrap for its identity, as age does).
    public func recipients() throws -> [AgeRecipient] {
        try IdentityOptions.load(identityFiles).map(\.recipient) + plugins.identities().map { .plugin($0.recipient) }
    }
}

/// `-p` with how the passphrase is read and scrypt's work factor, for the tools that
/// encrypt: a passphrase replaces every recipient (age allows one scrypt stanza alone).
public struct PassphraseEncryptionOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Encrypt with a passphrase (scrypt) instead of recipients.")
    public var passphrase = false

    @OptionGroup public var passphraseOptions: PassphraseOptions

    @Option(name: .customLong("work-factor"), help: ArgumentHelp("scrypt work factor log2(N) for -p (1-30).", valueName: "n"))
    public var workFactor: Int = ScryptRecipient.defaultWorkFactor

    public init() {}

    /// Checks -p against the recipients given; `recipientFlags` names the tool's
    /// recipient options for the message ("-r, -R, -i or -K").
    public func check(hasRecipients: Bool, recipientFlags: String) throws {
        if passphrase && hasRecipients {
            throw ToolError.usage("-p can't be combined with \(recipientFlags)", hints: ["a passphrase-encrypted file has exactly one stanza, as age requires"])
        }
        if !passphrase && (passphraseOptions.passphraseFile != nil || passphraseOptions.passphraseFD != nil) {
            throw ToolError.usage("--passphrase-file and --passphrase-fd go with -p", hints: [
                "add -p to encrypt with that passphrase instead of recipients",
                "a keychain's passcode (for -K) goes in --passcode-file or --passcode-fd",
            ])
        }
        guard ScryptRecipient.workFactorRange.contains(workFactor) else {
            throw ToolError.usage("--work-factor must be from \(ScryptRecipient.workFactorRange.lowerBound) to \(ScryptRecipient.workFactorRange.upperBound)")
        }
    }

    /// The scrypt recipient, reading the passphrase (on a terminal: asked twice, and an
    /// empty answer offers a generated one, as age does).
    public func recipient() throws -> Recipient {
        let secret = try passphraseOptions.source.read(prompt: "Enter passphrase (leave empty to autogenerate a secure one): ",
                                                       confirm: true, generate: SecretSource.generatedPassphrase)
        return ScryptRecipient(passphrase: secret, workFactor: workFactor)
    }
}

/// `-a`: PEM armor.
public struct ArmorOption: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Write PEM-armored (ASCII) output.")
    public var armor = false

    public init() {}
}

/// The passphrase and scrypt's cap for the tools that decrypt a file that may be
/// passphrase-encrypted.
public struct PassphraseDecryptionOptions: ParsableArguments {
    @OptionGroup public var passphraseOptions: PassphraseOptions

    @Option(name: .customLong("max-work-factor"), help: ArgumentHelp("Refuse scrypt work factors above N (1-30).", valueName: "n"))
    public var maxWorkFactor: Int = ScryptIdentity.defaultMaxWorkFactor

    public init() {}

    public func check() throws {
        guard ScryptRecipient.workFactorRange.contains(maxWorkFactor) else {
            throw ToolError.usage("--max-work-factor must be from \(ScryptRecipient.workFactorRange.lowerBound) to \(ScryptRecipient.workFactorRange.upperBound)")
        }
    }

    /// The file key: from the passphrase if the file is passphrase-encrypted, else from
    /// `identities` (which throws the tool's own error when there are none).
    public func fileKey(_ decryptor: AgeDecryptor, identities: () throws -> [Identity]) throws -> SecretBytes {
        if decryptor.isPassphraseEncrypted {
            let secret = try passphraseOptions.source.read(prompt: "Enter passphrase: ")
            do {
                return try decryptor.fileKey(identities: [ScryptIdentity(passphrase: secret, maxWorkFactor: maxWorkFactor)])
            } catch AgeError.noMatch {
                throw ToolError("incorrect passphrase", exit: .permissionDenied)
            }
        }
        return try decryptor.fileKey(identities: identities())
    }
}
