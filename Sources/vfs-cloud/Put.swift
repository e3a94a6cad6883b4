import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore
import VFSRelayClient
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

extension CloudTool {
    struct Put: AsyncVFSCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            commandName: "put", abstract: "Encrypt files (and folders with -r) to all your devices and store them in the cloud.",
            discussion: """
            The last path is the cloud destination: a folder (existing, or ending in /) receives \
            every source under its own name; otherwise a single source is stored under that \
            path. A file of the same name is exit 73 unless -f replaces it (every name is \
            checked before anything is uploaded); a folder of that name is exit 73.

            Each file is encrypted into $VFS_HOME/cloud-outgoing first and uploaded with a \
            resumable upload: a put killed or cut off halfway continues from the relay's offset \
            when the same command is run again (the source unchanged).

            Examples:
              vfs-cloud put report.pdf /docs/2026/
              vfs-cloud put -r photos notes.txt /docs/2026/
              vfs-cloud put draft.txt /docs/final.txt
            """)
        @Flag(name: .shortAndLong, help: "Put folders with everything in them.") var recursive = false
        @Flag(name: .shortAndLong, help: "Replace cloud files that exist.") var force = false
        @OptionGroup var progressOptions: ProgressOptions
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("Files or folders (with -r), then the cloud destination.", valueName: "path"), completion: .file())
        var paths: [String] = []

        func check() throws {
            guard paths.count >= 2 else {
                throw ToolError.usage("put needs a source and a cloud destination", hints: ["vfs-cloud put FILE… /FOLDER/"])
            }
            for path in paths.dropLast() {
                var isFolder = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                    throw ToolError("no such file \"\(path)\"", exit: .noInput)
                }
                if isFolder && !recursive {
                    throw ToolError.usage("\"\(path)\" is a folder", hints: ["use -r to put a folder and everything in it"])
                }
            }
        }

        func run() async throws {
            let sources = Array(paths.dropLast())
            let destination = try CloudPath.normal(paths.last!)
            try await options.run { session, client in
                let recipients = try session.pinnedRecipients(try await session.cloudReaders(client, warn: { Diagnostics.warn($0) }))
                let into: Bool
                if paths.last!.hasSuffix("/") || destination == "/" || sources.count > 1 {
                    into = true
                    try await MakeFolder.makeAll(destination, client: client)
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
                    if folder, existing?.kind == .file { throw ToolError("\"\(DisplayText.printable(remote))\" is a file", exit: .cannotCreate) }
                    if !folder, !force, existing?.kind == .file {
                        throw ToolError("\"\(DisplayText.printable(remote))\" already exists", exit: .cannotCreate,
                                        hints: ["use -f to replace it, or choose another cloud name"])
                    }
                }
                for (local, remote) in work {
                    if local.hasSuffix("/") {
                        try await MakeFolder.makeAll(remote, client: client)
                    } else {
                        try await CloudUpload(local: local, remote: remote, quiet: progressOptions.quiet)
                            .run(client: client, recipients: recipients)
                    }
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
}

/// One file's way to the cloud: sealed into a spool folder named after the source and
/// destination, uploaded with tus (resuming), then stored at the cloud path.
struct CloudUpload {
    let local: String
    let remote: String
    let quiet: Bool

    struct State: Codable {
        var remote: String
        var length: Int64
        var location: String?
    }

    /// `$VFS_HOME/cloud-outgoing/HASH`: the same source (path, size, mtime) to the same
    /// destination finds the same folder again.
    func spool() throws -> String {
        var info = stat()
        guard stat(local, &info) == 0 else { throw ToolError("no such file \"\(local)\"", exit: .noInput) }
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
        let uploader = TusUploader(client: client)
        if state!.location == nil {
            state!.location = try await uploader.create(length: state!.length)
            try save(state!, dir)
        }
        let bar = ProgressBar.make(label: CloudPath.name(remote), total: Int(state!.length), quiet: quiet)
        defer { bar?.finish() }
        var update: (@Sendable (Int64) -> Void)?
        if let bar { update = { bar.update(Int($0)) } }
        do {
            try await uploader.send(file: dir + "/file.age", length: state!.length, to: state!.location!, progress: update)
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
