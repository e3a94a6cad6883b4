import ArgumentParser
import VFSCommandLine
import VFSBundle
import VFSCore

/// What to take out of a bundle and how, as tar -x takes it: members, --wildcards,
/// --strip-components, what to do with existing files, -v.
struct ExtractOptions: ParsableArguments {
    @Flag(name: .customLong("wildcards"), help: "Take each MEMBER as a glob ('*' also matches '/'), not literally.")
    var wildcards = false

    @Option(name: .customLong("strip-components"),
            help: ArgumentHelp("Remove N leading components from each name; shorter names are not extracted.", valueName: "n"))
    var stripComponents = 0

    @Flag(name: .shortAndLong, help: "Replace existing files and links.")
    var force = false

    @Flag(name: .customLong("skip-old-files"), help: "Keep existing files and links; leave those entries out, silently.")
    var skipOldFiles = false

    @Flag(name: [.customShort("k"), .customLong("keep-old-files")], help: "Fail if a file or link exists (the default).")
    var keepOldFiles = false

    @Flag(name: .shortAndLong, help: "List each member extracted, or written by --stdout, on stderr.")
    var verbose = false

    init() {}

    func check(extracting: Bool) throws {
        if [force, skipOldFiles, keepOldFiles].filter({ $0 }).count > 1 {
            throw ToolError.usage("choose one of --force, --skip-old-files and -k/--keep-old-files")
        }
        if (force || skipOldFiles || keepOldFiles) && !extracting {
            throw ToolError.usage("--force, --skip-old-files and -k go with extraction (-C DIR)")
        }
        if stripComponents < 0 { throw ToolError.usage("--strip-components must be 0 or more") }
    }

    func selection(_ members: [String]) -> BundleSelection {
        BundleSelection(members: members, wildcards: wildcards, stripComponents: stripComponents)
    }

    var existing: BundleReader.ExistingFiles { force ? .replace : skipOldFiles ? .skip : .refuse }

    /// -v: a name on stderr (a folder with a trailing '/', as tar -v).
    static func show(_ path: String, folder: Bool = false) {
        Diagnostics.writeStandardError(DisplayText.printable(path) + (folder ? "/" : "") + "\n")
    }
}
