import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore

/// OLD and NEW of mv and cp: `OLD NEW` as SERVICE/ACCOUNT names, or all four words
/// `SERVICE ACCOUNT NEW-SERVICE NEW-ACCOUNT`.
struct EntryPairArguments: ParsableArguments {
    @Argument(help: ArgumentHelp("OLD NEW as SERVICE/ACCOUNT names, or SERVICE ACCOUNT NEW-SERVICE NEW-ACCOUNT.", valueName: "name"))
    var words: [String] = []

    var pair: (old: EntryName, new: EntryName) {
        words.count == 4 ? (EntryName(service: words[0], account: words[1]), EntryName(service: words[2], account: words[3]))
                         : (EntryName(service: words.first ?? "", account: nil), EntryName(service: words.last ?? "", account: nil))
    }

    func check(_ command: String) throws {
        guard words.count == 2 || words.count == 4 else {
            throw ToolError.usage("\(command) takes 2 names or 4 words, not \(words.count)",
                                  hints: ["vfs-keychain \(command) github.com/deploy-bot github.com/ci-bot",
                                          "vfs-keychain \(command) github.com deploy-bot github.com ci-bot"])
        }
        for name in [pair.old, pair.new] {
            let checked = try name.checked()
            try KeychainNames.check(checked.service, what: "service")
            try KeychainNames.check(checked.account, what: "account")
        }
        guard pair.old.pair != pair.new.pair else { throw ToolError.usage("the old and the new name are the same entry") }
    }
}

extension Keychain {
    struct MoveSecret: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(commandName: "mv",
            abstract: "Rename an entry (exit 66 if OLD is missing, 73 if NEW exists, unless -f).",
            discussion: KeychainHelp.moveCopy)
        @OptionGroup var names: EntryPairArguments
        @Flag(name: [.customShort("f"), .customLong("force")], help: "Replace NEW if it exists.") var force = false
        @OptionGroup var passcodeOptions: PasscodeOptions

        func check() throws { try names.check("mv") }

        func run() throws {
            let (old, new) = names.pair
            try KeychainSession.open(passcode: passcodeOptions.source)
                .copySecret(from: old.pair, to: new.pair, overwriting: force, move: true, now: Keychain.now())
        }
    }

    struct CopySecret: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(commandName: "cp",
            abstract: "Copy an entry's secret and label to a new name (exit 66 if OLD is missing, 73 if NEW exists, unless -f).",
            discussion: KeychainHelp.moveCopy)
        @OptionGroup var names: EntryPairArguments
        @Flag(name: [.customShort("f"), .customLong("force")], help: "Replace NEW if it exists.") var force = false
        @OptionGroup var passcodeOptions: PasscodeOptions

        func check() throws { try names.check("cp") }

        func run() throws {
            let (old, new) = names.pair
            try KeychainSession.open(passcode: passcodeOptions.source)
                .copySecret(from: old.pair, to: new.pair, overwriting: force, move: false, now: Keychain.now())
        }
    }

    struct FindSecrets: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(commandName: "find",
            abstract: "List the entries whose service, account or label contains a TERM, ignoring case (exit 1 if none).",
            discussion: KeychainHelp.find, aliases: ["search"])
        @Argument(help: ArgumentHelp("What to look for (any of them matches).", valueName: "term")) var terms: [String] = []
        @Flag(name: .long, help: "Write JSON, as list --json does.") var json = false
        @OptionGroup var passcodeOptions: PasscodeOptions

        func check() throws {
            guard !terms.isEmpty else { throw ToolError.usage("find needs a TERM", hints: ["vfs-keychain list shows every entry"]) }
            guard !terms.contains("") else { throw ToolError.usage("an empty TERM matches everything", hints: ["vfs-keychain list shows every entry"]) }
        }

        func run() throws {
            let found = try KeychainSession.open(passcode: passcodeOptions.source).secrets(matching: terms)
            try ListSecrets.write(found, json: json)
            if found.isEmpty { throw ExitCode(ExitStatus.no.rawValue) }
        }
    }

    struct ExportSecrets: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "export",
            abstract: "Write every secret as the JSON array that import reads (the counterpart of import).",
            discussion: KeychainHelp.exportSecrets)
        @Flag(name: .long, help: "JSON (the only format; accepted for scripts that say so).") var json = false
        @Flag(name: [.customShort("f"), .customLong("force")], help: "Write the secrets to a terminal too.") var force = false
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            try TerminalGuard.refuse(unless: force, what: "every secret", example: "vfs-keychain export > secrets.json")
            let exported = try KeychainSession.open(passcode: passcodeOptions.source).exportedSecrets()
            try JSONOutput.print(exported)
            Diagnostics.info("exported \(exported.count) entr\(exported.count == 1 ? "y" : "ies")")
        }
    }
}

/// Secrets in bulk, or a secret key, are not shown on a screen unless asked for.
enum TerminalGuard {
    static func refuse(unless force: Bool, what: String, example: String) throws {
        guard !force && Terminal.stdoutIsTerminal else { return }
        throw ToolError.usage("standard output is a terminal: \(what) would be shown on the screen",
                              hints: ["redirect it to a file (keep it on a tmpfs; vfs-shred it after) or a pipe: \(example)",
                                      "or give --force to show it anyway"])
    }
}
