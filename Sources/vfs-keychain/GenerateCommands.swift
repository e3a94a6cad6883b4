import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore

extension Keychain {
    struct Generate: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(commandName: "generate",
            abstract: "Make a random secret for SERVICE and ACCOUNT, store it, and print it once.",
            discussion: KeychainHelp.generate)

        @Argument(help: "The service, or SERVICE/ACCOUNT as one name.") var service: String
        @Argument(help: ArgumentHelp("The account (after SERVICE/ACCOUNT: the length).", valueName: "account")) var second: String?
        @Argument(help: ArgumentHelp("How many characters (default \(SecretGenerator.defaultLength)).", valueName: "length")) var third: String?

        @Flag(name: [.customShort("n"), .customLong("no-symbols")], help: "Letters and digits only.") var noSymbols = false
        @Flag(name: [.customShort("i"), .customLong("in-place")], help: "Replace the secret of an existing entry only (exit 66 if there is none).")
        var inPlace = false
        @Flag(name: [.customShort("f"), .customLong("force")], help: "Replace the entry if it exists (else exit 73).") var force = false
        @Flag(name: [.customShort("c"), .customLong("clip")], help: "Copy it to the clipboard instead of printing it (cleared after VFS_CLIP_TIME, 45s).")
        var clip = false
        @Option(name: .long, help: ArgumentHelp("A free-text label, shown by list.", valueName: "text")) var label: String?
        @OptionGroup var passcodeOptions: PasscodeOptions

        /// SERVICE ACCOUNT [LENGTH], or SERVICE/ACCOUNT [LENGTH] when the word after a
        /// path is a number.
        var parts: (name: EntryName, length: String?) {
            if third == nil, let second, service.contains("/"), !second.isEmpty, second.allSatisfy(\.isASCII), second.allSatisfy(\.isNumber) {
                return (EntryName(service: service, account: nil), second)
            }
            return (EntryName(service: service, account: second), third)
        }

        var length: Int { parts.length.flatMap { Int($0) } ?? SecretGenerator.defaultLength }

        func check() throws {
            let name = try parts.name.checked()
            try KeychainNames.check(name.service, what: "service")
            try KeychainNames.check(name.account, what: "account")
            if let label { try KeychainNames.check(label, what: "label") }
            if let given = parts.length {
                guard let n = Int(given), (1...SecretGenerator.maxLength).contains(n) else {
                    throw ToolError.usage("the length \"\(given)\" is not a number from 1 to \(SecretGenerator.maxLength)")
                }
            }
            if inPlace && force { throw ToolError.usage("--in-place and --force can't be combined", hints: ["-i replaces an existing entry only; -f creates or replaces"]) }
        }

        func run() throws {
            let name = parts.name
            let clipboard = clip ? try ClipboardCopy.prepare() : nil
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            let secret = try SecretGenerator.generate(length: length, symbols: !noSymbols)
            try session.writeSecret(secret, service: name.service, account: name.account, label: label,
                                    mode: inPlace ? .replace : force ? .createOrReplace : .create, now: Keychain.now())
            if let clipboard {
                try clipboard.copy(secret, what: "the new secret of \"\(name.service)\" \"\(name.account)\"")
            } else {
                try ClipboardCopy.print(secret)
            }
        }
    }

    struct Edit: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(commandName: "edit",
            abstract: "Change the secret of SERVICE and ACCOUNT in your editor, through a private file on tmpfs.",
            discussion: KeychainHelp.edit)

        @Argument(help: "The service, or SERVICE/ACCOUNT as one name.") var service: String
        @Argument(help: "The account.") var account: String?
        @OptionGroup var passcodeOptions: PasscodeOptions

        func check() throws {
            let name = try EntryName(service: service, account: account).checked()
            try KeychainNames.check(name.service, what: "service")
            try KeychainNames.check(name.account, what: "account")
        }

        func run() throws {
            let name = EntryName(service: service, account: account)
            let environment = VFSPaths.current.environment
            // Refused before the passcode is asked for, when there is no tmpfs.
            _ = try PrivateScratchFile.memoryFolder(environment: environment)
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            let existing = session.secret(service: name.service, account: name.account)
            var original = existing?.secret.bytes ?? []
            defer { original.wipe() }
            var edited = try ExternalEditor.edit(original, environment: environment)
            defer { edited.wipe() }
            // An editor adds a final newline: one is not a change (set trims it too).
            let secret = Array(PipedSecret.trimmed(edited, raw: false))
            guard edited != original && secret != original else {
                Diagnostics.info("the secret of \"\(name.service)\" \"\(name.account)\" was not changed; nothing was saved")
                return
            }
            guard !secret.isEmpty else {
                throw ToolError.usage("the edited secret is empty; nothing was saved",
                                      hints: ["remove an entry with vfs-keychain delete \(DisplayText.shellQuoted(name.service)) \(DisplayText.shellQuoted(name.account))"])
            }
            guard secret.count <= PipedSecret.maxCount else {
                throw ToolError.usage("the edited secret is larger than 16 MiB; nothing was saved")
            }
            try session.writeSecret(SecretBytes(copying: secret), service: name.service, account: name.account,
                                    mode: existing == nil ? .create : .replace, expected: existing?.secret, now: Keychain.now())
            Diagnostics.info((existing == nil ? "stored" : "saved") + " the secret of \"\(name.service)\" \"\(name.account)\"")
        }
    }
}

/// `-c/--clip` of get and generate, and the plain printing they do without it.
struct ClipboardCopy {
    let clipboard: Clipboard
    let seconds: Int

    /// Finds the clipboard tool and reads VFS_CLIP_TIME before anything is unlocked,
    /// so a missing tool (69) or a bad time (64) costs no passcode.
    static func prepare() throws -> ClipboardCopy {
        let environment = VFSPaths.current.environment
        var seconds = Clipboard.defaultClearSeconds
        if let text = environment["VFS_CLIP_TIME"] {
            do { seconds = try DurationText.seconds(text) } catch let error as DurationText.ParseError {
                throw ToolError.usage("VFS_CLIP_TIME \"\(text)\" is not a duration" + (error.lacksUnit ? " (it has no unit)" : ""),
                                      hints: ["give it with a unit, as --timeout takes: VFS_CLIP_TIME=45s, 2m"])
            }
            guard (1...86400).contains(seconds) else { throw ToolError.usage("VFS_CLIP_TIME must be from 1s to 1d") }
        }
        return ClipboardCopy(clipboard: try Clipboard.find(environment: environment), seconds: seconds)
    }

    func copy(_ secret: SecretBytes, what: String) throws {
        try clipboard.copy(secret)
        try clipboard.clear(after: seconds)
        Diagnostics.info("copied \(what) to the clipboard (\(clipboard.name)); it will be cleared in \(DurationText.format(seconds: seconds))")
    }

    /// The secret on stdout exactly, with a newline added on a terminal (as get writes it).
    static func print(_ secret: SecretBytes) throws {
        var bytes = secret.bytes
        defer { bytes.wipe() }
        if Terminal.stdoutIsTerminal && bytes.last != 0x0A { bytes.append(0x0A) }
        try StandardOutput.write(bytes)
    }
}
