import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore
import VFSRelayClient
import VFSRelayCommandLine
import VFSRelayProtocol

/// Where a write through the relay finds this device's token: the keychain (its agent,
/// else the passcode), or `--token-file`.
struct RelayTokenOptions: ParsableArguments {
    @Option(name: .customLong("token-file"), help: ArgumentHelp("With the relay, read the device's token from PATH instead of the keychain.", valueName: "path"), completion: .file())
    var tokenFile: String?

    @OptionGroup var passcode: PasscodeOptions

    /// This device's relay session (config and token).
    func session() throws -> RelaySession {
        let paths = VFSPaths.current
        let file = passcode.passcodeFile, fd = passcode.passcodeFD
        let place = CredentialPlace(tokenFile: tokenFile, identityFile: nil, keychainPath: try paths.keychain, passcode: {
            try KeychainSession.readPasscode(SecretSource(file: file, fd: fd, noun: "passcode", environmentVariable: "VFS_PASSCODE"), locked: true)
        })
        return try RelaySession.open(home: try paths.home, place: place, identity: false)
    }
}

/// The organisation's list on the relay, as vfs-policy changes it: every change reads
/// the item, applies the command's edit and writes it with `If-Match`; a 412 (another
/// admin changed it in between) reads it again, says so, and applies the edit to the new
/// version, so two admins' racing changes both land. Afterwards this device's copy
/// (RelayPolicyCache) is refreshed.
struct RelayPolicyEditor {
    let client: RelayClient
    let cache: RelayPolicyCache
    /// Reads and writes of one item before giving up (exit 75).
    static let attempts = 5

    /// Runs `body` against the relay of this device, then refreshes the copy. A 403 is
    /// the admins-only rule (exit 77).
    static func run<R>(_ options: RelayTokenOptions, _ body: (RelayPolicyEditor) async throws -> R) async throws -> R {
        let session = try options.session()
        let cache = try RelayPolicyCache(paths: .current)
        return try await session.withClient { client in
            let editor = RelayPolicyEditor(client: client, cache: cache)
            let result: R
            do {
                result = try await body(editor)
            } catch RelayClientError.rejected(403, _, _) {
                throw ToolError("only an administrator of the organisation can change its policy on the relay", exit: .permissionDenied,
                                hints: ["nothing was changed; ask an admin of the organisation, or use a local policy with --policy PATH"])
            }
            do {
                try await RelayPolicySync.refresh(client: client, cache: cache)
            } catch let error as ReportableError {
                Diagnostics.warn("the change was made, but this device's copy was not refreshed: \(error.description)")
            }
            return result
        }
    }

    /// The item whose app or id is `reference`, with its ETag; `.noSuchItem` (exit 1) without one.
    func read(_ reference: String) async throws -> (item: PolicyItem, etag: String) {
        let listing = try await client.policyList()
        guard let found = PolicyDocument(items: listing.items).item(matching: reference) else {
            throw PolicyError.noSuchItem(reference)
        }
        do {
            return try await client.policyItem(found.id)
        } catch RelayClientError.rejected(404, _, _) {
            throw PolicyError.noSuchItem(reference)
        }
    }

    func add(app: String, _ edit: PolicyEdit, now: Date) async throws -> PolicyItem {
        var item = PolicyItem(id: "new", app: app, created: now, updated: now)
        _ = edit.apply(to: &item)
        do {
            return try await client.createItem(Self.draft(item))
        } catch RelayClientError.rejected(409, _, _) {
            let existing = try? await read(app)
            throw PolicyError.alreadyApproved(app: app, id: existing?.item.id ?? "on the relay")
        }
    }

    /// Applies `edit` to the item's current version; returns it and the fields that
    /// changed (none: nothing is written).
    func update(_ reference: String, _ edit: PolicyEdit) async throws -> (item: PolicyItem, changed: [String]) {
        for attempt in 1...Self.attempts {
            let (current, etag) = try await read(reference)
            var item = current
            let changed = edit.apply(to: &item)
            guard !changed.isEmpty else { return (item, []) }
            if attempt == 1 { TestHook.afterRead() }
            do {
                return (try await client.updateItem(item.id, Self.draft(item), ifMatch: etag), changed)
            } catch RelayClientError.rejected(412, _, _) {
                Self.sayChanged(current)
            } catch RelayClientError.rejected(404, _, _) {
                throw PolicyError.noSuchItem(reference)
            }
        }
        throw Self.tooBusy(reference)
    }

    func remove(_ reference: String) async throws -> PolicyItem {
        for attempt in 1...Self.attempts {
            let (current, etag) = try await read(reference)
            if attempt == 1 { TestHook.afterRead() }
            do {
                try await client.deleteItem(current.id, ifMatch: etag)
                return current
            } catch RelayClientError.rejected(412, _, _) {
                Self.sayChanged(current)
            } catch RelayClientError.rejected(404, _, _) {
                throw PolicyError.noSuchItem(reference)
            }
        }
        throw Self.tooBusy(reference)
    }

    /// Merges `incoming` by app, as the local import does: an app on the relay takes the
    /// file's fields, a new app is added (the relay gives it an id), and with `replace`
    /// apps the file does not list are removed. Each item is one request: a failure
    /// part way leaves the items before it changed (the summary is not printed). With
    /// `dryRun` the summary is worked out against the relay's list and nothing is sent.
    func importDocument(_ incoming: PolicyDocument, replace: Bool, dryRun: Bool = false) async throws -> PolicyImportSummary {
        var summary = PolicyImportSummary()
        let listing = try await client.policyList()
        let existing = PolicyDocument(items: listing.items)
        for item in incoming.items {
            if existing.item(forApp: item.app) != nil {
                let edit = PolicyEdit(name: item.name, groups: item.groups, types: item.types, expires: .some(item.expires), enabled: item.enabled)
                let changed: [String]
                if dryRun, var copy = existing.item(forApp: item.app) {
                    changed = edit.apply(to: &copy)
                } else {
                    changed = try await update(item.app, edit).changed
                }
                if changed.isEmpty { summary.unchanged += 1 } else { summary.updated += 1 }
            } else {
                if !dryRun { _ = try await client.createItem(Self.draft(item)) }
                summary.added += 1
            }
        }
        if replace {
            for old in existing.items where incoming.item(forApp: old.app) == nil {
                if !dryRun { _ = try await remove(old.id) }
                summary.removed += 1
            }
        }
        return summary
    }

    static func draft(_ item: PolicyItem) -> ItemDraft {
        ItemDraft(app: item.app, name: item.name, groups: item.groups, types: item.types, expires: item.expires, enabled: item.enabled)
    }

    static func sayChanged(_ item: PolicyItem) {
        Diagnostics.info("\"\(item.app)\" (item \(item.id)) was changed on the relay by someone else since it was read (412); reading it again and applying this change to the new version")
    }

    static func tooBusy(_ reference: String) -> ToolError {
        ToolError("\"\(reference)\" kept changing on the relay while this change was being made (412 \(attempts) times); this change was not written",
                  exit: .temporaryFailure, hints: ["run the command again"])
    }
}

/// For the test suite only (refused unless VFS_TEST_HOOKS=1): `VFS_TEST_AFTER_READ`, a
/// shell command run once between reading an item and writing it back, so a test can
/// make another admin's change land in between and see the 412 and the retry.
enum TestHook {
    static func afterRead() {
        let environment = ProcessInfo.processInfo.environment
        guard environment["VFS_TEST_HOOKS"] == "1", let command = environment["VFS_TEST_AFTER_READ"], !command.isEmpty else { return }
        var child = environment
        child["VFS_TEST_AFTER_READ"] = nil
        do {
            _ = try ShellCommand.run(command, environment: child)
        } catch {
            Diagnostics.warn("VFS_TEST_AFTER_READ: \(error)")
        }
    }
}

extension Policy {
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Refresh this device's copy of the organisation's policy from the relay.",
            discussion: PolicyHelp.sync)

        @OptionGroup var token: RelayTokenOptions

        @Flag(help: "Print where the copy came from (relay, revision, fetched, grace) and its item count as JSON.")
        var json = false

        func run() async throws {
            let session = try token.session()
            let cache = try RelayPolicyCache(paths: .current)
            let origin = try await session.withClient { client in
                try await RelayPolicySync.refresh(client: client, cache: cache)
            }
            let count = try cache.load().items.count
            if json {
                struct Summary: Encodable { var relay: RelayPolicyOrigin; var items: Int; var trustedUntil: Date }
                try JSONOutput.print(Summary(relay: origin, items: count, trustedUntil: origin.trustedUntil))
            } else {
                Diagnostics.info("synced \(count) item\(count == 1 ? "" : "s") (revision \(origin.revision)) from \(origin.url); checks answer from this copy until \(PolicyDates.format(origin.trustedUntil))")
            }
        }
    }

    struct Grace: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "grace",
            abstract: "Show or set (admins) the organisation's offline grace on the relay.",
            discussion: PolicyHelp.grace)

        @OptionGroup var token: RelayTokenOptions

        @Flag(help: "Print {\"graceSeconds\": N} as JSON.")
        var json = false

        @Argument(help: ArgumentHelp("The new grace: a duration such as 72h or 7d (one minute to 366 days).", valueName: "duration"))
        var duration: String?

        func run() async throws {
            let wanted = try duration.map { Int64(try DurationText.seconds($0)) }
            if let wanted, !PolicySettings.graceRange.contains(wanted) {
                throw ToolError.usage("grace \"\(duration!)\" is out of range", hints: ["give one minute (1m) to 366 days (366d)"])
            }
            let settings = try await RelayPolicyEditor.run(token) { editor in
                if let wanted { return try await editor.client.setPolicySettings(PolicySettings(graceSeconds: wanted)) }
                return try await editor.client.policySettings()
            }
            if json {
                try JSONOutput.print(settings)
            } else {
                try StandardOutput.write(DurationText.format(seconds: Int(settings.graceSeconds)) + "\n")
            }
        }
    }
}
