import VFSCore
import VFSRelayProtocol

/// Cloud paths as people type them: absolute, `/`-separated.
package enum CloudPath {
    /// `docs//a/` → `/docs/a`; `.` and `..` names are refused (64).
    package static func normal(_ text: String) throws -> String {
        let names = text.split(separator: "/").map(String.init)
        if let bad = names.first(where: { $0 == "." || $0 == ".." }) {
            throw CloudError.badPath(text, name: bad)
        }
        return "/" + names.joined(separator: "/")
    }

    package static func join(_ folder: String, _ name: String) -> String { folder == "/" ? "/" + name : folder + "/" + name }

    package static func parent(_ path: String) -> String {
        let names = path.split(separator: "/")
        return "/" + names.dropLast().joined(separator: "/")
    }

    package static func name(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? "" }

    /// 404 → 66, 409 → 73 (exists), 413 → 73 with the quota said plainly.
    package static func mapErrors<R>(_ body: () async throws -> R) async throws -> R {
        do {
            return try await body()
        } catch RelayClientError.rejected(404, _, let message) {
            throw CloudError.notFound(message)
        } catch RelayClientError.rejected(409, _, let message) {
            throw CloudError.conflict(message)
        } catch RelayClientError.rejected(413, _, let message) {
            throw CloudError.overQuota(message)
        } catch RelayClientError.rejected(412, _, let message) {
            throw CloudError.changed(message)
        }
    }
}

/// The cloud's tree as the relay lists it, one folder at a time.
package struct CloudTree {
    let client: RelayClient

    package init(client: RelayClient) { self.client = client }

    /// `root` itself when it is a file; else what is in the folder `root`, and with
    /// `recursive` in its folders too, folder by folder (breadth first).
    package func entries(under root: String, recursive: Bool = true) async throws -> [CloudEntry] {
        try await listing(under: root, recursive: recursive).map(\.entry)
    }

    /// `entries(under:)`, each with the folder whose listing named it.
    package func listing(under root: String, recursive: Bool = true) async throws -> [(folder: String, entry: CloudEntry)] {
        if let entry = try await client.cloudEntry(root), entry.kind == .file { return [(CloudPath.parent(root), entry)] }
        var out: [(folder: String, entry: CloudEntry)] = []
        var pending = [root]
        while !pending.isEmpty {
            let folder = pending.removeFirst()
            let children = try await client.cloudList(folder)
            out += children.map { (folder, $0) }
            if recursive { pending += children.filter { $0.kind == .folder }.map(\.path) }
        }
        return out
    }

    /// Makes `path` and the folders above it that are missing.
    package func makeFolders(_ path: String) async throws {
        var current = "/"
        for name in path.split(separator: "/").map(String.init) {
            let next = CloudPath.join(current, name)
            let existing = try await client.cloudList(current).first { $0.name == name }
            if let existing {
                guard existing.kind == .folder else {
                    throw CloudError.isAFile(next)
                }
            } else {
                do {
                    _ = try await client.cloudMakeFolder(next)
                } catch RelayClientError.rejected(409, _, _) {
                    // Made meanwhile by another device: fine if it is a folder.
                    guard try await client.cloudEntry(next)?.kind == .folder else { throw CloudError.isAFile(next) }
                }
            }
            current = next
        }
    }

    /// A cloud file's age header, from its first bytes (more of them when the header
    /// is longer than the first read).
    package func header(_ path: String, size: Int64, first: Int64 = 64 << 10) async throws -> AgeDecryptor {
        try await Self.header(size: size, first: first) { [client] in try await client.cloudPrefix(path, count: $0) }
    }

    /// An age header from the first bytes `read` gives (more of them when the header is
    /// longer than the first read).
    static func header(size: Int64, first: Int64 = 64 << 10,
                       read: (Int64) async throws -> [UInt8]) async throws -> AgeDecryptor {
        var count = min(size, first)
        while true {
            let prefix = try await read(count)
            do {
                return try AgeDecryptor(source: MemorySource(prefix), armored: false)
            } catch AgeError.header(let reason) where reason.contains("end of file") && count < size && count < 4 << 20 {
                count = min(size, count * 4)
            }
        }
    }
}
