#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// `vfs-cloud put`: local files and folders to a cloud destination, every name checked
/// before anything is uploaded, each file encrypted to `recipients` (`CloudUpload`).
package struct CloudUploader {
    let client: RelayClient
    let recipients: [AgeRecipient]
    /// Replace cloud files that exist.
    let force: Bool
    let report: ClientReport

    package init(client: RelayClient, recipients: [AgeRecipient], force: Bool, report: ClientReport) {
        (self.client, self.recipients, self.force, self.report) = (client, recipients, force, report)
    }

    /// Stores `sources` at `destination`: into it when `asFolder` (a folder, made if
    /// missing), else a single source under that path (into it if it is an existing folder).
    package func put(_ sources: [String], to destination: String, asFolder: Bool) async throws {
        let tree = CloudTree(client: client)
        let into: Bool
        if asFolder {
            into = true
            try await tree.makeFolders(destination)
        } else {
            into = try await client.cloudLookup(destination)?.kind == .folder
        }
        var work: [(local: String, remote: String)] = []
        for source in sources {
            let name = URL(fileURLWithPath: source).lastPathComponent
            work += try walk(source, to: into ? CloudPath.join(destination, name) : destination)
        }
        // Every name is checked before anything is uploaded (parents come first; what
        // is under a folder that isn't there yet is new).
        var absent = Set<String>()
        for (local, remote) in work {
            let folder = local.hasSuffix("/")
            if absent.contains(CloudPath.parent(remote)) {
                if folder { absent.insert(remote) }
                continue
            }
            let existing = try await client.cloudLookup(remote)
            if folder, existing == nil { absent.insert(remote) }
            if folder, existing?.kind == .file { throw CloudError.isAFile(DisplayText.printable(remote)) }
            if !folder, !force, existing?.kind == .file {
                throw CloudError.cloudFileExists(remote)
            }
        }
        for (local, remote) in work {
            if local.hasSuffix("/") {
                try await tree.makeFolders(remote)
            } else {
                try await CloudUpload(local: local, remote: remote, report: report).run(client: client, recipients: recipients)
            }
        }
    }

    /// The files and folders (local path ending in `/`) to store, parents first.
    func walk(_ local: String, to remote: String) throws -> [(local: String, remote: String)] {
        var isFolder = false
        _ = FileManager.default.fileExists(atPath: local, isDirectory: &isFolder)
        guard isFolder else { return [(local, remote)] }
        var out: [(local: String, remote: String)] = [(local + "/", remote)]
        for name in try FileManager.default.contentsOfDirectory(atPath: local).sorted() {
            out += try walk(local + "/" + name, to: CloudPath.join(remote, name))
        }
        return out
    }
}

/// One file's way to the cloud: sealed into a spool folder named after the source and
/// destination, uploaded with tus (resuming), then stored at the cloud path.
struct CloudUpload {
    let local: String
    let remote: String
    let report: ClientReport

    struct State: Codable {
        var remote: String
        var length: Int64
        var location: String?
    }

    /// `$VFS_HOME/cloud-outgoing/HASH`: the same source (path, size, mtime) to the same
    /// destination finds the same folder again.
    func spool() throws -> String {
        var info = stat()
        guard stat(local, &info) == 0 else { throw CloudError.noSuchFile(local) }
        let absolute = URL(fileURLWithPath: local).standardizedFileURL.path
        let key = "\(remote)\n\(absolute)\n\(info.st_size)\n\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        let hash = SHA256.hash(Array(key.utf8)).prefix(16).hexString
        return try VFSPaths.current.home + "/cloud-outgoing/" + hash
    }

    func run(client: RelayClient, recipients: [AgeRecipient]) async throws {
        let dir = try spool()
        var state = try? JSONDecoder().decode(State.self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/put.json")))
        if state == nil {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let out = try AtomicOutputFile(path: dir + "/file.age", mode: 0o600)
            try AgeEncryptor.encrypt(to: recipients, from: try FileDescriptorSource(path: local), to: out)
            try out.commit()
            let length = try FileSize.of(dir + "/file.age")
            state = State(remote: remote, length: length)
            try save(state!, dir)
        }
        do {
            state!.location = try await TusUploader(client: client).upload(file: dir + "/file.age", length: state!.length, at: state!.location,
                                                                           label: CloudPath.name(remote), report: report) { location in
                state!.location = location
                try save(state!, dir)
            }
        } catch RelayClientError.rejected(404, _, _) {
            // The upload expired: start it again from the sealed copy.
            state!.location = nil
            try save(state!, dir)
            return try await run(client: client, recipients: recipients)
        }
        let upload = String(state!.location!.split(separator: "/").last ?? "")
        _ = try await client.cloudPut(remote, CloudPut(upload: upload))
        for name in ["file.age", "put.json"] { unlink(dir + "/" + name) }
        rmdir(dir)
    }

    func save(_ state: State, _ dir: String) throws {
        try AtomicOutputFile.write(Array(try JSONEncoder().encode(state)), to: dir + "/put.json", mode: 0o600)
    }
}
