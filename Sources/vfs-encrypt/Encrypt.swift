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

        A plugin recipient (age1NAME1…, such as age1yubikey1…), a plugin identity \
        stub in an -i file (AGE-PLUGIN-NAME-1…) or -j NAME runs age-plugin-NAME from \
        PATH, as age does (age's plugin protocol, recipient-v1): the plugin is given \
        the recipient or stub and the file key, and returns its stanzas. Plugins and \
        native recipients may share a file as their labels allow (a post-quantum \
        plugin only with age1pq1…). A plugin name is letters, digits and +-._ only. \
        A plugin has VFS_PLUGIN_TIMEOUT seconds in all (120), the time taken to \
        answer its questions on the terminal not counted.

        A passphrase (-p) is read from --passphrase-file, --passphrase-fd, the \
        VFS_PASSPHRASE environment variable (least safe: other processes of the user \
        may read it), or a no-echo prompt on the terminal; without any of these and \
        without a terminal the command fails at once.

        \(ToolIO.outputLinkNote)

        Examples:
          vfs-encrypt -o doc.age doc.pdf \\
            -r age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p
          tar -c docs | vfs-encrypt -R team.txt -a > docs.tar.age
          vfs-encrypt -K backups -o db.sqlite.age db.sqlite
          vfs-encrypt -p --passphrase-file pass.txt -o secrets.age secrets.txt
          vfs-encrypt -r age1yubikey1q… -r age1… -o notes.age notes.txt

        Exit status: 0 success; 64 usage (bad recipient or plugin name, recipients \
        that can't share a file, binary output to a terminal, a plugin's question and \
        no terminal); 65 a recipients file is not valid (or the keychain is damaged), \
        or a plugin broke the protocol or ran out of time; 66 INPUT does not exist, or \
        no keychain or no such keychain identity; 69 a plugin is not on PATH; 73 OUT \
        cannot be created; 74 read or write error; 77 wrong keychain passcode, the \
        keychain is locked and no passcode was given, or a plugin refused.
        """,
        version: vfsVersion)

    @OptionGroup var recipientOptions: RecipientOptions

    @OptionGroup var identityRecipients: IdentityRecipientOptions

    @OptionGroup var keychainOptions: KeychainIdentityOptions

    @OptionGroup var passphraseEncryption: PassphraseEncryptionOptions

    @OptionGroup var armorOption: ArmorOption

    @Option(name: [.customShort("o", allowingJoined: true), .long], help: ArgumentHelp("Write to OUT ('-' forces stdout, even a terminal).", valueName: "out"), completion: .file())
    var output: String?

    @OptionGroup var progressOptions: ProgressOptions

    @Flag(name: [.customShort("e"), .customLong("encrypt")], help: ArgumentHelp("Accepted and ignored, for age's -e habit.", visibility: .hidden))
    var encryptFlag = false

    @Flag(name: [.customShort("d"), .customLong("decrypt")], help: ArgumentHelp("Refused: vfs-decrypt decrypts.", visibility: .hidden))
    var decryptFlag = false

    @Argument(help: ArgumentHelp("The file to encrypt ('-' or none for stdin).", valueName: "input"), completion: .file())
    var input: String?

    func check() throws {
        if decryptFlag { throw ToolError.usage("vfs-encrypt only encrypts", hints: ["age -d's counterpart is vfs-decrypt: vfs-decrypt -i KEY FILE"]) }
        try keychainOptions.check()
        let hasRecipients = !recipientOptions.isEmpty || !identityRecipients.isEmpty || !keychainOptions.isEmpty
        try passphraseEncryption.check(hasRecipients: hasRecipients, recipientFlags: "-r, -R, -i or -K")
        if !passphraseEncryption.passphrase && !hasRecipients {
            throw ToolError.usage("missing recipients", hints: ["name at least one with -r age1…, -R FILE, -i FILE or -K NAME, or use -p for a passphrase"])
        }
        let passphraseOptions = passphraseEncryption.passphraseOptions
        try StandardInputUse.check([
            ("the input", input == nil || input == "-"), ("-R -", recipientOptions.recipientsFiles.contains("-")),
            ("-i -", identityRecipients.identityFiles.contains("-")), (passphraseOptions.standardInputName, passphraseOptions.readsStandardInput),
        ])
    }

    func run() throws {
        var recipients: [Recipient] = try recipientOptions.resolve()
        recipients += try identityRecipients.recipients()
        recipients += try keychainOptions.recipients()
        let source = try ToolIO.openInput(input)
        // A regular file is mapped, not read; if it shrinks meanwhile, SIGBUS removes
        // the pending output and exits 74 (SignalCleanup).
        source.allowsMapping = true
        let out = try ToolIO.openOutput(output, binary: !armorOption.armor, terminalHints: ["did you mean -a/--armor?"])
        if passphraseEncryption.passphrase { recipients = [try passphraseEncryption.recipient()] }
        let progress = ProgressBar.make(label: "encrypting", total: source.regularFileSize, quiet: progressOptions.quiet)
        defer { progress?.finish() }
        try AgeEncryptor.encrypt(to: recipients, from: source, to: out.sink, armor: armorOption.armor,
                                 progress: progress?.callback)
        try out.commit()
    }
}
