import VFSCommandLine
import VFSCore

/// Shows the events as they happen: problems and warnings on stderr, -v lines on
/// stderr, and with --dry-run the list of what would go on stdout.
struct EventReport {
    let verbose: Bool
    let dryRun: Bool
    let keep: Bool
    let listOnStdout: Bool
    /// -q: the per-run file system warnings are left to --json (cron mail stays empty).
    let quiet: Bool
    let jsonLines: Bool
    /// -0: the --dry-run list NUL-separated (as find -print0), each path as its bytes.
    let nulSeparated: Bool
    private var hintsShown = Set<String>()
    /// The first failed write of the --dry-run list (reported once the run ends).
    private(set) var outputError: Error?

    init(verbose: Bool, dryRun: Bool, keep: Bool, listOnStdout: Bool, quiet: Bool = false, jsonLines: Bool = false,
         nulSeparated: Bool = false) {
        self.nulSeparated = nulSeparated
        self.verbose = verbose
        self.dryRun = dryRun
        self.keep = keep
        self.listOnStdout = listOnStdout
        self.quiet = quiet
        self.jsonLines = jsonLines
    }

    mutating func show(_ event: ShredEvent) {
        if jsonLines {
            do { try JSONOutput.printLine(ShredLogLine(event)) } catch { outputError = outputError ?? error }
        }
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
            guard !quiet else { return }
            Diagnostics.warn("\"\(path)\" is on \(kind.name) (\(kind.caveat ?? "")): overwriting may not reach the old data")
            once("keep such files encrypted with vfs-encrypt and destroy the key instead (see vfs-shred(1))")
        }
    }

    private mutating func done(_ listed: String, _ message: String) {
        if listOnStdout {
            // Names as their bytes for scripts (NUL-separated with -0, as find -print0);
            // escaped on a terminal, as ls does (\xHH for a byte that is not UTF-8).
            let line: [UInt8]
            if nulSeparated { line = RawName.bytes(listed) + [0] }
            else if Terminal.stdoutIsTerminal { line = Array((DisplayText.printable(listed) + "\n").utf8) }
            else { line = RawName.bytes(listed) + [0x0A] }
            do { try StandardOutput.write(line) }
            catch { outputError = outputError ?? error }
        } else if verbose {
            Diagnostics.info(dryRun ? "would have " + message : message)
        }
    }

    private mutating func once(_ hint: String) {
        if hintsShown.insert(hint).inserted { Diagnostics.hint(hint) }
    }
}

/// The last line of --json-lines: the summary's counts, tagged as the summary.
struct ShredLogSummary: Encodable {
    let summary: ShredSummary
    init(_ summary: ShredSummary) { self.summary = summary }

    private enum Key: String, CodingKey { case event, dryRun, kept, passes, zeroPass, files, bytes, links, folders, skipped, errors, warnings }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode("summary", forKey: .event)
        try c.encode(summary.dryRun, forKey: .dryRun)
        try c.encode(summary.kept, forKey: .kept)
        try c.encode(summary.passes, forKey: .passes)
        try c.encode(summary.zeroPass, forKey: .zeroPass)
        try c.encode(summary.files, forKey: .files)
        try c.encode(summary.bytes, forKey: .bytes)
        try c.encode(summary.links, forKey: .links)
        try c.encode(summary.folders, forKey: .folders)
        try c.encode(summary.skipped.count, forKey: .skipped)
        try c.encode(summary.errors.count, forKey: .errors)
        try c.encode(summary.warnings.count, forKey: .warnings)
    }
}
