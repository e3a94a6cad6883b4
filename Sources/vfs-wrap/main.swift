import ArgumentParser
import VFSCommandLine
import VFSCore
#if canImport(Glibc)
import Glibc
#endif

@main
struct Wrap: VFSCommand, CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-wrap",
        abstract: "Bundle files and folders with a manifest and seal them for a group (age + pax + zstd).",
        discussion: """
        Writes one age file (to -o OUT, or stdout) whose plaintext is a pax archive, \
        zstd-compressed unless --no-compress, that starts with a manifest \
        (.vfs-manifest.json): format version, group id, access id, sender when known, \
        creation time, and each entry's path, type, size, mode, mtime, SHA-256 and link \
        target. Folders are stored recursively with relative paths, modes and mtimes; \
        symbolic links are stored as links; sockets, FIFOs and devices are skipped with a \
        warning. What vfs-unwrap would refuse is refused here, by its path (exit 65): \
        a file with the setuid or setgid bit, and a symbolic link that points outside \
        what is wrapped (an absolute target, or one that climbs out with '..', also \
        through other links). A folder's setgid bit is not kept (vfs-unwrap never sets \
        it). Each PATH is stored under its last component (docs/ as docs). Anyone \
        holding a recipient's identity can open a bundle with standard tools: \
        age -d -i KEY FILE | bsdtar -xf -. vfs-unwrap also checks the policy and every \
        digest.

        -K NAME encrypts to the recipient of the identity NAME kept by vfs-keychain (-K \
        all: every one) and records the first as the bundle's sender (a claim that \
        vfs-unwrap shows as such: nothing proves it); the keychain is \
        unlocked through its agent, else with the passcode from --passcode-file, \
        --passcode-fd, VFS_PASSCODE (least safe) or the terminal.

        -g GROUP encrypts to the recipients listed in $VFS_HOME/groups/GROUP (an age \
        recipients file, one age1… per line) and records GROUP as the bundle's group id, \
        which vfs-unwrap checks against the policy when it opens the bundle for an app.

        The manifest comes first, so every file is hashed before it is archived; while it \
        is archived its size, mtime and ctime are checked again, and a file that changed in \
        between fails the run (exit 75) rather than disagree with its digest. Standard \
        input (PATH '-', or no PATH but a name) is stored as one file named by --name NAME. It \
        must be hashed before the archive is written, so it is first spooled to an unlinked \
        temporary file in $TMPDIR (else /tmp); the spool is age-encrypted to a one-time key \
        that exists only in this process's memory, so the plaintext never reaches the disk \
        and nothing remains if the run is killed. Memory stays bounded whatever the size: \
        the archive streams into the encryptor through a small pipe. With -o, OUT appears \
        only if the whole bundle was written. A progress bar is shown on a terminal.

        \(ToolIO.outputLinkNote)

        Examples:
          vfs-wrap -g finance -K me -o q3.vfs report.pdf figures/
          vfs-wrap -R team.txt --access-id viewer -o notes.vfs notes.txt
          pg_dump shop | vfs-wrap -R backup-keys.txt --name shop.sql - > shop.sql.vfs

        Exit status: 0 success; 64 usage (no recipients, no input, bad recipient or \
        group name, binary output to a terminal); 65 a recipients or group file is not \
        valid (or the keychain is damaged), or an input vfs-unwrap would refuse (a \
        setuid file, a link out of the tree); 66 an input, the group's file, the keychain \
        or the keychain identity does not exist; 73 OUT cannot be created; 74 read or \
        write error; 75 a file changed while it was being wrapped; 77 wrong keychain \
        passcode.
        """,
        version: vfsVersion)

    @OptionGroup var recipientOptions: RecipientOptions

    @OptionGroup var keychainOptions: KeychainIdentityOptions

    @Option(name: [.customShort("g", allowingJoined: true), .customLong("group")],
            help: ArgumentHelp("Encrypt to the recipients of GROUP ($VFS_HOME/groups/GROUP) and record it as the group id.", valueName: "group"))
    var groups: [String] = []

    @Option(name: .customLong("access-id"), help: ArgumentHelp("Record ID as the bundle's access control id.", valueName: "id"))
    var accessID: String?

    @Option(name: .customLong("name"), help: ArgumentHelp("Store standard input under NAME.", valueName: "name"))
    var name: String?

    @Flag(name: .customLong("no-compress"), help: "Store the archive without zstd compression.")
    var noCompress = false

    @Option(name: [.customShort("o", allowingJoined: true), .long], help: ArgumentHelp("Write the bundle to OUT ('-' forces stdout, even a terminal).", valueName: "out"), completion: .file())
    var output: String?

    @OptionGroup var progressOptions: ProgressOptions

    @Argument(help: ArgumentHelp("Files and folders to wrap ('-' for standard input, named by --name NAME).", valueName: "path"), completion: .file())
    var paths: [String] = []

    var readsStandardInput: Bool { paths.contains("-") || (paths.isEmpty && name != nil) }

    func check() throws {
        try keychainOptions.check()
        if recipientOptions.isEmpty && groups.isEmpty && keychainOptions.isEmpty {
            throw ToolError.usage("missing recipients", hints: ["name them with -g GROUP, -r age1…, -R FILE or -K NAME"])
        }
        if groups.count > 1 {
            throw ToolError.usage("a bundle belongs to one group; -g was given \(groups.count) times",
                                  hints: ["add the other recipients with -r or -R"])
        }
        if paths.isEmpty && name == nil {
            throw ToolError.usage("nothing to wrap", hints: ["name files or folders, or read standard input with --name NAME -"])
        }
        if paths.filter({ $0 == "-" }).count > 1 { throw ToolError.usage("standard input ('-') can be wrapped once") }
        if readsStandardInput && name == nil {
            throw ToolError.usage("standard input needs a name in the bundle", hints: ["give it with --name NAME"])
        }
        if !readsStandardInput && name != nil {
            throw ToolError.usage("--name names standard input, which is not being wrapped", hints: ["add '-' to the paths to wrap standard input"])
        }
        if readsStandardInput && recipientOptions.recipientsFiles.contains("-") {
            throw ToolError.usage("-R - and the input can't both be standard input")
        }
    }

    func run() throws {
        var recipients = try recipientOptions.resolve()
        if let group = groups.first { recipients += try GroupRecipients().load(group) }
        // The sender is known when it seals with its own keychain identity.
        let own = try keychainOptions.recipients()
        recipients += own
        var seen = Set<AgeRecipient>()
        recipients = recipients.filter { seen.insert($0).inserted }

        let plan = try BundlePlan(paths: paths.filter { $0 != "-" }, standardInputName: readsStandardInput ? name : nil,
                                  standardInput: ToolIO.openInput("-"),
                                  warning: { Diagnostics.warn($0) })
        let manifest = plan.manifest(group: groups.first, accessID: accessID, sender: own.first?.string)
        let out = try ToolIO.openOutput(output, binary: true)
        let progress = ProgressBar.make(label: "wrapping", total: plan.contentBytes, quiet: progressOptions.quiet)
        defer { progress?.finish() }
        try BundleWriter.seal(plan, manifest: manifest, compress: !noCompress, recipients: recipients, to: out.sink,
                              progress: progress?.callback)
        try out.commit()
    }
}
