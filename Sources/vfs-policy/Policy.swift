import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore

@main
struct Policy: VFSCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-policy",
        abstract: "The approved-apps list: which apps may receive files, of which groups and types, until when.",
        discussion: PolicyHelp.overview,
        version: vfsVersion,
        subcommands: [List.self, Add.self, Update.self, Remove.self, Check.self, Export.self, Import.self, Log.self])
}

/// `--policy PATH`, shared by every subcommand.
struct PolicyFileOption: ParsableArguments {
    @Option(name: .customLong("policy"), help: ArgumentHelp("The policy file (default: $VFS_POLICY, else $VFS_HOME/policy.json).", valueName: "path"), completion: .file())
    var path: String?

    var store: PolicyStore { get throws { PolicyStore(path: try path ?? VFSPaths.current.policyFile) } }

    /// The store, with its folder created (0700) if missing, for a change.
    func storeForChange() throws -> PolicyStore {
        let store = try self.store
        let folder = (store.path as NSString).deletingLastPathComponent
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
