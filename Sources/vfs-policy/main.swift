import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore

@main
struct Policy: VFSCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-policy",
        abstract: "The approved-apps list: which apps may receive files, of which groups and types, until when.",
        discussion: """
        An item approves one app (a command name such as evince, or a reverse-DNS id \
        such as com.example.viewer) to receive files. It may restrict the groups whose \
        files the app receives and the file types (extensions); an empty list means any. \
        It may expire, and it may be disabled. `check` is the decision that scripts and \
        vfs-unwrap (for an app) use: exit 0 allowed, 1 denied. The default \
        is deny: an app without an item, an empty policy and a missing policy file \
        approve nothing.

        Storage: $VFS_POLICY, else $VFS_HOME/policy.json (VFS_HOME defaults to \
        $XDG_DATA_HOME/vfs, else ~/.local/share/vfs), or --policy PATH. It is plain \
        JSON a person can read, review and keep in git: pretty-printed, keys sorted, \
        items sorted by app, times in ISO 8601 UTC, and a format "version". Every change \
        takes an exclusive lock on PATH.lock, re-reads the file, writes the whole new \
        file to a temporary file that is synced and renamed over it, and appends one \
        line per changed item to the log PATH.log (policy.json.log by default; JSON \
        lines: time, user, uid, action, id, app, the fields set); changes that race \
        run one after the other and none is lost. Reads take the lock shared. A \
        policy file that does not parse, is empty (truncated), or breaks a rule (an unknown key, a duplicate \
        app), is an error naming the file and the line (exit 65), for reads and \
        changes alike: it is never replaced.

        Expiry: an item is expired at and after its expiry instant. --expires takes a \
        date (2027-01-31: valid through that whole day in UTC, expiring at \
        2027-02-01T00:00:00Z), a full ISO 8601 time (2027-01-31T17:00:00Z, or with an \
        offset such as +02:00; the instant itself), or a duration from now (90d, 12h). \
        Times are kept to the second.

        Threat model: the policy governs what this toolkit releases, and to whom, in \
        automated flows (vfs-unwrap for an app, scripts that ask check). It \
        does not stop a person who holds the keys from decrypting files with other \
        tools (age, vfs-decrypt), and anyone who can write the policy file can change \
        it: protect the file and its folder like the keys, and review its log.

        Examples:
          vfs-policy add com.example.viewer --name Viewer --group finance --type pdf --expires 2027-01-31
          vfs-policy check com.example.viewer --group finance --file q3.pdf && open-with-viewer q3.pdf
          vfs-policy update com.example.viewer --disable
          vfs-policy export -o policy.json && git -C audit commit -am "policy"
          vfs-policy list --json | jq -r '.[] | select(.status == "expired") | .app'

        Exit status: 0 success (check: allowed); 1 check denied, or no item has the \
        given APP|ID, or add of an app that is already approved; 64 usage (a bad app, \
        group, type or date); 65 the policy, its log or an imported file does not \
        parse; 66 an imported file does not exist; 73 the output of export cannot be \
        created; 74 read or write error; 77 permission denied.
        """,
        version: vfsVersion,
        subcommands: [List.self, Add.self, Update.self, Remove.self, Check.self, Export.self, Import.self, Log.self])
}

/// `--policy PATH`, shared by every subcommand.
struct PolicyFileOption: ParsableArguments {
    @Option(name: .customLong("policy"), help: ArgumentHelp("The policy file (default: $VFS_POLICY, else $VFS_HOME/policy.json).", valueName: "path"))
    var path: String?

    var store: PolicyStore { PolicyStore(path: path ?? ToolPaths.policyFile) }

    /// The store, with its folder created (0700) if missing, for a change.
    func storeForChange() throws -> PolicyStore {
        let store = self.store
        let folder = (store.path as NSString).deletingLastPathComponent
        if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
            try ToolPaths.makePrivateFolder(folder)
        }
        return store
    }
}

/// The fields add and update set.
struct ItemOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A display name for people.", valueName: "text"))
    var name: String?

    @Option(name: .customLong("group"), help: ArgumentHelp("A group whose files the app may receive. Repeatable; none means any group.", valueName: "group"))
    var groups: [String] = []

    @Option(name: .customLong("type"), help: ArgumentHelp("A file type (extension, e.g. pdf) the app may receive. Repeatable; none means any type.", valueName: "ext"))
    var types: [String] = []

    @Option(help: ArgumentHelp("When the approval ends: a date (valid through that day, UTC), an ISO 8601 time, or a duration from now (90d).", valueName: "when"))
    var expires: String?

    /// An expiry given in the past is kept (it may be meant), but said.
    func warnIfExpired(_ item: PolicyItem, now: Date) {
        if expires != nil, let at = item.expires, item.isExpired(at: now) {
            Diagnostics.warn("\"\(item.app)\" expired at \(PolicyDates.format(at)), so it denies from now on")
        }
    }

    func edit(now: Date) throws -> PolicyEdit {
        PolicyEdit(name: name,
                   groups: groups.isEmpty ? nil : groups,
                   types: types.isEmpty ? nil : types,
                   expires: try expires.map { .some(try PolicyDates.parseExpiry($0, now: now)) },
                   enabled: nil)
    }
}

extension Policy {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the items (id, app, status, expiry, groups, types, name).",
            discussion: "Status is active, disabled or expired. An empty policy lists nothing.")

        @OptionGroup var policy: PolicyFileOption

        @Flag(help: "Print a JSON array of the items, each with its status.")
        var json = false

        func run() throws {
            let now = Date()
            let items = try policy.store.load().items
            if json {
                try JSONOutput.print(items.map { ListedItem(item: $0, status: $0.status(at: now)) })
                return
            }
            guard !items.isEmpty else { return }
            let rows = [["ID", "APP", "STATUS", "EXPIRES", "GROUPS", "TYPES", "NAME"]] + items.map { item in
                [item.id, item.app, item.status(at: now), item.expires.map(PolicyDates.format) ?? "never",
                 item.groups.isEmpty ? "any" : item.groups.joined(separator: ","),
                 item.types.isEmpty ? "any" : item.types.joined(separator: ","), item.name]
            }
            let widths = (0..<7).map { column in rows.map { $0[column].count }.max() ?? 0 }
            var text = ""
            for row in rows {
                let cells = row.enumerated().map { column, cell in
                    column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
                }
                text += cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
            }
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Approve an app; prints the new item's id.",
            discussion: """
            APP is a command name or a reverse-DNS id (letters, digits, '.', '_', '-', \
            '+'). Without --group or --type the app may receive files of any group or \
            type. An app that already has an item is refused (exit 1): change it with update.
            """)

        @OptionGroup var policy: PolicyFileOption
        @OptionGroup var item: ItemOptions

        @Argument(help: ArgumentHelp("The app to approve.", valueName: "app"))
        var app: String

        func run() throws {
            let now = Date()
            let added = try policy.storeForChange().add(app: app, try item.edit(now: now))
            print(added.id)
            item.warnIfExpired(added, now: now)
        }
    }

    enum EnabledState: String, EnumerableFlag {
        case enable, disable
        static func help(for value: EnabledState) -> ArgumentHelp? {
            value == .enable ? "Enable the item." : "Disable the item (it denies until enabled)."
        }
    }

    struct Update: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change an item, named by its app or its id.",
            discussion: """
            Only the options given change. --group and --type replace the whole list \
            (give every value again to extend it); --clear-groups and --clear-types empty \
            it, which means any group or type; --no-expiry removes the expiry. A run that \
            changes nothing writes and logs nothing.
            """)

        @OptionGroup var policy: PolicyFileOption
        @OptionGroup var item: ItemOptions

        @Flag(help: "Enable or disable the item.")
        var state: EnabledState?

        @Flag(help: "Allow files of any group.")
        var clearGroups = false

        @Flag(help: "Allow files of any type.")
        var clearTypes = false

        @Flag(help: "Remove the expiry.")
        var noExpiry = false

        @Argument(help: ArgumentHelp("The item's app or id.", valueName: "app|id"))
        var reference: String

        func check() throws {
            if clearGroups && !item.groups.isEmpty { throw ToolError.usage("--clear-groups can't be combined with --group") }
            if clearTypes && !item.types.isEmpty { throw ToolError.usage("--clear-types can't be combined with --type") }
            if noExpiry && item.expires != nil { throw ToolError.usage("--no-expiry can't be combined with --expires") }
        }

        func run() throws {
            var edit = try item.edit(now: Date())
            if clearGroups { edit.groups = [] }
            if clearTypes { edit.types = [] }
            if noExpiry { edit.expires = .some(nil) }
            if let state { edit.enabled = state == .enable }
            guard !edit.isEmpty else {
                throw ToolError.usage("nothing to change", hints: ["give --name, --group, --type, --expires, --enable, --disable, --clear-groups, --clear-types or --no-expiry"])
            }
            let (updated, _) = try policy.storeForChange().update(reference, edit)
            item.warnIfExpired(updated, now: Date())
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an item, named by its app or its id.")

        @OptionGroup var policy: PolicyFileOption

        @Argument(help: ArgumentHelp("The item's app or id.", valueName: "app|id"))
        var reference: String

        func run() throws {
            try policy.storeForChange().remove(reference)
        }
    }

    struct Check: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decide whether APP may receive a file: exit 0 allowed, 1 denied.",
            discussion: """
            Denied, the reason goes to stderr: not approved, disabled, expired, group not \
            allowed, file type not allowed. An item restricted to groups denies a file \
            without a group; one restricted to types denies a file without a type. \
            --file takes the type from the path's extension (report.PDF is pdf; the file \
            need not exist). With --json, stdout carries {"allowed", "app", "reason", \
            "message", "item"} and stderr nothing.
            """)

        @OptionGroup var policy: PolicyFileOption

        @Option(help: ArgumentHelp("The group the file belongs to.", valueName: "group"))
        var group: String?

        @Option(help: ArgumentHelp("The file to release; its extension is the type.", valueName: "path"))
        var file: String?

        @Option(name: .customLong("type"), help: ArgumentHelp("The file type (extension, e.g. pdf).", valueName: "ext"))
        var type: String?

        @Option(help: ArgumentHelp("Decide as at this ISO 8601 time instead of now.", valueName: "time"))
        var at: String?

        @Flag(help: "Print the decision as JSON.")
        var json = false

        @Argument(help: ArgumentHelp("The app that is to receive the file.", valueName: "app"))
        var app: String

        func check() throws {
            if file != nil && type != nil { throw ToolError.usage("--file and --type can't be combined", hints: ["--file takes the type from the file's extension"]) }
        }

        func run() throws {
            let date = try at.map { try PolicyDates.parseInstant($0, what: "time for --at") } ?? Date()
            let fileType = file.flatMap(PolicyRequest.fileType(ofPath:)) ?? type.map(PolicyRequest.normalizedType)
            let request = PolicyRequest(app: app, group: group, fileType: fileType, date: date)
            let document = try policy.store.load()
            let decision = document.decide(request)
            if json {
                var result = CheckResult(allowed: decision.isAllowed, app: app)
                switch decision {
                case let .allowed(id):
                    result.item = document.items.first { $0.id == id }
                case let .denied(denial):
                    result.reason = denial.reason.rawValue
                    result.message = denial.description
                    result.item = denial.itemID.flatMap { id in document.items.first { $0.id == id } }
                }
                try JSONOutput.print(result)
            } else if case let .denied(denial) = decision {
                Diagnostics.info("denied: \(denial.description)")
            }
            if !decision.isAllowed { throw ExitCode(ExitStatus.no.rawValue) }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the policy (the file's format) to stdout or -o FILE.",
            discussion: "With -o, FILE appears only when it is written whole. A missing policy exports as an empty one.")

        @OptionGroup var policy: PolicyFileOption

        @Option(name: .shortAndLong, help: ArgumentHelp("Write to FILE instead of stdout.", valueName: "file"))
        var output: String?

        func run() throws {
            let bytes = PolicyCodec.encode(try policy.store.load())
            let out = try ToolIO.openOutput(output, binary: false)
            try out.sink.write(bytes)
            try out.commit()
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge a policy file (as export writes it) into the policy, by app.",
            discussion: """
            An app already in the policy takes the file's name, groups, types, expiry and \
            enabled flag and keeps its id; a new app is added (with a fresh id if its id \
            is taken). Apps only in the policy stay, unless --replace, which makes the \
            policy exactly the file. The file is checked whole first: one bad line and \
            nothing is written. Each changed item is logged. A summary goes to stderr \
            (stdout with --json).
            """)

        @OptionGroup var policy: PolicyFileOption

        @Flag(help: "Make the policy exactly FILE: remove the apps it does not list.")
        var replace = false

        @Flag(help: "Print the summary (added, updated, removed, unchanged) as JSON.")
        var json = false

        @Argument(help: ArgumentHelp("The file to import ('-' for stdin).", valueName: "file"))
        var file: String

        func run() throws {
            let name = file == "-" ? "standard input" : file
            let bytes = try ToolIO.openInput(file).readAll()
            let incoming = try PolicyCodec.decode(bytes, source: name)
            let summary = try policy.storeForChange().importDocument(incoming, replace: replace, source: name)
            if json {
                try JSONOutput.print(summary)
            } else {
                Diagnostics.info("imported \(name): \(summary.added) added, \(summary.updated) updated, \(summary.removed) removed, \(summary.unchanged) unchanged")
            }
        }
    }

    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show who changed what, when (the log PATH.log beside the policy).",
            discussion: "One line per changed item, oldest first: time, user(uid), action, app, id, the fields set, and the import it came from.")

        @OptionGroup var policy: PolicyFileOption

        @Flag(help: "Print a JSON array of the log entries.")
        var json = false

        func run() throws {
            let entries = try policy.store.log()
            if json {
                try JSONOutput.print(entries)
                return
            }
            var text = ""
            for e in entries {
                text += "\(PolicyDates.format(e.time))  \(e.user)(\(e.uid))  \(e.action.rawValue)  \(e.app)  \(e.id)  \(e.fields.joined(separator: ","))"
                if let via = e.via { text += "  (\(via))" }
                text += "\n"
            }
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }
}

/// An item in `list --json`: its stored fields and its status now.
struct ListedItem: Encodable {
    let item: PolicyItem
    let status: String
    enum Key: String, CodingKey { case status }
    func encode(to encoder: Encoder) throws {
        try item.encode(to: encoder)
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(status, forKey: .status)
    }
}

/// `check --json`: every key present, null when it does not apply.
struct CheckResult: Encodable {
    var allowed: Bool
    var app: String
    var reason: String?
    var message: String?
    var item: PolicyItem?
    enum CodingKeys: String, CodingKey { case allowed, app, reason, message, item }
    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(allowed, forKey: .allowed)
        try c.encode(app, forKey: .app)
        try c.encode(reason, forKey: .reason)
        try c.encode(message, forKey: .message)
        try c.encode(item, forKey: .item)
    }
}
