import ArgumentParser
import VFSCommandLine
import VFSCore

@main
struct Encrypt: VFSCommand, CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-encrypt",
        abstract: "Encrypt a file to age recipients or with a passphrase (age v1, read by age -d).",
        discussion: """
        Reads INPUT (or stdin) and writes an age v1 file to -o OUT (or stdout). The \
        payload is sealed in 64 KiB chunks on every core with bounded memory. With -o, \
        OUT appears only if encryption succeeded. Binary output is not written to a \
        terminal unless -o - asks for it; -a writes PEM armor instead.

        -K NAME encrypts to the recipient of the identity NAME kept by vfs-keychain \
        (-K all: every one). Recipients are public and readable in the keychain \
        without the passcode, so this works from cron at any time; a running agent's \
        key checks the keychain header first. (A keychain written before format 2, \
        or not a private file of yours, is unlocked as for vfs-decrypt.)

        A passphrase (-p) is read from --passphrase-file, --passphrase-fd, the \
        VFS_PASSPHRASE environment variable (least safe: other processes of the user \
        may read it), or a no-echo prompt on the terminal; without any of these and \
        without a terminal the command fails at once.

        \(ToolIO.outputLinkNote)

        Examples:
          vfs-encrypt -r "$(vfs-keygen -y key.txt)" -o doc.age doc.pdf
          tar -c docs | vfs-encrypt -R team.txt -a > docs.tar.age
          vfs-encrypt -K backups -o db.sqlite.age db.sqlite
          vfs-encrypt -p --passphrase-file pass.txt -o secrets.age secrets.txt

        Exit status: 0 success; 64 usage (bad recipient, binary output to a terminal); \
        65 a recipients file is not valid (or the keychain is damaged); 66 INPUT does \
        not exist, or no keychain or no such keychain identity; 73 OUT cannot be \
        created; 74 read or write error; 77 wrong keychain passcode, or the keychain is \
        locked and no passcode was given.
        """,
        version: vfsVersion)

    @OptionGroup var recipientOptions: RecipientOptions

    @Option(name: [.customShort("i"), .customLong("identity")],
            help: ArgumentHelp("Encrypt to the recipients of the identities in PATH. Repeatable.", valueName: "path"), completion: .file())
    var identityFiles: [String] = []

    @OptionGroup var keychainOptions: KeychainIdentityOptions

    @Flag(name: .shortAndLong, help: "Encrypt with a passphrase (scrypt) instead of recipients.")
    var passphrase = false

    @OptionGroup var passphraseOptions: PassphraseOptions

    @Option(name: .customLong("work-factor"), help: ArgumentHelp("scrypt work factor log2(N) for -p (as age; 1-30).", valueName: "n"))
    var workFactor: Int = ScryptRecipient.defaultWorkFactor

    @Flag(name: .shortAndLong, help: "Write PEM-armored (ASCII) output.")
    var armor = false

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to OUT ('-' forces stdout, even a terminal).", valueName: "out"), completion: .file())
    var output: String?

    @OptionGroup var progressOptions: ProgressOptions

    @Argument(help: ArgumentHelp("The file to encrypt ('-' or none for stdin).", valueName: "input"), completion: .file())
    var input: String?

    func check() throws {
        try keychainOptions.check()
        let hasRecipients = !recipientOptions.isEmpty || !identityFiles.isEmpty || !keychainOptions.isEmpty
        if passphrase && hasRecipients {
            throw ToolError.usage("-p can't be combined with -r, -R, -i or -K", hints: ["a passphrase-encrypted file has exactly one stanza, as age requires"])
        }
        if !passphrase && !hasRecipients {
            throw ToolError.usage("missing recipients", hints: ["name at least one with -r age1…, -R FILE, -i FILE or -K NAME, or use -p for a passphrase"])
        }
        if !passphrase && (passphraseOptions.passphraseFile != nil || passphraseOptions.passphraseFD != nil) {
            throw ToolError.usage("--passphrase-file and --passphrase-fd go with -p")
        }
        guard ScryptRecipient.workFactorRange.contains(workFactor) else { throw ToolError.usage("--work-factor must be from \(ScryptRecipient.workFactorRange.lowerBound) to \(ScryptRecipient.workFactorRange.upperBound)") }
    }

    func run() throws {
        var recipients: [Recipient] = try recipientOptions.resolve()
        recipients += try IdentityOptions.load(identityFiles).map(\.recipient)
        recipients += try keychainOptions.recipients()
        let source = try ToolIO.openInput(input)
        let out = try ToolIO.openOutput(output, binary: !armor, terminalHints: ["did you mean -a/--armor?"])
        if passphrase {
            let secret = try passphraseOptions.source.read(prompt: "Enter passphrase: ", confirm: true)
            recipients = [ScryptRecipient(passphrase: secret, workFactor: workFactor)]
        }
        let progress = ProgressBar.make(label: "encrypting", total: source.regularFileSize, quiet: progressOptions.quiet)
        defer { progress?.finish() }
        try AgeEncryptor.encrypt(to: recipients, from: source, to: out.sink, armor: armor,
                                 progress: progress?.callback)
        try out.commit()
    }
}
