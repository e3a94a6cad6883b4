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

    @Option(name: [.customShort("n"), .customLong("passes")],
            help: ArgumentHelp("Random overwrite passes (0 only with -z).", valueName: "n"))
    var passes = 1

    @Flag(name: [.customShort("z"), .customLong("zero")], help: "Add a final pass of zeros.")
    var zero = false

    @Flag(name: [.customShort("k"), .customLong("keep")], help: "Overwrite but do not remove.")
    var keep = false

    @Flag(name: [.customShort("r"), .customLong("recursive")], help: "Descend into folders; remove the emptied folders too.")
    var recursive = false

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

    @Flag(name: .customLong("verify"), help: "Read the last pass back from the device and check it.")
    var verify = false

    @Flag(name: .shortAndLong, help: "List each entry destroyed on stderr.")
    var verbose = false

    @Flag(name: .customLong("json"), help: "Print a JSON summary on stdout.")
    var json = false

    @OptionGroup var progressOptions: ProgressOptions

    @Argument(help: ArgumentHelp("Files, links, folders with -r, or block devices with --device", valueName: "path"), completion: .file())
    var paths: [String] = []

    /// What the passes will write when only files are named (for the progress bar's
    /// total); nil when a folder or device makes it unknown up front.
    func plannedBytes() -> Int? {
        var total = 0
        for path in paths {
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            guard info.st_mode & S_IFMT == S_IFREG else {
                if info.st_mode & S_IFMT == S_IFLNK { continue }
                return nil
            }
            let block = max(Int(info.st_blksize), 1)
            total += (Int(info.st_size) + block - 1) / block * block
        }
        return total * (passes + (zero ? 1 : 0))
    }

    /// The paths and globs as the bytes of the command line (a file name need not be
    /// UTF-8), checked against what ArgumentParser parsed.
    static func rawArguments(paths: [String], includes: [String], excludes: [String]) throws
        -> (paths: [[UInt8]], includes: [[UInt8]], excludes: [[UInt8]]) {
        let raw = RawArguments.current(valueOptions: ["passes": "n", "older-than": nil, "include": nil, "exclude": nil])
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
    }

    func run() throws {
        var options = ShredOptions()
        options.passes = passes
        options.zeroPass = zero
        options.keep = keep
        options.recursive = recursive
        options.force = force
        options.devices = device
        options.dryRun = dryRun
        options.verify = verify
        let raw = try Self.rawArguments(paths: paths, includes: includes, excludes: excludes)
        options.selection = ShredSelection(olderThan: try olderThan.map(DurationText.seconds),
                                           rawIncludes: raw.includes, rawExcludes: raw.excludes)
        let bar = verbose || dryRun ? nil : ProgressBar.make(label: "shredding", total: plannedBytes(), quiet: progressOptions.quiet)
        defer { bar?.finish() }
        var report = EventReport(verbose: verbose, dryRun: dryRun, keep: keep, listOnStdout: dryRun && !json)
        let summary = Shredder(options: options, progress: bar?.callback) { event in
            bar?.finish()
            report.show(event)
        }.shred(rawPaths: raw.paths)
        bar?.finish()
        if let error = report.outputError { throw error }
        if json { try JSONOutput.print(summary) }
        guard summary.complete else {
            let count = summary.skipped.count + summary.errors.count
            throw ToolError("\(count) \(count == 1 ? "entry was" : "entries were") not destroyed (listed above)", exit: .no)
        }
    }
}

/// Shows the events as they happen: problems and warnings on stderr, -v lines on
/// stderr, and with --dry-run the list of what would go on stdout.
struct EventReport {
    let verbose: Bool
    let dryRun: Bool
    let keep: Bool
    let listOnStdout: Bool
    private var hintsShown = Set<String>()
    /// The first failed write of the --dry-run list (reported once the run ends).
    private(set) var outputError: Error?

    init(verbose: Bool, dryRun: Bool, keep: Bool, listOnStdout: Bool) {
        self.verbose = verbose
        self.dryRun = dryRun
        self.keep = keep
        self.listOnStdout = listOnStdout
    }

    mutating func show(_ event: ShredEvent) {
        switch event {
        case .destroyed(let path, let bytes):
            done(path, "\(keep ? "overwrote" : "destroyed") \"\(path)\" (\(ProgressBar.size(bytes)))")
        case .overwroteDevice(let path, let bytes):
            done(path, "overwrote device \"\(path)\" (\(ProgressBar.size(bytes)))")
        case .removedLink(let path):
            done(path, "removed link \"\(path)\" (its target is untouched)")
        case .removedFolder(let path):
            done(path + "/", "removed folder \"\(path)\"")
        case .skipped(let path, let reason):
            Diagnostics.info("skipped \"\(path)\": \(reason)")
            if let hint = reason.hint { once(hint) }
        case .failed(let path, let reason):
            let message = reason.contains("\"\(path)\"") ? reason : "\"\(path)\": \(reason)"
            Diagnostics.error(message)
        case .keptMountPoint(let path):
            Diagnostics.warn("\"\(path)\" \(ShredSummary.mountPointKept)")
        case .weakFileSystem(let path, let kind):
            Diagnostics.warn("\"\(path)\" is on \(kind.name) (\(kind.caveat ?? "")): overwriting may not reach the old data")
            once("keep such files encrypted with vfs-encrypt and destroy the key instead (see vfs-shred(1))")
        }
    }

    private mutating func done(_ listed: String, _ message: String) {
        if listOnStdout {
            // Names as they are for scripts; escaped on a terminal, as ls does.
            do { try StandardOutput.write((Terminal.stdoutIsTerminal ? DisplayText.printable(listed) : listed) + "\n") }
            catch { outputError = outputError ?? error }
        } else if verbose {
            Diagnostics.info(dryRun ? "would have " + message : message)
        }
    }

    private mutating func once(_ hint: String) {
        if hintsShown.insert(hint).inserted { Diagnostics.hint(hint) }
    }
}
