import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSBundle
import VFSCore
#if canImport(Glibc)
import Glibc
#endif

@main
struct Unwrap: VFSCommand, CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-unwrap",
        abstract: "Open a bundle made by vfs-wrap: check the policy, verify every digest, extract safely.",
        discussion: UnwrapHelp.overview,
        version: vfsVersion)

    @OptionGroup var identityOptions: IdentityOptions

    @OptionGroup var keychainOptions: KeychainIdentityOptions

    @OptionGroup var passphraseDecryption: PassphraseDecryptionOptions

    @Option(name: .customLong("for"), help: ArgumentHelp("Release the content only if the policy approves APP.", valueName: "app"), completion: .vfsPolicyApps)
    var app: String?

    @Option(name: [.customShort("C", allowingJoined: true), .customLong("directory")], help: ArgumentHelp("Extract into DIR (default: the current folder).", valueName: "dir"), completion: .directory)
    var directory: String?

    @Flag(name: [.customShort("O"), .customLong("stdout")], help: "Write the content of the (selected) files to stdout, one after another.")
    var toStandardOutput = false

    @Flag(name: [.customShort("t"), .customLong("list")], help: "Print the manifest (its sender is an unverified claim) instead of extracting.")
    var list = false

    @Flag(name: .customLong("json"), help: "With --list, print the whole manifest as JSON.")
    var json = false

    @OptionGroup var extractOptions: ExtractOptions

    @Flag(name: .customLong("passthrough"), help: "Copy input that is not age out unchanged instead of failing.")
    var passthrough = false

    @Option(name: .customLong("max-expansion"),
            help: ArgumentHelp("Refuse content more than RATIO times the bundle's size (0: no cap).", valueName: "ratio"))
    var maxExpansion = ExtractionLimits.defaultMaxExpansion

    @OptionGroup var backupOption: NoBackupOption

    @OptionGroup var progressOptions: ProgressOptions

    @Argument(help: ArgumentHelp("The bundle ('-' or none for stdin).", valueName: "in"), completion: .file())
    var input: String?

    @Argument(help: ArgumentHelp("Extract only these members and what is below them, named as --list shows them.", valueName: "member"))
    var members: [String] = []

    func check() throws {
        try keychainOptions.check()
        if [directory != nil, toStandardOutput, list].filter({ $0 }).count > 1 {
            throw ToolError.usage("choose one of -C DIR, --stdout and --list")
        }
        if json && !list { throw ToolError.usage("--json goes with --list") }
        if maxExpansion < 0 { throw ToolError.usage("--max-expansion must be 0 (no cap) or more") }
        try extractOptions.check(extracting: !toStandardOutput && !list)
        try passphraseDecryption.check()
        let passphraseOptions = passphraseDecryption.passphraseOptions
        try StandardInputUse.check([("the bundle", input == nil || input == "-"), ("-i -", identityOptions.identityFiles.contains("-")),
                                    (passphraseOptions.standardInputName, passphraseOptions.readsStandardInput)])
        if backupOption.noBackup && (toStandardOutput || list) { throw ToolError.usage("--no-backup goes with extraction (-C DIR)") }
    }

    func run() throws {
        let file = try ToolIO.openInput(input)
        let source = BufferedSource(file)
        guard try BundleReader.looksLikeAge(source) else {
            guard passthrough else {
                throw ToolError("\(inputName) is not an age file, so not a wrapped bundle", exit: .dataError,
                                hints: ["if it is a plain file meant to be used as is, --passthrough copies it out unchanged"])
            }
            return try passThrough(source)
        }
        let decryptor = try AgeDecryptor(source: source)
        let fileKey = try passphraseDecryption.fileKey(decryptor) {
            let identities = try identityOptions.resolve(passphrase: passphraseDecryption.passphraseOptions.source) + keychainOptions.identities()
            guard !identities.isEmpty else {
                throw ToolError("no identity given", exit: .permissionDenied,
                                hints: ["use -i FILE with an identity the bundle was sealed for, or -K NAME for one in the keychain"])
            }
            return identities
        }
        let progress = ProgressBar.make(label: "unwrapping", total: file.regularFileSize, quiet: progressOptions.quiet || list)
        defer { progress?.finish() }
        let selection = extractOptions.selection(members)
        try BundleReader.openSealed(decryptor, fileKey: fileKey, progress: progress?.callback) { reader in
            // What is released: the selected members (a member that matches nothing is 66 here, before anything).
            let outputs = try selection.outputs(of: reader.manifest, validate: false)
            let released = zip(reader.manifest.entries, outputs).filter { $1 != nil }.map(\.0)
            if let app { try authorize(app, group: reader.manifest.group, paths: released.filter { $0.type != .directory }.map(\.path)) }
            if list { return try printList(reader.manifest, entries: members.isEmpty ? reader.manifest.entries : released) }
            if toStandardOutput {
                return try reader.writeFiles(to: FileDescriptorSink.standardOutput(), selection: selection) { name in
                    if extractOptions.verbose { ExtractOptions.show(name) }
                }
            }
            try reader.extract(into: directory ?? ".", force: extractOptions.force,
                               limits: ExtractionLimits(maxExpansion: maxExpansion == 0 ? nil : maxExpansion, bundleSize: file.regularFileSize),
                               noBackup: backupOption.noBackup, selection: selection, existing: extractOptions.existing)
            if extractOptions.verbose {
                for entry in reader.extractedEntries { ExtractOptions.show(entry.path, folder: entry.type == .directory) }
            }
            backupOption.report(reader.backupMarks, folder: directory ?? ".")
        }
    }

    var inputName: String { input.map { $0 == "-" ? "standard input" : "\"\($0)\"" } ?? "standard input" }

    /// The policy's decision for the files to release (PolicySource.decide(files:group:app:)).
    func authorize(_ app: String, group: String?, paths: [String]) throws {
        if case .denied(let denial) = try PolicyChoice.source().decide(files: paths, group: group, app: app) {
            throw ToolError(denial.description, exit: .permissionDenied, hints: PolicyGate.hints(for: denial))
        }
    }

    func printList(_ whole: BundleManifest, entries: [BundleManifest.Entry]) throws {
        var manifest = whole
        manifest.entries = entries
        if json { return try JSONOutput.print(manifest) }
        // Names come from the bundle: control characters are escaped (--json has them exact).
        let show = DisplayText.printable
        var text = "# group: \(show(manifest.group ?? "-"))\n# access id: \(show(manifest.accessID ?? "-"))\n# claimed sender: \(manifest.sender.map { show($0) + " (not verified)" } ?? "-")\n"
        text += "# created: \(DateText.iso8601(manifest.created))\n"
        for entry in manifest.entries {
            let size = String(entry.size)
            text += "\(Self.modeString(entry)) \(String(repeating: " ", count: max(0, 12 - size.count)))\(size) \(DateText.minutes(sinceEpoch: entry.mtime)) \(show(entry.path))"
            if let target = entry.target { text += " -> \(show(target))" }
            text += "\n"
        }
        try FileDescriptorSink.standardOutput().write(Array(text.utf8))
    }

    static func modeString(_ entry: BundleManifest.Entry) -> String {
        let bits = entry.permissions ?? 0
        var out = entry.type == .directory ? "d" : entry.type == .symlink ? "l" : "-"
        for (i, c) in "rwxrwxrwx".enumerated() { out.append(bits & (0o400 >> UInt32(i)) != 0 ? c : "-") }
        return out
    }

    /// Input that is not age: copied out unchanged (the seed's "not wrapped, use it directly").
    func passThrough(_ source: ByteSource) throws {
        if list { throw ToolError("\(inputName) is not a bundle, so there is no manifest to list", exit: .dataError) }
        if !members.isEmpty { throw ToolError("\(inputName) is not a bundle, so it has no members to choose from", exit: .dataError) }
        let name = input.flatMap { $0 == "-" ? nil : $0.split(separator: "/").last.map(String.init) }
        if let app { try authorize(app, group: nil, paths: [name ?? ""]) }
        if toStandardOutput {
            try source.copy(to: FileDescriptorSink.standardOutput())
            return
        }
        guard let name else {
            throw ToolError.usage("standard input that is not age has no name to extract it under", hints: ["use --stdout"])
        }
        let path = (directory ?? ".") + "/" + name
        var info = stat()
        if extractOptions.skipOldFiles && lstat(path, &info) == 0 { return }
        let out: AtomicOutputFile
        do {
            out = try AtomicOutputFile(path: path, exclusive: !extractOptions.force)
        } catch let error as IOError {
            throw ToolError(error.description, exit: .cannotCreate, hints: error.code == EEXIST ? ["use --force to replace it"] : [])
        }
        if backupOption.noBackup && !BackupExclusion.markNoDump(fd: out.fd) {
            Diagnostics.warn("\"\(path)\" is not marked nodump: its file system keeps no such attribute")
        }
        try source.copy(to: out)
        try out.commit(exclusive: !extractOptions.force)
    }
}
