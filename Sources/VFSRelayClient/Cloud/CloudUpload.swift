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
    /// Replace cloud files that exist, whatever their version (`put -f`).
    let force: Bool
    /// The version a single file's put replaces (`put --base`), instead of the one this
    /// device last got (`CloudBases`).
    let base: String?
    /// This device's name, in the name of a conflict copy.
    let device: String
    let report: ClientReport

    package init(client: RelayClient, home: String, recipients: [AgeRecipient], force: Bool, base: String? = nil,
                 device: String, report: ClientReport) {
        (self.client, self.home, self.recipients, self.force, self.base, self.device, self.report)
            = (client, home, recipients, force, base, device, report)
    }

    /// Stores `sources` at `destination`: into it when `asFolder` (a folder, made if
    /// missing), else a single source under that path (into it if it is an existing folder).
    /// Everything is checked before anything is made or uploaded: a name the relay can't
    /// store (a control character such as a newline, longer than 255 bytes), a file or
    /// folder that can't be read, or something that is neither file nor folder is left out
    /// with a warning that names it, and the rest goes. Names that are not UTF-8 keep their
    /// bytes as push and wrap keep them (RawName: U+F780 to U+F7FF stand for them, in the
    /// cloud name too). Returns how many were left out.
    ///
    /// A file that exists is replaced only when this device got the version there now
    /// (or `base` names it), or with `force`; else 73 before anything is uploaded. When
    /// another device replaced it (or made a file there) meanwhile, the relay refuses the
    /// put and it is kept beside as a conflict copy (`ConflictName`): the others go on,
    /// and `CloudError.keptAsConflicts` ends the run.
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
        var expected: [String: CloudPut.Expectation] = [:]
        let bases = CloudBases(home: home)
        if asFolder, destination != "/", try await client.cloudLookup(destination) == nil { absent.insert(destination) }
        for (local, remote) in work {
            let folder = local.hasSuffix("/")
            if absent.contains(CloudPath.parent(remote)) {
                if folder { absent.insert(remote) } else { expected[remote] = force ? .any : .absent }
                continue
            }
            let existing = try await client.cloudLookup(remote)
            if folder, existing == nil { absent.insert(remote) }
            if folder, existing?.kind == .file { throw CloudError.isAFile(DisplayText.printable(remote)) }
            guard !folder else { continue }
            if force {
                expected[remote] = .any
            } else if existing?.kind == .file {
                guard let based = base ?? bases.base(of: remote) else { throw CloudError.cloudFileExists(remote) }
                expected[remote] = .version(based)
            } else {
                expected[remote] = .absent
            }
        }
        if asFolder { try await tree.makeFolders(destination) }
        var conflicts: [CloudConflict] = []
        for (local, remote) in work {
            if local.hasSuffix("/") {
                try await tree.makeFolders(remote)
                continue
            }
            let expecting = expected[remote] ?? .absent
            try await CloudUpload(local: local, remote: remote, home: home, report: report).run(client: client, recipients: recipients) { upload in
                do {
                    let stored = try await client.cloudPut(remote, CloudPut(upload: upload, expecting: expecting))
                    // This device now holds the version it made of a file it had got.
                    if case .version = expecting { try bases.record(stored.version, for: remote) }
                } catch RelayClientError.rejected(409, RelayErrorCode.versionConflict.rawValue, let message) {
                    let copy = CloudPath.join(CloudPath.parent(remote), ConflictName.make(CloudPath.name(remote), device: device, at: Date()))
                    _ = try await client.cloudPut(copy, CloudPut(upload: upload, expecting: .absent))
                    let conflict = CloudConflict(path: remote, copy: copy, reason: message)
                    report.warn("\(message); this put is kept as \"\(DisplayText.printable(copy))\"")
                    conflicts.append(conflict)
                }
            }
        }
        if !conflicts.isEmpty { throw CloudError.keptAsConflicts(conflicts, leftOut: skipped.count) }
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

    /// Seals and uploads the file, then `store`s the finished upload (its id) in the cloud;
    /// the spool goes once that is done.
    func run(client: RelayClient, recipients: [AgeRecipient], store: (String) async throws -> Void) async throws {
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
            return try await run(client: client, recipients: recipients, store: store)
        }
        let upload = String(state!.location!.split(separator: "/").last ?? "")
        try await store(upload)
        for name in ["file.age", "put.json"] { unlink(dir + "/" + name) }
        rmdir(dir)
    }

    func save(_ state: State, _ dir: String) throws {
        try AtomicOutputFile.write(Array(try JSONEncoder().encode(state)), to: dir + "/put.json", mode: 0o600)
    }
}
