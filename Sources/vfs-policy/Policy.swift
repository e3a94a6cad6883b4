import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore

@main
struct Policy: AsyncVFSCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-policy",
        abstract: "The approved-apps list: which apps may receive files, of which groups and types, until when.",
        discussion: PolicyHelp.overview,
        version: vfsVersion,
        subcommands: [List.self, Add.self, Update.self, Remove.self, Check.self, Export.self, Import.self, Log.self,
                      Sync.self, Grace.self])
}

/// `--policy PATH` and `--relay`, shared by every subcommand that reads or changes the list.
struct PolicyFileOption: ParsableArguments {
    @Option(name: .customLong("policy"), help: ArgumentHelp("The policy file (default: $VFS_POLICY, else $VFS_HOME/policy.json).", valueName: "path"), completion: .file())
    var path: String?

    @Flag(name: .customLong("relay"), help: "Use the organisation's list on the relay (reads: this device's copy; changes: the relay, admins only).")
    var relay = false

    /// The source reads and checks use (PolicyChoice: --relay, --policy, $VFS_POLICY, then config.json).
    var source: PolicySource {
        get throws {
            if relay && path != nil {
                throw ToolError.usage("--relay and --policy can't be combined", hints: ["--relay uses the organisation's list, --policy a local file"])
            }
            return try PolicyChoice.source(relay: relay, file: path)
        }
    }

    /// Whether the list is the relay's (given --relay, or chosen by config.json).
    var isRelay: Bool { get throws { try source is RelayPolicyCache } }

    var store: PolicyStore {
        get throws {
            guard let store = try source as? PolicyStore else {
                throw ToolError.usage("the relay keeps the organisation's policy and its audit log; this command works on a local policy file",
                                      hints: ["name a file with --policy PATH, or set policy.source to file in $VFS_HOME/config.json"])
            }
            return store
        }
    }

    /// The store, with its folder created (0700) if missing, for a change.
    func storeForChange() throws -> PolicyStore {
        let store = try self.store
        let folder = PathText.parent(store.path)
        if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
            try PrivateFolder.make(folder)
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
