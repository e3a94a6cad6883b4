#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The fields a command sets on an item; nil leaves a field as it is.
public struct PolicyEdit: Sendable, Equatable {
    public var name: String?
    /// Replaces the whole list ([] = any group).
    public var groups: [String]?
    /// Replaces the whole list ([] = any type); values are normalised ("PDF", ".pdf" → "pdf").
    public var types: [String]?
    /// `.some(nil)` removes the expiry.
    public var expires: Date??
    public var enabled: Bool?

    public init(name: String? = nil, groups: [String]? = nil, types: [String]? = nil,
                expires: Date?? = nil, enabled: Bool? = nil) {
        self.name = name
        self.groups = groups
        self.types = types
        self.expires = expires
        self.enabled = enabled
    }

    public var isEmpty: Bool { self == PolicyEdit() }

    /// Checks the values; throws `PolicyError.invalidValue` for the first bad one.
    public func validate() throws {
        for group in groups ?? [] { try PolicyRules.checkGroup(group) }
        for type in types ?? [] { try PolicyRules.checkType(PolicyRequest.normalizedType(type)) }
    }

    /// Applies the edit; returns the names of the fields whose value changed.
    public func apply(to item: inout PolicyItem) -> [String] {
        var changed = [String]()
        if let name, name != item.name { item.name = name; changed.append("name") }
        if let groups {
            let list = Self.unique(groups)
            if list != item.groups { item.groups = list; changed.append("groups") }
        }
        if let types {
            let list = Self.unique(types.map(PolicyRequest.normalizedType))
            if list != item.types { item.types = list; changed.append("types") }
        }
        if let expires, expires != item.expires { item.expires = expires; changed.append("expires") }
        if let enabled, enabled != item.enabled { item.enabled = enabled; changed.append("enabled") }
        return changed
    }

    static func unique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }
}

/// What an import changed.
public struct PolicyImportSummary: Sendable, Equatable, Encodable {
    public var added = 0
    public var updated = 0
    public var removed = 0
    public var unchanged = 0
    public init(added: Int = 0, updated: Int = 0, removed: Int = 0, unchanged: Int = 0) {
        self.added = added
        self.updated = updated
        self.removed = removed
        self.unchanged = unchanged
    }
}

/// The local store (`$VFS_POLICY`, else `$VFS_HOME/policy.json`): load, change under
/// lock, decide.
///
/// Every change takes the exclusive lock (`PATH.lock`), re-reads the file, applies the
/// change, writes the whole file atomically (temporary file, fsync, rename, fsync of
/// the folder), appends to the log (`PATH.log`), then releases the lock: two changes
/// that race are applied one after the other and neither is lost. Reads take the lock
/// shared, or read without it when the lock file cannot be created (a policy in a
/// folder the user may only read); the rename keeps such a read whole. A file that
/// does not parse stops every read and change with `PolicyError.corrupt` (exit 65): it
/// is never replaced.
public final class PolicyStore: PolicySource, Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The change log beside the policy.
    var logPath: String { path + ".log" }

    /// The policy; a missing file is an empty policy.
    public func load() throws -> PolicyDocument {
        try withLock(exclusive: false) { try readDocument() }
    }

    /// The decision for `request`: a missing file denies (`.notApproved`), a corrupt one throws.
    public func decide(_ request: PolicyRequest) throws -> PolicyDecision {
        try snapshot().decide(request)
    }

    /// The change log, oldest first.
    public func log() throws -> [PolicyLogEntry] {
        try withLock(exclusive: false) { try PolicyLogFile.read(logPath) }
    }

    /// Approves `app`. Throws `.alreadyApproved` if it has an item.
    @discardableResult
    public func add(app: String, _ edit: PolicyEdit, by actor: PolicyActor = .current, now: Date = Date()) throws -> PolicyItem {
        try PolicyRules.checkApp(app)
        try edit.validate()
        return try change { document in
            if let existing = document.item(forApp: app) {
                throw PolicyError.alreadyApproved(app: app, id: existing.id)
            }
            if document.items.contains(where: { $0.id == app }) {
                throw PolicyError.appIsAnotherItemsID(app)
            }
            let time = Self.wholeSeconds(now)
            var item = PolicyItem(id: try Self.newID(in: document), app: app, created: time, updated: time)
            _ = edit.apply(to: &item)
            document.items.append(item)
            return (item, [PolicyLogEntry(time: time, actor: actor, action: .add, item: item, fields: Self.fields(of: item))])
        }
    }

    /// Changes the item whose app or id is `reference`; returns it and the fields that changed
    /// (none: nothing is written or logged).
    @discardableResult
    public func update(_ reference: String, _ edit: PolicyEdit, by actor: PolicyActor = .current,
                       now: Date = Date()) throws -> (item: PolicyItem, changed: [String]) {
        try edit.validate()
        return try change { document in
            guard let index = document.index(matching: reference) else {
                throw PolicyError.noSuchItem(reference)
            }
            var item = document.items[index]
            let changed = edit.apply(to: &item)
            guard !changed.isEmpty else { return ((item, []), []) }
            let time = Self.wholeSeconds(now)
            item.updated = time
            document.items[index] = item
            return ((item, changed), [PolicyLogEntry(time: time, actor: actor, action: .update, item: item, fields: changed)])
        }
    }

    /// Removes the item whose app or id is `reference`; returns it.
    @discardableResult
    public func remove(_ reference: String, by actor: PolicyActor = .current, now: Date = Date()) throws -> PolicyItem {
        try change { document in
            guard let index = document.index(matching: reference) else {
                throw PolicyError.noSuchItem(reference)
            }
            let item = document.items.remove(at: index)
            return (item, [PolicyLogEntry(time: Self.wholeSeconds(now), actor: actor, action: .remove, item: item, fields: Self.fields(of: item))])
        }
    }

    /// Merges `incoming` by app: an app already present takes the incoming fields (name,
    /// groups, types, expires, enabled) and keeps its id; a new app is added with its
    /// id (a fresh one if that id is taken). With `replace`, the policy becomes exactly
    /// `incoming`. The result is checked whole before anything is written.
    /// - Parameter source: how the log names the import (e.g. the file's name).
    @discardableResult
    /// - Parameters:
    ///   - handWritten: apps whose items gave no id: with `replace` they keep the id and
    ///     creation time they have.
    ///   - dryRun: work out the summary; write and log nothing.
    public func importDocument(_ incoming: PolicyDocument, replace: Bool, source: String, handWritten: Set<String> = [],
                               dryRun: Bool = false,
                               by actor: PolicyActor = .current, now: Date = Date()) throws -> PolicyImportSummary {
        let via = "import \(source)"
        let time = Self.wholeSeconds(now)
        return try change { document in
            var summary = PolicyImportSummary()
            var entries = [PolicyLogEntry]()
            var result = replace ? [] : document.items
            for var item in incoming.items {
                if let old = document.item(forApp: item.app) {
                    var merged = old
                    let changed = PolicyEdit(name: item.name, groups: item.groups, types: item.types,
                                             expires: .some(item.expires), enabled: item.enabled).apply(to: &merged)
                    if replace {
                        // The policy becomes the file: its id and times too (a hand-written
                        // item, which has neither, keeps the ones it has).
                        merged = item
                        if handWritten.contains(item.app) {
                            merged.id = old.id
                            merged.created = old.created
                            merged.updated = changed.isEmpty ? old.updated : time
                        }
                    } else if !changed.isEmpty {
                        merged.updated = time
                    }
                    if let index = result.firstIndex(where: { $0.app == item.app }) { result[index] = merged } else { result.append(merged) }
                    if changed.isEmpty && merged.id == old.id {
                        summary.unchanged += 1
                    } else {
                        summary.updated += 1
                        entries.append(PolicyLogEntry(time: time, actor: actor, action: .update, item: merged,
                                                      fields: changed.isEmpty ? ["id"] : changed, via: via))
                    }
                } else {
                    if !replace, result.contains(where: { $0.id == item.id || $0.app == item.id }) {
                        item.id = try Self.newID(in: PolicyDocument(items: result + incoming.items))
                    }
                    result.append(item)
                    summary.added += 1
                    entries.append(PolicyLogEntry(time: time, actor: actor, action: .add, item: item, fields: Self.fields(of: item), via: via))
                }
            }
            if replace {
                for old in document.items where incoming.item(forApp: old.app) == nil {
                    summary.removed += 1
                    entries.append(PolicyLogEntry(time: time, actor: actor, action: .remove, item: old, fields: Self.fields(of: old), via: via))
                }
            }
            let merged = PolicyDocument(items: result)
            do {
                try PolicyRules.check(merged)
            } catch let error as PolicyRuleViolation {
                throw PolicyError.importConflict(source: source, reason: error.reason)
            }
            if dryRun { return (summary, []) }
            document = merged
            return (summary, entries)
        }
    }

    // MARK: - the change protocol

    /// Lock exclusively, re-read, apply `body`, write atomically, log, unlock.
    /// `body` returns its result and the log entries; no entries means nothing changed
    /// and nothing is written.
    /// The policy is written before the log: a log that cannot be appended fails the
    /// command (exit 74) with the change already made, never a log line for a change
    /// that did not happen.
    func change<R>(_ body: (inout PolicyDocument) throws -> (R, [PolicyLogEntry])) throws -> R {
        var logged: [PolicyLogEntry] = []
        // A new policy is private (0600), as its log and its lock; an existing one keeps its mode.
        return try LockedDocumentStore(path: path, lockMode: 0o600).update(mode: nil, newFileMode: 0o600, read: readDocument, change: { current in
            var document = current
            let (result, entries) = try body(&document)
            logged = entries
            return (result, entries.isEmpty ? nil : try PolicyCodec.encode(document))
        }, afterCommit: { try PolicyLogFile.append(logged, to: logPath) })
    }

    private func withLock<R>(exclusive: Bool, _ body: () throws -> R) throws -> R {
        let lock: FileLock
        do {
            // A reader never creates the lock file (vfs-policy list writes nothing).
            lock = try FileLock(for: path, exclusive: exclusive, mode: 0o600, create: exclusive)
        } catch let error as IOError where !exclusive && [ENOENT, ENOTDIR, EACCES, EPERM, EROFS].contains(error.code) {
            // No lock file (no writer ran here yet), no folder yet (so no policy), or a
            // folder we may only read: the rename that every writer does keeps an
            // unlocked read whole.
            return try body()
        }
        defer { lock.unlock() }
        return try body()
    }

    private func readDocument() throws -> PolicyDocument {
        guard let bytes = try Self.readIfPresent(path) else { return PolicyDocument() }
        return try PolicyCodec.decode(bytes, source: path)
    }

    /// The file's bytes, or nil if it does not exist.
    static func readIfPresent(_ path: String) throws -> [UInt8]? {
        let source: FileDescriptorSource
        do {
            source = try FileDescriptorSource(path: path)
        } catch let error as IOError where error.code == ENOENT {
            return nil
        }
        return try source.readAll()
    }

    static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }

    /// 8 random lowercase hex digits, unused as an id or an app in `document`.
    static func newID(in document: PolicyDocument) throws -> String {
        while true {
            let id = try SecureRandom.bytes(4).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            if !document.items.contains(where: { $0.id == id || $0.app == id }) { return id }
        }
    }

    static func fields(of item: PolicyItem) -> [String] {
        var fields = ["app", "name", "groups", "types", "enabled"]
        if item.expires != nil { fields.append("expires") }
        return fields
    }
}
