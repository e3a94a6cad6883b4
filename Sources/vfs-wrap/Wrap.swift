import ArgumentParser
import VFSCommandLine
import VFSBundle
import VFSCore
#if canImport(Glibc)
import Glibc
#endif

@main
struct Wrap: VFSCommand, CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-wrap",
        abstract: "Bundle files and folders with a manifest and seal them for a group (age + pax + zstd).",
        discussion: WrapHelp.overview,
        version: vfsVersion)

    @OptionGroup var recipientOptions: RecipientOptions

    @OptionGroup var identityRecipients: IdentityRecipientOptions

    @OptionGroup var keychainOptions: KeychainIdentityOptions

    @OptionGroup var passphraseEncryption: PassphraseEncryptionOptions

    @Option(name: [.customShort("g", allowingJoined: true), .customLong("group")],
            help: ArgumentHelp("Encrypt to the recipients of GROUP ($VFS_HOME/groups/GROUP) and record it as the group id.", valueName: "group"), completion: .vfsGroups)
    var groups: [String] = []

    @Option(name: .customLong("access-id"), help: ArgumentHelp("Record ID as the bundle's access control id.", valueName: "id"))
    var accessID: String?

    @Option(name: .customLong("name"), help: ArgumentHelp("Store standard input under NAME.", valueName: "name"))
    var name: String?

    @Flag(inversion: .prefixedNo,
          help: "Always compress the archive with zstd (--compress), or never (--no-compress); by default, when samples of the content show it shrinks by 3% or more.")
    var compress: Bool?

    @OptionGroup var inputOptions: InputOptions

    @OptionGroup var armorOption: ArmorOption

    @Option(name: [.customShort("o", allowingJoined: true), .long], help: ArgumentHelp("Write the bundle to OUT ('-' forces stdout, even a terminal).", valueName: "out"), completion: .file())
    var output: String?

    @OptionGroup var progressOptions: ProgressOptions

    @Argument(help: ArgumentHelp("Files and folders to wrap ('-' for standard input, named by --name NAME).", valueName: "path"), completion: .file())
    var paths: [String] = []

    var readsStandardInput: Bool { paths.contains("-") || (paths.isEmpty && inputOptions.filesFrom.isEmpty && name != nil) }

    func check() throws {
        try keychainOptions.check()
        let hasRecipients = !recipientOptions.isEmpty || !identityRecipients.isEmpty || !groups.isEmpty || !keychainOptions.isEmpty
        try passphraseEncryption.check(hasRecipients: hasRecipients, recipientFlags: "-r, -R, -i, -K or -g")
        if !hasRecipients && !passphraseEncryption.passphrase {
            throw ToolError.usage("missing recipients", hints: ["name them with -g GROUP, -r age1…, -R FILE, -i FILE or -K NAME, or use -p for a passphrase"])
        }
        if groups.count > 1 {
            throw ToolError.usage("a bundle belongs to one group; -g was given \(groups.count) times",
                                  hints: ["add the other recipients with -r or -R"])
        }
        if paths.isEmpty && inputOptions.filesFrom.isEmpty && name == nil {
            throw ToolError.usage("nothing to wrap", hints: ["name files or folders, list them with -T FILE, or read standard input with --name NAME -"])
        }
        if paths.filter({ $0 == "-" }).count > 1 { throw ToolError.usage("standard input ('-') can be wrapped once") }
        if readsStandardInput && name == nil {
            throw ToolError.usage("standard input needs a name in the bundle", hints: ["give it with --name NAME"])
        }
        if !readsStandardInput && name != nil {
            throw ToolError.usage("--name names standard input, which is not being wrapped", hints: ["add '-' to the paths to wrap standard input"])
        }
        if inputOptions.null && inputOptions.filesFrom.isEmpty { throw ToolError.usage("--null goes with -T FILE") }
        let passphraseOptions = passphraseEncryption.passphraseOptions
        try StandardInputUse.check([
            ("the input", readsStandardInput), ("-R -", recipientOptions.recipientsFiles.contains("-")),
            ("-i -", identityRecipients.identityFiles.contains("-")),
            (passphraseOptions.standardInputName, passphraseOptions.readsStandardInput),
        ] + inputOptions.standardInputUse)
    }

    func run() throws {
        var recipients = try recipientOptions.resolve()
        recipients += try identityRecipients.recipients()
        if let group = groups.first { recipients += try GroupRecipients().load(group) }
        // The sender is known when it seals with its own keychain identity.
        let own = try keychainOptions.recipients()
        recipients += own
        var seen = Set<AgeRecipient>()
        var sealFor: [Recipient] = recipients.filter { seen.insert($0).inserted }

        let plan = try BundlePlan(paths: try inputOptions.paths(operands: paths), excluding: try inputOptions.patterns(),
                                  skipChanged: inputOptions.skipChanged,
                                  standardInputName: readsStandardInput ? name : nil, standardInput: ToolIO.openInput("-"),
                                  warning: { Diagnostics.warn($0) })
        let out = try ToolIO.openOutput(output, binary: !armorOption.armor, terminalHints: ["did you mean -a/--armor?"])
        if passphraseEncryption.passphrase { sealFor = [try passphraseEncryption.recipient()] }
        let added: ((BundleManifest.Entry) -> Void)? = inputOptions.verbose ? { Self.list($0) } : nil
        var rewrites = 0
        while true {
            let manifest = plan.manifest(group: groups.first, accessID: accessID, sender: own.first?.string)
            let progress = ProgressBar.make(label: "wrapping", total: plan.contentBytes, quiet: progressOptions.quiet)
            defer { progress?.finish() }
            do {
                try BundleWriter.seal(plan, manifest: manifest, compress: compress ?? plan.compression.worthCompressing, recipients: sealFor, armor: armorOption.armor,
                                      to: out.sink, progress: progress?.callback, added: added)
                break
            } catch BundleError.changedWhileWrapping(let path) where inputOptions.skipChanged {
                // The manifest before it holds its old digest: start again without it.
                guard out.canRewind, rewrites < 3, plan.leaveOut(path: path) else { throw BundleError.changedWhileWrapping(path: path) }
                rewrites += 1
                Diagnostics.warn("\"\(path)\": file changed as we read it; left out, writing the bundle again without it")
                try out.rewind()
            }
        }
        try out.commit()
        if !plan.refused.isEmpty { throw ToolError.namesLeftOut(plan.refused.count, holder: "the bundle") }
        if !plan.leftOut.isEmpty {
            let count = plan.leftOut.count
            throw ToolError("\(count) file\(count == 1 ? "" : "s") changed as we read \(count == 1 ? "it" : "them") and \(count == 1 ? "was" : "were") left out; the bundle holds the rest",
                            exit: .no)
        }
    }

    /// -v: the member's name on stderr (a folder with a trailing '/', as tar -v).
    static func list(_ entry: BundleManifest.Entry) {
        Diagnostics.writeStandardError(DisplayText.printable(entry.path) + (entry.type == .directory ? "/" : "") + "\n")
    }
}
