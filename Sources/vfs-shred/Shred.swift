import ArgumentParser
import VFSCommandLine
import VFSCore
#if canImport(Glibc)
import Glibc
#endif

@main
struct Shred: VFSCommand, CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-shred",
        abstract: "Overwrite files in place, wipe their names, and remove them; trees too, with age filters for cron.",
        discussion: ShredHelp.overview,
        version: vfsVersion)

    @Option(name: [.customShort("n", allowingJoined: true), .customLong("passes"), .customLong("iterations")],
            help: ArgumentHelp("Random overwrite passes (0 only with -z; GNU shred makes 3).", valueName: "n"))
    var passes = 1

    @Flag(name: [.customShort("z"), .customLong("zero")], help: "Add a final pass of zeros.")
    var zero = false

    @Flag(name: [.customShort("k"), .customLong("keep")], help: "Overwrite but do not remove.")
    var keep = false

    @Flag(name: [.customShort("u"), .customLong("remove")],
          help: "Remove after overwriting (the default; GNU's --remove=HOW: unlink, wipe, wipesync).")
    var remove = false

    /// GNU's `--remove=HOW`, rewritten to this (see `rewrite`).
    @Option(name: .customLong("remove-how"), help: ArgumentHelp(visibility: .private))
    var removeHow: String?

    @Flag(name: [.customShort("x"), .customLong("exact")], help: "Overwrite up to the size, not to the end of the last block.")
    var exact = false

    @Flag(name: [.customShort("r"), .customLong("recursive")],
          help: "Descend into folders (removed too, unless a filter is given).")
    var recursive = false

    @Flag(name: .customLong("remove-root"), help: "With a filter, remove the folders named too once everything in them went.")
    var removeRoot = false

    @Flag(name: .customLong("prune-empty"), help: "With a filter, remove the subfolders this run emptied.")
    var pruneEmpty = false

    @Flag(name: [.customShort("f"), .customLong("force")],
          help: "Overwrite files that have other hard links; make read-only files writable.")
    var force = false

    @Flag(name: .customLong("device"), help: "Overwrite block devices named as PATH (never removed).")
    var device = false

    @Option(name: .customLong("older-than"),
            help: ArgumentHelp("Only entries last modified more than AGE ago (30m, 12h, 7d; a unit is required).", valueName: "age"))
    var olderThan: String?

    @Option(name: .customLong("include"),
            help: ArgumentHelp("Only entries whose base name matches GLOB. Repeatable.", valueName: "glob"))
    var includes: [String] = []

    @Option(name: .customLong("exclude"),
            help: ArgumentHelp("Leave entries whose base name matches GLOB. Repeatable.", valueName: "glob"))
    var excludes: [String] = []

    @Flag(name: .customLong("dry-run"), help: "Print what would be destroyed; touch nothing.")
    var dryRun = false

    @Flag(name: [.customShort("0"), .customLong("null")], help: "With --dry-run: end each path with a NUL instead of a newline, as find -print0 (for xargs -0).")
    var nulSeparated = false

    @Flag(name: .customLong("verify"), help: "Read the last pass back from the device and check it.")
    var verify = false

    @Flag(name: .shortAndLong, help: "List each entry destroyed on stderr.")
    var verbose = false

    @Flag(name: .customLong("json"), help: "Print a JSON summary on stdout, with the paths destroyed and skipped.")
    var json = false

    @Flag(name: .customLong("json-lines"), help: "Print each entry as one JSON object a line on stdout as it goes, then the summary (for logs).")
    var jsonLines = false

    @OptionGroup var progressOptions: ProgressOptions

    @Argument(help: ArgumentHelp("Files, links, folders with -r, or block devices with --device", valueName: "path"), completion: .file())
    var paths: [String] = []

    /// The paths and globs as the bytes of the command line (a file name need not be
    /// UTF-8), checked against what ArgumentParser parsed.
    static func rawArguments(paths: [String], includes: [String], excludes: [String]) throws
        -> (paths: [[UInt8]], includes: [[UInt8]], excludes: [[UInt8]]) {
        let raw = RawArguments.current(valueOptions: ["passes": "n", "iterations": nil, "older-than": nil, "include": nil, "exclude": nil])
        let rawIncludes = raw.values["include"] ?? [], rawExcludes = raw.values["exclude"] ?? []
        guard RawArguments.agree(raw.positionals, paths), RawArguments.agree(rawIncludes, includes),
              RawArguments.agree(rawExcludes, excludes) else {
            throw ToolError.usage("can't tell the paths and globs apart in this command line",
                                  hints: ["write each option and its value as two arguments (--exclude GLOB), and put -- before the paths"])
        }
        return (raw.positionals, rawIncludes, rawExcludes)
    }

    func check() throws {
        guard !paths.isEmpty else {
            throw ToolError.usage("missing PATH", hints: ["name the files to destroy, e.g. vfs-shred secret.pdf, or a folder with -r"])
        }
        guard (0...100).contains(passes) else { throw ToolError.usage("--passes must be from 0 to 100") }
        if passes == 0 && !zero {
            throw ToolError.usage("-n 0 would overwrite nothing", hints: ["use -n 1 (the default), or add -z for a single pass of zeros"])
        }
        for glob in includes + excludes where glob.contains("/") {
            throw ToolError.usage("glob \"\(glob)\" contains '/'", hints: ["globs match base names only, e.g. --include '*.csv'"])
        }
        if let olderThan { _ = try DurationText.seconds(olderThan) }
        if remove && keep {
            throw ToolError.usage("-u removes and -k keeps: give one", hints: ["vfs-shred removes by default; -u is accepted for GNU shred's habit"])
        }
        if json && jsonLines { throw ToolError.usage("--json and --json-lines: give one") }
        if nulSeparated && (!dryRun || json || jsonLines) {
            throw ToolError.usage("-0 separates the --dry-run list", hints: ["use it with --dry-run and without --json or --json-lines"])
        }
        if (removeRoot || pruneEmpty) && !recursive {
            throw ToolError.usage("\(removeRoot ? "--remove-root" : "--prune-empty") works on folders: add -r")
        }
        if let removeHow, NameRemoval(rawValue: removeHow) == nil {
            throw ToolError.usage("--remove=\(removeHow): HOW is unlink, wipe or wipesync")
        }
    }

    /// GNU's `--remove=HOW` (an option whose value is optional, which ArgumentParser
    /// can't declare) becomes `--remove --remove-how HOW`.
    static func rewrite(_ arguments: [String]) -> [String] {
        var out: [String] = []
        for (i, argument) in arguments.enumerated() {
            if argument == "--" { return out + arguments[i...] }
            let afterValueOption = ["-n", "--passes", "--iterations", "--older-than", "--include", "--exclude"].contains(out.last ?? "")
            if argument.hasPrefix("--remove="), !afterValueOption {
                out += ["--remove", "--remove-how", String(argument.dropFirst("--remove=".count))]
            } else {
                out.append(argument)
            }
        }
        return out
    }

    func run() throws {
        var options = ShredOptions()
        options.passes = passes
        options.zeroPass = zero
        options.keep = keep
        options.recursive = recursive
        options.removeRoots = removeRoot
        options.pruneEmpty = pruneEmpty
        options.exact = exact
        options.removal = removeHow.flatMap(NameRemoval.init) ?? .wipeSync
        options.force = force
        options.devices = device
        options.dryRun = dryRun
        options.verify = verify
        let raw = try Self.rawArguments(paths: paths, includes: includes, excludes: excludes)
        options.selection = ShredSelection(olderThan: try olderThan.map(DurationText.seconds),
                                           rawIncludes: raw.includes, rawExcludes: raw.excludes)
        let showBar = !(verbose || dryRun || progressOptions.quiet) && Terminal.stderrIsTerminal
        let bar = showBar ? ProgressBar.make(label: "shredding", total: options.plannedBytes(rawPaths: raw.paths), quiet: false) : nil
        defer { bar?.finish() }
        var report = EventReport(verbose: verbose, dryRun: dryRun, keep: keep, listOnStdout: dryRun && !json && !jsonLines,
                                 quiet: progressOptions.quiet, jsonLines: jsonLines, nulSeparated: nulSeparated)
        let summary = Shredder(options: options, progress: bar?.callback) { event in
            bar?.finish()
            report.show(event)
        }.shred(rawPaths: raw.paths)
        bar?.finish()
        if let error = report.outputError { throw error }
        if json { try JSONOutput.print(summary) }
        if jsonLines { try JSONOutput.printLine(ShredLogSummary(summary)) }
        guard summary.complete else {
            let count = summary.skipped.count + summary.errors.count
            throw ToolError("\(count) \(count == 1 ? "entry was" : "entries were") not destroyed (listed above)", exit: .no)
        }
    }
}
