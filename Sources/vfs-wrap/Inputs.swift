import ArgumentParser
import VFSCommandLine
import VFSCore
#if canImport(Glibc)
import Glibc
#endif

/// What to wrap, as tar takes it: -C DIR between the paths, -T lists, --exclude, -v.
struct InputOptions: ParsableArguments {
    @Option(name: [.customShort("C", allowingJoined: true), .customLong("directory")],
            help: ArgumentHelp("Take the PATHs and -T lists that follow from DIR, as tar -C. Repeatable.", valueName: "dir"),
            completion: .directory)
    var directories: [String] = []

    @Option(name: [.customShort("T", allowingJoined: true), .customLong("files-from")],
            help: ArgumentHelp("Also wrap the paths listed in FILE, one a line ('-' for stdin). Repeatable.", valueName: "file"),
            completion: .file())
    var filesFrom: [String] = []

    @Flag(name: .customLong("null"), help: "-T lists are NUL-separated (find -print0), not one path a line.")
    var null = false

    @Option(name: .customLong("exclude"),
            help: ArgumentHelp("Leave out members matching the glob PATTERN, as tar --exclude does. Repeatable.", valueName: "pattern"))
    var excludes: [String] = []

    @Option(name: [.customShort("X", allowingJoined: true), .customLong("exclude-from")],
            help: ArgumentHelp("Leave out members matching the patterns in FILE, one a line. Repeatable.", valueName: "file"),
            completion: .file())
    var excludeFiles: [String] = []

    @Flag(name: .customLong("skip-changed"), help: "Leave out files that change while read (exit 1) instead of failing.")
    var skipChanged = false

    @Flag(name: .shortAndLong, help: "List each member on stderr as it is added.")
    var verbose = false

    init() {}

    /// Every option of vfs-wrap that takes a value (long name → short letter), for
    /// finding where each -C stands among the paths.
    static let valueOptions: [String: Character?] = [
        "recipient": "r", "recipients-file": "R", "identity": "i", "keychain-identity": "K", "passcode-file": nil,
        "passcode-fd": nil, "passphrase-file": nil, "passphrase-fd": nil, "work-factor": nil, "group": "g",
        "access-id": nil, "name": nil, "output": "o", "directory": "C", "files-from": "T", "exclude": nil,
        "exclude-from": "X",
    ]

    /// The paths to wrap, in command-line order, each taken from the -C folder in
    /// effect where it stands ('-' is left out: it is standard input).
    func paths(operands: [String]) throws -> [String] {
        if directories.isEmpty && filesFrom.isEmpty { return operands.filter { $0 != "-" } }
        let raw = RawArguments.current(valueOptions: Self.valueOptions)
        guard RawArguments.agree(raw.positionals, operands), RawArguments.agree(raw.values["directory"] ?? [], directories),
              RawArguments.agree(raw.values["files-from"] ?? [], filesFrom) else {
            throw ToolError.usage("can't tell where each -C stands among the paths in this command line",
                                  hints: ["write each option and its value as two arguments (-C DIR), and put -- before the paths"])
        }
        var folder: String?
        var out: [String] = []
        for item in raw.sequence {
            let value = String(decoding: item.value, as: UTF8.self)
            switch item.option {
            case "directory":
                let next = Self.join(folder, value)
                var info = stat()
                guard stat(next, &info) == 0 else { throw IOError("cannot change to folder", path: next) }
                guard info.st_mode & S_IFMT == S_IFDIR else { throw IOError("cannot change to folder", path: next, code: ENOTDIR) }
                folder = next
            case "files-from":
                out += try Self.list(value, null: null).map { Self.join(folder, $0) }
            case nil where value != "-":
                out.append(Self.join(folder, value))
            default:
                break
            }
        }
        return out
    }

    /// Every --exclude pattern and those of the -X files.
    func patterns() throws -> [String] {
        var out = excludes
        for file in excludeFiles { out += try Self.list(file, null: false) }
        return out
    }

    static func join(_ folder: String?, _ path: String) -> String {
        guard let folder, !path.hasPrefix("/") else { return path }
        return folder.hasSuffix("/") ? folder + path : folder + "/" + path
    }

    /// The names in a list file ('-': standard input), one a line or NUL-separated;
    /// empty names are skipped, the others taken exactly as written.
    static func list(_ path: String, null: Bool) throws -> [String] {
        let bytes = try ToolIO.openInput(path).readAll()
        let shown = path == "-" ? "standard input" : "\"\(path)\""
        var names: [String] = []
        for part in bytes.split(separator: null ? 0 : UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            guard let name = String(validating: part, as: UTF8.self) else {
                throw ToolError("a name in \(shown) is not UTF-8", exit: .dataError)
            }
            if !null && name.utf8.contains(0) { throw ToolError("\(shown) holds a NUL byte", exit: .dataError, hints: ["for a NUL-separated list (find -print0), add --null"]) }
            names.append(name)
        }
        return names
    }

    /// Standard input as a -T or -X list, for the check that it is used once.
    var standardInputUse: [(String, Bool)] {
        [("-T -", filesFrom.contains("-")), ("-X -", excludeFiles.contains("-"))]
    }
}
