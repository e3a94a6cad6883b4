import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore

@main
struct KeyGen: VFSCommand, CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-keygen",
        abstract: "Make an age identity (X25519 or post-quantum key pair), or print the recipients of identities.",
        discussion: """
        Writes a new identity file in the format age-keygen writes: a creation comment, \
        the public key as a comment, and the AGE-SECRET-KEY-1… line. The public key \
        (the recipient, age1…) is also printed to stderr unless stdout is a terminal. \
        An output file is created with mode 0600 and is never overwritten.

        With --pq, the identity is a hybrid post-quantum one (ML-KEM-768 + X25519, as \
        age 1.3's age-keygen -pq): AGE-SECRET-KEY-PQ-1… with an age1pq1… recipient of \
        about 1,960 characters. A file can't be encrypted to both post-quantum and \
        classic recipients.

        With -y, reads an identity file (or stdin) and prints the recipient of each \
        identity in it, one per line.

        Examples:
          vfs-keygen -o key.txt
          vfs-keygen --pq -o pq-key.txt
          vfs-keygen -y key.txt > recipients.txt

        \(ToolIO.outputLinkNote)

        Exit status: 0 success; 64 usage; 65 the identity file is not valid; \
        66 the input file does not exist; 73 the output file exists or cannot be created.
        """,
        version: vfsVersion)

    @Option(name: [.customShort("o", allowingJoined: true), .long], help: ArgumentHelp("Write the identity to FILE (created 0600, never overwritten).", valueName: "file"), completion: .file())
    var output: String?

    @Flag(name: .customShort("y"), help: "Print the recipients of the identities in INPUT (or stdin).")
    var convert = false

    @Flag(name: .customLong("pq"), help: "Make a hybrid post-quantum identity (ML-KEM-768 + X25519, age1pq1…).")
    var postQuantum = false

    @Argument(help: ArgumentHelp("With -y: the identity file to read ('-' or none for stdin).", valueName: "input"), completion: .file())
    var input: String?

    func check() throws {
        if input != nil && !convert {
            throw ToolError.usage("an input file is only read with -y", hints: ["did you mean vfs-keygen -y \(input!)?"])
        }
        if convert && postQuantum {
            throw ToolError.usage("--pq makes a new identity; -y reads the identities' own types")
        }
    }

    func run() throws {
        if convert {
            let identities = try IdentityOptions.load([input ?? "-"])
            if case .plugin(let plugin) = identities.first(where: { if case .plugin = $0 { true } else { false } }) {
                throw ToolError("\(plugin.encoding.prefix(24))… is a plugin identity: its recipient is known to \(AgePlugin.programName(plugin.name))", exit: .dataError,
                                hints: ["the plugin prints it when it makes the identity (age-plugin-yubikey --list, for instance)"])
            }
            let out = try ToolIO.openOutput(output, binary: false)
            try out.sink.write(Array(identities.map { $0.recipient.string + "\n" }.joined().utf8))
            try out.commit()
            return
        }
        let identity: AgeIdentity = postQuantum ? .hybrid(try HybridIdentity.generate()) : .x25519(try X25519Identity.generate())
        let created = DateText.iso8601(Date())
        let out = try ToolIO.openOutput(output, binary: false, mode: 0o600, exclusive: true)
        try out.sink.write(Array(KeyFile.identityFileText(identity, created: created).utf8))
        try out.commit(exclusive: true)
        if out.path != nil || !Terminal.stdoutIsTerminal {
            Diagnostics.writeStandardError("Public key: \(identity.recipient.string)\n")
        }
    }
}
