import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import VFSCommandLine
import VFSCore

extension Keychain {
    struct EscrowGroup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "escrow",
            abstract: "Split a secret into shares for several officers, any K of whom rebuild it (Shamir, break-glass).",
            discussion: KeychainHelp.escrow,
            subcommands: [SplitEscrow.self, JoinEscrow.self])
    }
}

extension Keychain.EscrowGroup {
    struct SplitEscrow: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(commandName: "split",
            abstract: "Split FILE (or stdin) into N shares, each age-encrypted to one --to, any K of which rebuild it.",
            discussion: KeychainHelp.escrowSplit)

        @Option(name: .customLong("shares"), help: ArgumentHelp("How many shares to write (2-255).", valueName: "n")) var count: Int
        @Option(name: .customLong("threshold"), help: ArgumentHelp("How many shares rebuild the secret (2-N).", valueName: "k")) var threshold: Int
        @Option(name: .customLong("to"), help: ArgumentHelp("The recipient of the next share (age1…, age1pq1…, an ssh-ed25519/ssh-rsa public key): one --to per share, in order.", valueName: "recipient"))
        var recipients: [String] = []
        @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("Write the shares as PREFIX-1.age … PREFIX-N.age.", valueName: "prefix"), completion: .file())
        var prefix = "escrow-share"
        @OptionGroup var armor: ArmorOption
        @Argument(help: ArgumentHelp("The secret (at most 4096 bytes; '-' or none for stdin, not a terminal).", valueName: "file"), completion: .file()) var file: String?

        func check() throws {
            guard recipients.count == count else {
                throw ToolError.usage("\(recipients.count) --to given for \(count) shares", hints: ["give one --to per share, in the shares' order"])
            }
        }

        func run() throws {
            let resolved = try recipients.map { text in
                do { return try AgeRecipient(text) } catch let error as AgeError {
                    throw ToolError(error.description, exit: .usage,
                                    hints: ["--to takes a recipient: age1…, age1pq1…, or an ssh-ed25519/ssh-rsa public key as one argument"])
                }
            }
            guard Set(resolved).count == resolved.count else {
                throw ToolError.usage("the same recipient is given for two shares", hints: ["one officer holding two shares lowers the threshold for them: give each share its own officer"])
            }
            let paths = (1...count).map { "\(prefix)-\($0).age" }
            if let taken = paths.first(where: { access($0, F_OK) == 0 }) {
                throw ToolError("\"\(taken)\" already exists", exit: .cannotCreate, hints: ["remove it first, or choose another -o PREFIX"])
            }
            if file == nil || file == "-", Terminal.stdinIsTerminal {
                throw ToolError.usage("no secret: give FILE, or pipe the secret in", hints: ["vfs-keychain get SERVICE ACCOUNT | vfs-keychain escrow split …"])
            }
            var secret = try ToolIO.openInput(file).readAll()
            defer { secret.wipe() }
            let shares = try EscrowShare.split(secret, count: count, threshold: threshold)
            let outputs = try zip(shares, resolved).enumerated().map { index, pair in
                let output = try ToolIO.openOutput(paths[index], binary: true, mode: 0o600, exclusive: true)
                try output.sink.write(pair.0.sealed(to: pair.1, armor: armor.armor))
                return output
            }
            for output in outputs { try output.commit(exclusive: true) }
            Diagnostics.info("wrote \(paths.joined(separator: ", ")): any \(threshold) of them rebuild the secret")
        }
    }

    struct JoinEscrow: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "join",
            abstract: "Rebuild the secret from K shares (age files opened with -i, or shares already decrypted).",
            discussion: KeychainHelp.escrowJoin)

        @OptionGroup var identities: IdentityOptions
        @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("Write the secret to PATH (mode 0600) instead of stdout.", valueName: "path"), completion: .file())
        var output: String?
        @Argument(help: ArgumentHelp("The shares' files.", valueName: "share"), completion: .file()) var files: [String]

        func run() throws {
            let identities = try self.identities.resolve()
            let shares = try files.map { path in
                let bytes = try ToolIO.openInput(path).readAll()
                let source = path == "-" ? "standard input" : "\"\(path)\""
                if !EscrowShare.isShareText(bytes) && identities.isEmpty {
                    throw ToolError.usage("\(source) is encrypted and no identity was given", hints: ["give the officer's identity with -i FILE, or the share decrypted with vfs-decrypt"])
                }
                return try EscrowShare.read(bytes, identities: identities, source: source)
            }
            var secret = try EscrowShare.join(shares)
            defer { secret.wipe() }
            let isText = String(validating: secret, as: UTF8.self) != nil
            let out = try ToolIO.openOutput(output, binary: !isText, terminalHints: ["the secret is binary"], mode: 0o600)
            try out.sink.write(secret)
            try out.commit()
        }
    }
}
