import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore

@main
struct KeyGen: VFSCommand, CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-keygen",
        abstract: "Make an age identity (X25519 key pair), or print the recipients of identities.",
        discussion: """
        Writes a new identity file in the format age-keygen writes: a creation comment, \
        the public key as a comment, and the AGE-SECRET-KEY-1… line. The public key \
        (the recipient, age1…) is also printed to stderr unless stdout is a terminal. \
        An output file is created with mode 0600 and is never overwritten.

        With -y, reads an identity file (or stdin) and prints the recipient of each \
        identity in it, one per line.

        Examples:
          vfs-keygen -o key.txt
          vfs-keygen -y key.txt > recipients.txt

        Exit status: 0 success; 64 usage; 65 the identity file is not valid; \
        66 the input file does not exist; 73 the output file exists or cannot be created.
        """,
        version: vfsVersion)

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the identity to FILE (created 0600, never overwritten).", valueName: "file"))
    var output: String?

    @Flag(name: .customShort("y"), help: "Print the recipients of the identities in INPUT (or stdin).")
    var convert = false

    @Argument(help: ArgumentHelp("With -y: the identity file to read ('-' or none for stdin).", valueName: "input"))
    var input: String?

    func check() throws {
        if input != nil && !convert {
            throw ToolError.usage("an input file is only read with -y", hints: ["did you mean vfs-keygen -y \(input!)?"])
        }
    }

    func run() throws {
        if convert {
            let identities = try IdentityOptions.load([input ?? "-"])
            let out = try ToolIO.openOutput(output, binary: false)
            try out.sink.write(Array(identities.map { $0.recipient.string + "\n" }.joined().utf8))
            try out.commit()
            return
        }
        let identity = try X25519Identity.generate()
        let created = DateText.iso8601(Date())
        let out = try ToolIO.openOutput(output, binary: false, mode: 0o600, exclusive: true)
        try out.sink.write(Array(KeyFile.identityFileText(identity, created: created).utf8))
        try out.commit(exclusive: true)
        if out.path != nil || !Terminal.stdoutIsTerminal {
            Diagnostics.writeStandardError("Public key: \(identity.recipient.string)\n")
        }
    }
}
