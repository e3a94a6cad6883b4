#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Where a cached copy of the organisation's list came from, and how long it may be
/// trusted: the relay, the list's revision (its ETag), when it was fetched and the
/// organisation's offline grace.
public struct RelayPolicyOrigin: Codable, Sendable, Equatable {
    /// The relay's base URL.
    public var url: String
    /// The organisation's items revision the list was read at (`"r12"`).
    public var revision: String
    /// When this device last fetched the whole list (the last successful sync).
    public var fetched: Date
    /// Seconds after `fetched` during which checks answer from the copy.
    public var graceSeconds: Int64

    public init(url: String, revision: String, fetched: Date, graceSeconds: Int64) {
        self.url = url
        self.revision = revision
        self.fetched = fetched
        self.graceSeconds = graceSeconds
    }

    /// The first instant at which the copy is no longer trusted.
    public var trustedUntil: Date { fetched.addingTimeInterval(TimeInterval(graceSeconds)) }

    enum CodingKeys: String, CodingKey, CaseIterable { case url, revision, fetched, graceSeconds }
    public init(from decoder: Decoder) throws {
        try AnyKey.rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        url = try c.decode(String.self, forKey: .url)
        revision = try c.decode(String.self, forKey: .revision)
        fetched = try c.decode(Date.self, forKey: .fetched)
        graceSeconds = try c.decode(Int64.self, forKey: .graceSeconds)
    }
}

/// The device's copy of its organisation's policy on the relay
/// (`VFSPaths.policyCache/organisation.json`): the policy file's format (`version`,
/// `items`) plus `relay`, the `RelayPolicyOrigin`. Written whole (temporary file,
/// fsync, rename) with mode 0600 by `vfs-policy sync` and `vfs-fetch --watch`; read
/// by every check, which never touches the network.
///
/// Offline grace: a copy answers until `relay.fetched + relay.graceSeconds`; from
/// then on, and when there is no copy at all, every request is denied `policy-stale`,
/// so a device cut off from the relay does not keep old approvals forever. A copy
/// fetched more than `clockTolerance` after this device's clock's now (the clock was
/// set back) is stale too.
public struct RelayPolicyCache: PolicySource, Sendable {
    public static let clockTolerance: TimeInterval = 300
    public let path: String
    /// The time staleness is measured at (`TestClock.now` in the tools).
    public let now: @Sendable () -> Date

    public init(path: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.path = path
        self.now = now
    }

    /// The cache file in `paths.policyCache`.
    public init(paths: VFSPaths) throws {
        self.init(path: try paths.policyCache + "/organisation.json", now: { TestClock.now(paths) })
    }

    struct CacheFile: Codable {
        var version: Int
        var items: [PolicyItem]
        var relay: RelayPolicyOrigin
        enum CodingKeys: String, CodingKey, CaseIterable { case version, items, relay }
        init(version: Int, items: [PolicyItem], relay: RelayPolicyOrigin) {
            self.version = version
            self.items = items
            self.relay = relay
        }
        init(from decoder: Decoder) throws {
            try AnyKey.rejectUnknownKeys(in: decoder, known: CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            version = try c.decode(Int.self, forKey: .version)
            guard version == PolicyDocument.currentVersion else {
                throw DecodingError.dataCorruptedError(forKey: .version, in: c,
                    debugDescription: "unsupported policy format version \(version)")
            }
            items = try c.decode([PolicyItem].self, forKey: .items)
            relay = try c.decode(RelayPolicyOrigin.self, forKey: .relay)
        }
    }

    /// The copy and where it came from; nil when this device has none yet.
    public func read() throws -> (document: PolicyDocument, origin: RelayPolicyOrigin)? {
        guard let bytes = try PolicyStore.readIfPresent(path) else { return nil }
        return try Self.decode(bytes, source: path)
    }

    /// A copy's bytes parsed and checked; `fastPath: false` skips the fast reader (the
    /// reference the tests and the fuzz target hold it to).
    static func decode(_ bytes: [UInt8], source path: String, fastPath: Bool = true) throws -> (document: PolicyDocument, origin: RelayPolicyOrigin) {
        if bytes.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            throw PolicyError.corrupt(file: path, line: 1, column: nil, reason: "the file is empty (truncated?)")
        }
        let file: CacheFile
        if fastPath, let fast = PolicyFastReader.relayCopy(bytes) {
            file = CacheFile(version: PolicyDocument.currentVersion, items: fast.items, relay: fast.relay)
        } else {
            file = try PolicyCodec.decodeValue(bytes, source: path)
        }
        var document = PolicyDocument(items: file.items)
        do {
            try PolicyRules.check(document)
        } catch {
            throw PolicyError.corrupt(file: path, line: JSONLocator.line(of: error.path, in: bytes), column: nil,
                                      reason: "\(PolicyCodec.pathText(error.path)): \(error.reason)")
        }
        document.sort()
        return (document, file.relay)
    }

    /// The cached items (none without a copy), whatever their age: for listing and export.
    public func load() throws -> PolicyDocument {
        try read()?.document ?? PolicyDocument()
    }

    /// The items, and the reason every request is denied when the copy is missing or
    /// past its grace.
    public func snapshot() throws -> PolicySnapshot {
        guard let (document, origin) = try read() else {
            return PolicySnapshot(document: PolicyDocument(),
                                  stale: "this device holds no copy of the organisation's policy yet")
        }
        let now = now()
        // A clock set back must not stretch the grace.
        guard now >= origin.fetched.addingTimeInterval(-Self.clockTolerance) else {
            return PolicySnapshot(document: document, stale:
                "the organisation's policy was synced at \(PolicyDates.format(origin.fetched)), later than this device's clock says it is now (\(PolicyDates.format(now)))")
        }
        guard now < origin.trustedUntil else {
            return PolicySnapshot(document: document, stale:
                "the organisation's policy was last synced at \(PolicyDates.format(origin.fetched)), more than \(DurationText.format(seconds: Int(origin.graceSeconds))) ago (its offline grace)")
        }
        return PolicySnapshot(document: document, stale: nil)
    }

    /// Replaces the copy with a whole fetched list: written atomically, mode 0600, its
    /// folder created 0700 when missing.
    public func save(_ document: PolicyDocument, origin: RelayPolicyOrigin) throws {
        let folder = AtomicOutputFile.folder(of: path)
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw IOError("create folder", path: folder)
        }
        var sorted = document
        sorted.sort()
        let data = try PolicyCodec.encoder(pretty: true).encode(CacheFile(version: sorted.version, items: sorted.items, relay: origin))
        try AtomicOutputFile.write(PolicyCodec.compactingEmptyLists(Array(data)) + [0x0A], to: path, mode: 0o600)
    }
}
