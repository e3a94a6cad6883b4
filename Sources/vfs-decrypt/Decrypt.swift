import ArgumentParser
import VFSCommandLine
import VFSCore

@main
struct Decrypt: VFSCommand, CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-decrypt",
        abstract: "Decrypt an age v1 file (binary or armored) with identities or a passphrase.",
        discussion: """
        Reads INPUT (or stdin) and writes the plaintext to -o OUT (or stdout). Armor is \
        detected by itself. Each 64 KiB chunk is released only after it authenticates; \
        with -o, OUT appears only if the whole file decrypted, so a failed run leaves \
        no output file.

        -K NAME adds the identity NAME kept by vfs-keychain (-K all: every one), \
        unlocking the keychain through its agent, else with the passcode from \
        --passcode-file, --passcode-fd, VFS_PASSCODE or the terminal.

        -i also reads plugin identity stubs (AGE-PLUGIN-NAME-1…, as \
        age-plugin-yubikey --identity prints them), and -j NAME names a plugin's \
        identity without data: age-plugin-NAME from PATH is run as age runs it \
        (identity-v1), given the stub and every stanza of the header (never the \
        payload), and answers with the file key. Its questions (a PIN: without echo) \
        are asked on the terminal; without one the command fails at once. A plugin \
        name is letters, digits and +-._ only. A plugin has VFS_PLUGIN_TIMEOUT \
        seconds in all (120), the time taken to answer it not counted.

        A passphrase-encrypted file asks for its passphrase from --passphrase-file, \
        --passphrase-fd, VFS_PASSPHRASE (least safe) or the terminal. \
        --max-work-factor bounds the scrypt cost an attacker-supplied file can make \
        you pay: 2^N iterations and 2^N KiB of memory (22, the default as in age, \
        means about 4 GiB and tens of seconds).

        \(ToolIO.outputLinkNote)

        \(NoBackupOption.note)

        Examples:
          vfs-decrypt -i key.txt -o doc.pdf doc.pdf.age
          vfs-decrypt -i key.txt < docs.tar.age | tar -x
          vfs-decrypt -K backups -o db.sqlite db.sqlite.age
          vfs-decrypt --passphrase-fd 3 -o secrets.txt secrets.age 3< pass.txt
          vfs-decrypt -j yubikey -o notes.txt notes.age

        Exit status: 0 success; 64 usage (also: a bad plugin name, or a plugin's \
        question and no terminal); 65 the file is not valid age, was modified, or \
        failed to authenticate (or the keychain is damaged), or a plugin broke the \
        protocol or ran out of time; 66 INPUT does not exist, or no keychain or no \
        such keychain identity; 69 a plugin is not on PATH; 73 OUT cannot be created; \
        74 read or write error; 77 no identity matched (or wrong passphrase, wrong \
        keychain passcode, the keychain is locked and no passcode was given, or a \
        plugin refused: a wrong PIN).
        """,
        version: vfsVersion)

    @OptionGroup var identityOptions: IdentityOptions

    @OptionGroup var keychainOptions: KeychainIdentityOptions

    @OptionGroup var passphraseDecryption: PassphraseDecryptionOptions

    @Option(name: [.customShort("o", allowingJoined: true), .long], help: ArgumentHelp("Write the plaintext to OUT.", valueName: "out"), completion: .file())
    var output: String?

    @OptionGroup var backupOption: NoBackupOption

    @OptionGroup var progressOptions: ProgressOptions

    @Flag(name: [.customShort("d"), .customLong("decrypt")], help: ArgumentHelp("Accepted and ignored, for age's -d habit.", visibility: .hidden))
    var decryptFlag = false

    @Flag(name: [.customShort("e"), .customLong("encrypt")], help: ArgumentHelp("Refused: vfs-encrypt encrypts.", visibility: .hidden))
    var encryptFlag = false

    @Argument(help: ArgumentHelp("The file to decrypt ('-' or none for stdin).", valueName: "input"), completion: .file())
    var input: String?

    func check() throws {
        if encryptFlag { throw ToolError.usage("vfs-decrypt only decrypts", hints: ["age -e's counterpart is vfs-encrypt: vfs-encrypt -r RECIPIENT FILE"]) }
        try keychainOptions.check()
        try passphraseDecryption.check()
        let passphraseOptions = passphraseDecryption.passphraseOptions
        try StandardInputUse.check([
            ("the input", input == nil || input == "-"), ("-i -", identityOptions.identityFiles.contains("-")),
            (passphraseOptions.standardInputName, passphraseOptions.readsStandardInput),
        ])
        if backupOption.noBackup && (output == nil || output == "-") { throw ToolError.usage("--no-backup goes with -o OUT (a file)") }
    }

    func run() throws {
        let source = try ToolIO.openInput(input)
        // A regular file is mapped, not read; if it shrinks meanwhile, SIGBUS removes
        // the pending output and exits 74 (SignalCleanup).
        source.allowsMapping = true
        let decryptor = try AgeDecryptor(source: source)
        let fileKey = try passphraseDecryption.fileKey(decryptor) {
            // The passphrase options open a passphrase-protected identity file here.
            let identities = try identityOptions.resolve(passphrase: passphraseDecryption.passphraseOptions.source)
                + keychainOptions.identities()
            if identities.isEmpty {
                throw ToolError("no identity given, and the file is encrypted to recipients, not a passphrase", exit: .permissionDenied,
                                hints: ["use -i FILE with the identity the file was encrypted to, or -K NAME for one in the keychain"])
            }
            return identities
        }
        let out = try ToolIO.openOutput(output, binary: false)
        backupOption.mark(out)
        let progress = ProgressBar.make(label: "decrypting", total: source.regularFileSize, quiet: progressOptions.quiet)
        defer { progress?.finish() }
        try decryptor.decrypt(fileKey: fileKey, to: out.sink, progress: progress?.callback)
        try out.commit()
    }
}
