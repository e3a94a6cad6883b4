import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore

extension Keychain {
    struct SetSecret: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(commandName: "set",
            abstract: "Store a secret for SERVICE and ACCOUNT.",
            discussion: KeychainHelp.setSecret, aliases: ["insert"])

        @Argument(help: "The service (a host name, an app), or SERVICE/ACCOUNT as one name, as pass names entries.") var service: String
        @Argument(help: ArgumentHelp("The account (a user name).", valueName: "account")) var givenAccount: String?
        var name: EntryName { EntryName(service: service, account: givenAccount) }

        @Flag(name: .long, help: "Replace the secret if the entry exists.")
        var update = false

        @Option(name: .long, help: ArgumentHelp("A free-text label, shown by list.", valueName: "text"))
        var label: String?

        @Flag(name: .long, help: "Store stdin byte for byte (keep a trailing newline).")
        var raw = false

        @OptionGroup var passcodeOptions: PasscodeOptions

        func check() throws {
            let name = try self.name.checked()
            try KeychainNames.check(name.service, what: "service")
            try KeychainNames.check(name.account, what: "account")
            if let label { try KeychainNames.check(label, what: "label") }
        }

        func run() throws {
            let secret = try readSecret()
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            try session.setSecret(secret, service: name.service, account: name.account, label: label, replacing: update, now: Keychain.now())
        }

        func readSecret() throws -> SecretBytes {
            // On a terminal: asked twice, and again if the two differ (three tries, as sudo).
            var tries = 0
            while Terminal.stdinIsTerminal {
                tries += 1
                guard let first = try Terminal.readSecret(prompt: "Secret for \(name.service) \(name.account): "),
                      let second = try Terminal.readSecret(prompt: "Repeat the secret: ") else {
                    throw ToolError.usage("no terminal to ask for the secret")
                }
                guard first.isEqual(to: second) else {
                    guard tries < SecretSource.tries else { throw ToolError.usage("the secrets did not match \(tries) times") }
                    Diagnostics.info("they did not match; try again")
                    continue
                }
                guard first.count > 0 else { throw ToolError.usage("empty secret") }
                return first
            }
            var bytes = try FileDescriptorSource.standardInput().readAll()
            defer { bytes.wipe() }
            guard bytes.count <= PipedSecret.maxCount else {
                throw ToolError.usage("the secret on standard input is larger than 16 MiB", hints: ["keep large files encrypted with vfs-encrypt -K NAME instead"])
            }
            let secret = PipedSecret.trimmed(bytes, raw: raw)
            guard !secret.isEmpty else {
                throw ToolError.usage("empty secret on standard input", hints: ["pipe the secret in: printf %s \"$SECRET\" | vfs-keychain set \(name.service) \(name.account)"])
            }
            return SecretBytes(copying: secret)
        }
    }

    struct GetSecret: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get",
            abstract: "Print the secret of SERVICE and ACCOUNT, and nothing else.",
            discussion: KeychainHelp.getSecret, aliases: ["show"])

        @Argument(help: "The service, or SERVICE/ACCOUNT as one name.") var service: String
        @Argument(help: "The account.") var account: String?
        @Flag(name: [.customShort("c"), .customLong("clip")], help: "Copy it to the clipboard instead of printing it (cleared after VFS_CLIP_TIME, 45s).")
        var clip = false
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            let (service, account) = try EntryName(service: self.service, account: self.account).checked().pair
            let clipboard = clip ? try ClipboardCopy.prepare() : nil
            let keychain = try KeychainSession.unlock(passcode: passcodeOptions.source)
            guard let secret = try keychain.sealed.secret(masterKey: keychain.masterKey, kind: .secret, service: service, account: account) else {
                throw ToolError("no secret for \"\(service)\" \"\(account)\"", exit: .noInput)
            }
            if let clipboard {
                try clipboard.copy(secret, what: "the secret of \"\(service)\" \"\(account)\"")
            } else {
                try ClipboardCopy.print(secret)
            }
        }
    }

    struct DeleteSecret: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Remove the secret of SERVICE and ACCOUNT (exit 66 if there is none).",
                                                        aliases: ["rm"])

        @Argument(help: "The service, or SERVICE/ACCOUNT as one name.") var service: String
        @Argument(help: "The account.") var account: String?
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            let (service, account) = try EntryName(service: self.service, account: self.account).checked().pair
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            guard try session.deleteSecret(service: service, account: account) else { throw ToolError("no secret for \"\(service)\" \"\(account)\"", exit: .noInput) }
        }
    }

    struct ListedEntry: Encodable {
        let service: String
        let account: String
        let label: String
        let created: Date
        let modified: Date
    }

    struct ListSecrets: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list",
            abstract: "List the entries: service, account, label and dates, never secrets.",
            discussion: KeychainHelp.listSecrets, aliases: ["ls"])

        @Argument(help: "Only this service.") var service: String?
        @Flag(name: .long, help: "Write JSON.") var json = false
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            let entries = session.entries.filter { $0.kind == .secret && (service == nil || $0.service == service) }
                .sorted { ($0.service, $0.account) < ($1.service, $1.account) }
            try Self.write(entries, json: json)
        }

        /// The entries as list (and find) writes them.
        static func write(_ entries: [KeychainEntry], json: Bool) throws {
            if json {
                try JSONOutput.print(entries.map { ListedEntry(service: $0.service, account: $0.account, label: $0.label,
                                                               created: Keychain.date($0.created), modified: Keychain.date($0.modified)) })
                return
            }
            // Control characters as escapes: a keychain written elsewhere may hold any label.
            let text = entries.map {
                [$0.service, $0.account, DateText.iso8601(Keychain.date($0.modified)), $0.label].map(DisplayText.printable).joined(separator: "\t") + "\n"
            }.joined()
            try StandardOutput.write(Array(text.utf8))
        }
    }

    struct ImportSecrets: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "import",
            abstract: "Add many secrets at once from a JSON array (to move a store over).",
            discussion: KeychainHelp.importSecrets)

        @Argument(help: ArgumentHelp("The JSON file ('-' or none for stdin).", valueName: "file"), completion: .file()) var file: String?
        @Flag(name: .long, help: "Replace the secrets of entries that exist.") var update = false
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            var data = try ToolIO.openInput(file).readAll()
            defer { data.wipe() }
            let imported: [UnlockedKeychain.ImportedSecret]
            do { imported = try JSONDecoder().decode([UnlockedKeychain.ImportedSecret].self, from: Data(data)) } catch {
                throw ToolError("\(file.map { "\"\($0)\"" } ?? "standard input") is not a JSON array of {service, account, secret, label}", exit: .dataError)
            }
            for item in imported {
                try KeychainNames.check(item.service, what: "service")
                try KeychainNames.check(item.account, what: "account")
                if let label = item.label { try KeychainNames.check(label, what: "label", allowEmpty: true) }
                guard !item.secret.isEmpty else { throw ToolError.usage("empty secret for \"\(item.service)\" \"\(item.account)\"") }
                guard item.secret.utf8.count <= PipedSecret.maxCount else {
                    throw ToolError.usage("the secret for \"\(item.service)\" \"\(item.account)\" is larger than \(PipedSecret.maxCount >> 20) MiB")
                }
            }
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            let count = try session.importSecrets(imported, replacing: update, now: Keychain.now())
            Diagnostics.info("imported \(count) entr\(count == 1 ? "y" : "ies")")
        }
    }
}

/// An entry's name as given: SERVICE ACCOUNT, or one SERVICE/ACCOUNT path as pass names
/// its entries (`github.com/deploy-bot`: split at the first '/').
struct EntryName {
    let service: String
    let account: String
    private let complete: Bool

    init(service: String, account: String?) {
        if let account {
            self.service = service
            self.account = account
            complete = true
        } else if let slash = service.firstIndex(of: "/") {
            self.service = String(service[..<slash])
            self.account = String(service[service.index(after: slash)...])
            complete = true
        } else {
            self.service = service
            self.account = ""
            complete = false
        }
    }

    func checked() throws -> EntryName {
        guard complete else {
            throw ToolError.usage("missing ACCOUNT", hints: ["name the entry as SERVICE ACCOUNT, or as one name SERVICE/ACCOUNT (github.com/deploy-bot)"])
        }
        return self
    }

    var pair: (String, String) { (service, account) }
}
