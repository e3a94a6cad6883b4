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
    /// The session's home (`$VFS_HOME`), which holds the spools (`CloudUpload.spool`).
    let home: String
    let recipients: [AgeRecipient]
    /// Replace cloud files that exist.
    let force: Bool
    let report: ClientReport

    package init(client: RelayClient, home: String, recipients: [AgeRecipient], force: Bool, report: ClientReport) {
        (self.client, self.home, self.recipients, self.force, self.report) = (client, home, recipients, force, report)
    }

    /// Stores `sources` at `destination`: into it when `asFolder` (a folder, made if
    /// missing), else a single source under that path (into it if it is an existing folder).
    /// Everything is checked before anything is made or uploaded: a name the relay can't
    /// store (a control character such as a newline, longer than 255 bytes), a file or
    /// folder that can't be read, or something that is neither file nor folder is left out
    /// with a warning that names it, and the rest goes. Names that are not UTF-8 keep their
    /// bytes as push and wrap keep them (RawName: U+F780 to U+F7FF stand for them, in the
    /// cloud name too). Returns how many were left out.
    @discardableResult
    package func put(_ sources: [String], to destination: String, asFolder: Bool) async throws -> Int {
        let tree = CloudTree(client: client)
        let into = asFolder ? true : try await client.cloudLookup(destination)?.kind == .folder
        var work: [(local: String, remote: String)] = []
        var skipped: [String] = []
        for source in sources {
            guard access(RawName.cString(source), F_OK) == 0 else { throw CloudError.noSuchFile(source) }
            let name = URL(fileURLWithPath: source).lastPathComponent
            work += walk(source, to: into ? CloudPath.join(destination, name) : destination, skipped: &skipped)
        }
        // Every name is checked before anything is uploaded (parents come first; what
        // is under a folder that isn't there yet is new).
        var absent = Set<String>()
        if asFolder, destination != "/", try await client.cloudLookup(destination) == nil { absent.insert(destination) }
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
        if asFolder { try await tree.makeFolders(destination) }
        for (local, remote) in work {
            if local.hasSuffix("/") {
                try await tree.makeFolders(remote)
            } else {
                try await CloudUpload(local: local, remote: remote, home: home, report: report).run(client: client, recipients: recipients)
            }
        }
        return skipped.count
    }

    /// The files and folders (local path ending in `/`) to store, parents first; what can't
    /// go is named in a warning and counted in `skipped` (a folder with all it holds).
    func walk(_ local: String, to remote: String, skipped: inout [String]) -> [(local: String, remote: String)] {
        func skip(_ why: String) -> [(local: String, remote: String)] {
            let shown = DisplayText.printable(RawName.escaped(local))
            report.warn("leaving out \"\(shown)\": \(why)")
            skipped.append(shown)
            return []
        }
        let name = CloudPath.name(remote)
        if name.isEmpty || name.utf8.count > 255 || name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return skip("the relay can't store its name (1 to 255 bytes, no control characters such as a newline)")
        }
        var info = stat()
        guard stat(RawName.cString(local), &info) == 0 else { return skip("it can't be read (\(String(cString: strerror(errno))))") }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            let fd = open(RawName.cString(local), O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { return skip("it can't be read (\(String(cString: strerror(errno))))") }
            close(fd)
            return [(local, remote)]
        case S_IFDIR:
            guard let dir = opendir(RawName.cString(local)) else { return skip("its folder can't be read (\(String(cString: strerror(errno))))") }
            var names: [[UInt8]] = []
            while let entry = readdir(dir) {
                let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
                if bytes != [0x2E] && bytes != [0x2E, 0x2E] { names.append(bytes) }
            }
            closedir(dir)
            var out: [(local: String, remote: String)] = [(local + "/", remote)]
            for bytes in names.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                guard let child = RawName.string(bytes) else {
                    let path = local + "/" + String(decoding: bytes, as: UTF8.self)
                    report.warn("leaving out \"\(DisplayText.printable(path))\": its name holds characters U+F780 to U+F7FF, which stand for raw bytes")
                    skipped.append(DisplayText.printable(path))
                    continue
                }
                out += walk(local + "/" + child, to: CloudPath.join(remote, child), skipped: &skipped)
            }
            return out
        default:
            return skip("not a file or folder")
        }
    }
}

/// One file's way to the cloud: sealed into a spool folder named after the source and
/// destination, uploaded with tus (resuming), then stored at the cloud path.
struct CloudUpload {
    let local: String
    let remote: String
    let home: String
    let report: ClientReport

    struct State: Codable {
        var remote: String
        var length: Int64
        var location: String?
    }

    /// `HOME/cloud-outgoing/HASH`: the same source (path, size, mtime) to the same
    /// destination finds the same folder again.
    func spool() throws -> String {
        var info = stat()
        guard stat(RawName.cString(local), &info) == 0 else { throw CloudError.noSuchFile(local) }
        let absolute = URL(fileURLWithPath: local).standardizedFileURL.path
        let key = "\(remote)\n\(absolute)\n\(info.st_size)\n\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        let hash = SHA256.hash(Array(key.utf8)).prefix(16).hexString
        return home + "/cloud-outgoing/" + hash
    }

    func run(client: RelayClient, recipients: [AgeRecipient]) async throws {
        let dir = try spool()
        var state = try? JSONDecoder().decode(State.self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/put.json")))
        if state == nil {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let out = try AtomicOutputFile(path: dir + "/file.age", mode: 0o600)
            // By its bytes: a name that is not UTF-8 holds RawName's stand-ins here.
            let fd = open(RawName.cString(local), O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw IOError("cannot open", path: RawName.escaped(local)) }
            try AgeEncryptor.encrypt(to: recipients, from: FileDescriptorSource(fd: fd, name: RawName.escaped(local), owned: true), to: out)
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
