#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol

/// The relay's cloud routes. Paths are `/`-separated names from the root (`/docs/a.pdf`);
/// each name is percent-escaped on the way, so any valid name travels unchanged.
extension RelayClient {
    /// `/docs/a b.pdf` → `/v1/cloud/docs/a%20b.pdf` (`base` is the route).
    static func cloudRoute(_ path: String, base: String = RelayPaths.cloud) -> String {
        let names = path.split(separator: "/").map { name in
            percentEscaped(String(name), keeping: "._-~")
        }
        return names.isEmpty ? base : base + "/" + names.joined(separator: "/")
    }

    /// The entries of a folder (a file's path answers with its content: use `cloudEntry`).
    public func cloudList(_ folder: String) async throws -> [CloudEntry] {
        try await call(.GET, Self.cloudRoute(folder), as: [CloudEntry].self)
    }

    /// The entry at `path` (nil for the root), from its parent's listing.
    public func cloudEntry(_ path: String) async throws -> CloudEntry? {
        let names = path.split(separator: "/").map(String.init)
        guard let name = names.last else { return nil }
        let parent = "/" + names.dropLast().joined(separator: "/")
        guard let entry = try await cloudList(parent).first(where: { $0.name == name }) else {
            throw RelayClientError.rejected(status: 404, code: "not_found", message: "no such file or folder \"\(path)\"")
        }
        return entry
    }

    /// The entry at `path`, or nil when nothing is there (nor its parent folder).
    public func cloudLookup(_ path: String) async throws -> CloudEntry? {
        do {
            return try await cloudEntry(path)
        } catch RelayClientError.rejected(404, _, _) {
            return nil
        }
    }

    public func cloudMakeFolder(_ path: String) async throws -> CloudEntry {
        try await call(.POST, Self.cloudRoute(path), body: CloudFolderCreate(), as: CloudEntry.self)
    }

    public func cloudPut(_ path: String, _ body: CloudPut) async throws -> CloudEntry {
        try await call(.PUT, Self.cloudRoute(path), body: body, as: CloudEntry.self)
    }

    public func cloudMove(_ path: String, to: String) async throws -> CloudEntry {
        try await call(.PATCH, Self.cloudRoute(path), body: CloudMove(to: to), as: CloudEntry.self)
    }

    public func cloudDelete(_ path: String) async throws {
        _ = try await send(.DELETE, Self.cloudRoute(path))
    }

    func cloudReplaceHeader(_ path: String, _ body: CloudHeaderReplace) async throws -> CloudEntry {
        try await call(.PUT, Self.cloudRoute(path, base: RelayPaths.cloudHeader), body: body, as: CloudEntry.self)
    }

    /// The versions of the file at `path` now (from before a move too) and of what was at
    /// that path before, newest first (issue 50).
    public func cloudLog(_ path: String) async throws -> [CloudVersion] {
        try await call(.GET, Self.cloudRoute(path, base: RelayPaths.cloudLog), as: [CloudVersion].self)
    }

    /// The removed files, each by its last version, newest removal first.
    public func cloudTrash() async throws -> [CloudVersion] {
        try await call(.GET, RelayPaths.cloudTrash, as: [CloudVersion].self)
    }

    /// Puts the file at `path` (a folder's tree with `recursive`) back as it was at a time.
    public func cloudRestore(_ path: String, _ body: CloudRestore) async throws -> CloudRestored {
        try await call(.POST, Self.cloudRoute(path, base: RelayPaths.cloudRestore), body: body, as: CloudRestored.self)
    }

    /// The route of one version's content (`CloudVersion.id`; GET, with Range).
    static func cloudVersionRoute(_ id: String) -> String {
        RelayPaths.cloudVersion + "/" + percentEscaped(id, keeping: "._-~")
    }

    public func cloudUsage() async throws -> CloudUsage {
        try await call(.GET, RelayPaths.cloudUsage, as: CloudUsage.self)
    }

    /// The first `count` bytes of a cloud file (its age header, for a rekey).
    func cloudPrefix(_ path: String, count: Int64) async throws -> [UInt8] {
        try await prefix(Self.cloudRoute(path), count: count)
    }

    /// The first `count` bytes of an earlier version's content (`CloudVersion.id`).
    func cloudVersionPrefix(_ id: String, count: Int64) async throws -> [UInt8] {
        try await prefix(Self.cloudVersionRoute(id), count: count)
    }

    func prefix(_ route: String, count: Int64) async throws -> [UInt8] {
        let response = try await execute(request(.GET, route, headers: [("Range", "bytes=0-\(count - 1)")]), timeout: .seconds(120))
        return try await collect(response, limit: Int(count) + 1)
    }

    /// Every earlier version whose content the relay keeps, newest first (issue 50: what a
    /// rekey covers besides the files).
    func cloudKeptVersions() async throws -> [CloudVersion] {
        try await call(.GET, RelayPaths.cloudVersions, as: [CloudVersion].self)
    }

    /// A new age header for an earlier version; answers every earlier version now on the
    /// new blob (those that shared its old one too).
    func cloudReplaceVersionHeader(_ id: String, _ body: CloudHeaderReplace) async throws -> [CloudVersion] {
        try await call(.PUT, RelayPaths.cloudVersionHeader + "/" + Self.percentEscaped(id, keeping: "._-~"), body: body, as: [CloudVersion].self)
    }
}
