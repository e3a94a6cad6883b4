import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore

extension Policy {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the items (id, app, status, expiry, groups, types, name).",
            discussion: "Status is active, disabled or expired. An expiry given as a date shows as that date (valid through it); --json shows the instant it ends (the next midnight UTC). An empty policy lists nothing.")

        @OptionGroup var policy: PolicyFileOption

        @Flag(help: "Print a JSON array of the items, each with its status.")
        var json = false

        @Flag(help: "Print only the apps of the active items, one a line (for completion).")
        var apps = false

        func run() throws {
            let now = Date()
            let items = try policy.source.load().items
            if apps {
                let names = items.filter { $0.status(at: now) == "active" }.map(\.app)
                try StandardOutput.write(Array(names.map { DisplayText.printable($0) + "\n" }.joined().utf8))
                return
            }
            if json {
                try JSONOutput.print(items.map { ListedItem(item: $0, status: $0.status(at: now)) })
                return
            }
            guard !items.isEmpty else { return }
            let rows = [["ID", "APP", "STATUS", "EXPIRES", "GROUPS", "TYPES", "NAME"]] + items.map { item in
                [item.id, item.app, item.status(at: now), item.expires.map(PolicyDates.displayExpiry) ?? "never",
                 item.groups.isEmpty ? "any" : item.groups.joined(separator: ","),
                 item.types.isEmpty ? "any" : item.types.joined(separator: ","), item.name]
            }
            try StandardOutput.write(TextTable.render(rows))
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Approve an app; prints the new item's id.",
            discussion: PolicyHelp.add)

        @OptionGroup var policy: PolicyFileOption
        @OptionGroup var item: ItemOptions
        @OptionGroup var token: RelayTokenOptions

        @Argument(help: ArgumentHelp("The app to approve.", valueName: "app"))
        var app: String

        func run() async throws {
            let now = Date()
            let edit = try item.edit(now: now)
            let added: PolicyItem
            if try policy.isRelay {
                try PolicyRules.checkApp(app)
                try edit.validate()
                added = try await RelayPolicyEditor.run(token) { try await $0.add(app: app, edit, now: now) }
            } else {
                added = try policy.storeForChange().add(app: app, edit)
            }
            try StandardOutput.write(added.id + "\n")
            item.warnIfExpired(added, now: now)
        }
    }

    enum EnabledState: String, EnumerableFlag {
        case enable, disable
        static func help(for value: EnabledState) -> ArgumentHelp? {
            value == .enable ? "Enable the item." : "Disable the item (it denies until enabled)."
        }
    }

    struct Update: AsyncParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Change an item, named by its app or its id.",
            discussion: PolicyHelp.update)

        @OptionGroup var policy: PolicyFileOption
        @OptionGroup var item: ItemOptions

        @OptionGroup var token: RelayTokenOptions

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

        func run() async throws {
            var edit = try item.edit(now: Date())
            if clearGroups { edit.groups = [] }
            if clearTypes { edit.types = [] }
            if noExpiry { edit.expires = .some(nil) }
            if let state { edit.enabled = state == .enable }
            guard !edit.isEmpty else {
                throw ToolError.usage("nothing to change", hints: ["give --name, --group, --type, --expires, --enable, --disable, --clear-groups, --clear-types or --no-expiry"])
            }
            let updated: PolicyItem
            if try policy.isRelay {
                try edit.validate()
                updated = try await RelayPolicyEditor.run(token) { try await $0.update(reference, edit) }.item
            } else {
                updated = try policy.storeForChange().update(reference, edit).item
            }
            item.warnIfExpired(updated, now: Date())
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove an item, named by its app or its id.")

        @OptionGroup var policy: PolicyFileOption
        @OptionGroup var token: RelayTokenOptions

        @Argument(help: ArgumentHelp("The item's app or id.", valueName: "app|id"))
        var reference: String

        func run() async throws {
            if try policy.isRelay {
                _ = try await RelayPolicyEditor.run(token) { try await $0.remove(reference) }
            } else {
                try policy.storeForChange().remove(reference)
            }
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
