import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore

extension Keychain {
    struct IdentityGroup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "identity",
            abstract: "Keep age identities in the keychain, for vfs-decrypt -K and vfs-encrypt -K.",
            discussion: KeychainHelp.identity,
            subcommands: [NewIdentity.self, ImportIdentity.self, ExportIdentity.self, PrintRecipient.self, ListIdentities.self, DeleteIdentity.self])
    }
}

extension Keychain.IdentityGroup {
    /// Files the identity as `name` (exit 73 if the name is taken) and prints its recipient.
    static func add(_ identity: AgeIdentity, name: String, session: UnlockedKeychain) throws {
        try session.addIdentity(identity, named: name, now: Keychain.now())
        try StandardOutput.write(Array((identity.recipient.string + "\n").utf8))
    }

    struct NewIdentity: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(commandName: "new", abstract: "Make a new identity called NAME and print its recipient.")
        @Argument(help: "The identity's name.") var name: String
        @Flag(name: .customLong("pq"), help: "Make a post-quantum (ML-KEM-768 + X25519) identity, recipient age1pq1….")
        var postQuantum = false
        @OptionGroup var passcodeOptions: PasscodeOptions

        func check() throws { try KeychainNames.checkIdentity(name) }

        func run() throws {
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            let identity: AgeIdentity = try postQuantum ? .hybrid(HybridIdentity.generate()) : .x25519(X25519Identity.generate())
            try Keychain.IdentityGroup.add(identity, name: name, session: session)
        }
    }

    struct ImportIdentity: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(commandName: "import",
            abstract: "Store the identity in FILE (an age identity file, '-' for stdin) as NAME; print its recipient.",
            discussion: "The file must hold exactly one identity. It is left as it is: shred it yourself once imported (vfs-shred).")
        @Argument(help: "The identity's name.") var name: String
        @Argument(help: "The identity file ('-' for stdin).") var file: String
        @OptionGroup var passcodeOptions: PasscodeOptions

        func check() throws { try KeychainNames.checkIdentity(name) }

        func run() throws {
            let identities = try IdentityOptions.load([file])
            guard identities.count == 1 else {
                throw ToolError("\"\(file)\" holds \(identities.count) identities; import one at a time", exit: .dataError)
            }
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            try Keychain.IdentityGroup.add(identities[0], name: name, session: session)
        }
    }

    struct ExportIdentity: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "export",
            abstract: "Print the identity NAME as an age identity file, for age -d -i and vfs-decrypt -i.",
            discussion: KeychainHelp.exportIdentity)
        @Argument(help: "The identity's name.", completion: .vfsKeychainIdentities) var name: String
        @Flag(name: [.customShort("f"), .customLong("force")], help: "Write the secret key to a terminal too.") var force = false
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            try TerminalGuard.refuse(unless: force, what: "the secret key", example: "vfs-keychain identity export \(name) > key.txt")
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            guard name != UnlockedKeychain.allIdentities else { throw ToolError.usage("export one identity at a time, by its name") }
            let identity = try session.identityEntries(named: [name])[0].ageIdentity()
            var text = Array("# public key: \(identity.recipient.string)\n\(identity.string)\n".utf8)
            defer { text.wipe() }
            try StandardOutput.write(text)
        }
    }

    struct PrintRecipient: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "recipient",
            abstract: "Print the recipient (age1…) of the identity NAME; no passcode needed.")
        @Argument(help: "The identity's name.", completion: .vfsKeychainIdentities) var name: String
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            let recipients = try KeychainSession.recipients(named: [name], passcode: passcodeOptions.source)
            try StandardOutput.write(Array(recipients.map { $0.string + "\n" }.joined().utf8))
        }
    }

    struct Listed: Encodable {
        let name: String
        let recipient: String
        let created: Date
    }

    struct ListIdentities: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list",
            abstract: "List the identities: name and recipient, one a line, tab-separated (--json for JSON).")
        @Flag(name: .long, help: "Write JSON.") var json = false
        @Flag(name: .long, help: "Print only the names, one a line, never asking for the passcode: through the agent, or a passcode from --passcode-file, --passcode-fd or VFS_PASSCODE; else fail at once (for completion).") var names = false
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            let session = try KeychainSession.open(passcode: passcodeOptions.source, prompt: !names)
            if names {
                let sorted = session.identities.map(\.service).sorted()
                try StandardOutput.write(Array(sorted.map { DisplayText.printable($0) + "\n" }.joined().utf8))
                return
            }
            let listed = try session.identities.sorted { $0.service < $1.service }.map {
                Listed(name: $0.service, recipient: try $0.ageIdentity().recipient.string, created: Keychain.date($0.created))
            }
            if json { try JSONOutput.print(listed); return }
            try StandardOutput.write(Array(listed.map { "\(DisplayText.printable($0.name))\t\($0.recipient)\n" }.joined().utf8))
        }
    }

    struct DeleteIdentity: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Remove the identity NAME (exit 66 if there is none).")
        @Argument(help: "The identity's name.", completion: .vfsKeychainIdentities) var name: String
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            try session.removeIdentity(named: name)
        }
    }
}
