import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import VFSCommandLine
import VFSCore
import VFSRelayClient
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

extension CloudTool {
    struct Get: AsyncVFSCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            commandName: "get", abstract: "Download and decrypt a cloud file (a folder with -r), streaming while it downloads.",
            discussion: """
            The ciphertext comes with HTTP Range into $VFS_HOME/cloud-incoming, and is decrypted \
            as it arrives: with --stdout the plaintext flows out at once; -o FILE (or -C DIR, \
            default the current folder, under the cloud name) appears only once complete and \
            authenticated. A get killed or cut off halfway continues from the bytes already \
            downloaded when run again. --raw writes the ciphertext itself (the age file, or the \
            sealed bundle a "vfs-push --cloud" kept, for vfs-unwrap).

            A file that exists is not replaced (exit 73) unless -f. With -r a cloud folder \
            comes down as it went up: DIR/NAME (or -o FOLDER) receives every file and folder \
            in it; every name is checked before anything is written.

            Examples:
              vfs-cloud get /docs/2026/report.pdf -C ~/Downloads
              vfs-cloud get -r /docs/2026 -C ~/Downloads
              vfs-cloud get /music/set.flac --stdout | mpv -
            """)
        @Option(name: .short, help: ArgumentHelp("Write to FILE.", valueName: "file"), completion: .file()) var output: String?
        @Option(name: .customShort("C"), help: ArgumentHelp("Write into DIR under the cloud name.", valueName: "dir"), completion: .directory)
        var directory: String?
        @Flag(help: "Write to standard output, streaming.") var stdout = false
        @Flag(help: "Write the ciphertext as stored, without decrypting.") var raw = false
        @Flag(name: .shortAndLong, help: "Get a folder with everything in it.") var recursive = false
        @Flag(name: .shortAndLong, help: "Replace files that exist.") var force = false
        @OptionGroup var progressOptions: ProgressOptions
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("The cloud file (or folder, with -r).", valueName: "path")) var path: String

        func check() throws {
            if [output != nil, directory != nil, stdout].filter({ $0 }).count > 1 {
                throw ToolError.usage("choose one of -o FILE, -C DIR and --stdout")
            }
            if recursive && stdout { throw ToolError.usage("-r writes files: use -C DIR or -o FOLDER, not --stdout") }
        }

        func run() async throws {
            let path = try CloudPath.normal(self.path)
            try await options.run(identity: !raw) { session, client in
                let entry = try await client.cloudEntry(path)
                if let entry, entry.kind == .file {
                    return try await download(entry, to: stdout ? nil : output ?? ((directory ?? ".") + "/" + entry.name),
                                              session: session, client: client)
                }
                guard recursive else {
                    throw ToolError("\"\(path)\" is a folder", exit: .usage, hints: ["use -r to get a folder and everything in it"])
                }
                // The root's files go straight into DIR.
                let top = output ?? ((directory ?? ".") + (entry.map { "/" + $0.name } ?? ""))
                // The whole tree first: every name is checked before anything is written.
                var folders = [top], files: [(CloudEntry, String)] = []
                var pending = [(path, top)]
                while let next = pending.popLast() {
                    let (folder, local) = next
                    for child in try await client.cloudList(folder) {
                        guard !["", ".", ".."].contains(child.name), !child.name.contains("/"), !child.name.contains("\0") else {
                            throw RelayClientError.badAnswer(url: folder, reason: "a bad name \"\(DisplayText.printable(child.name))\"")
                        }
                        if child.kind == .folder {
                            folders.append(local + "/" + child.name)
                            pending.append((child.path, local + "/" + child.name))
                        } else {
                            files.append((child, local + "/" + child.name))
                        }
                    }
                }
                for (_, local) in files { try Self.refuseExisting(local, force: force) }
                for folder in folders {
                    do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
                        throw ToolError("cannot create folder \"\(DisplayText.printable(folder))\"", exit: .cannotCreate)
                    }
                }
                for (file, local) in files.sorted(by: { $0.1 < $1.1 }) {
                    try await download(file, to: local, session: session, client: client)
                }
            }
        }

        /// An existing file is kept (73) unless -f; devices and pipes are written to.
        static func refuseExisting(_ path: String, force: Bool) throws {
            var info = stat()
            guard !force, lstat(path, &info) == 0 else { return }
            let kind = info.st_mode & S_IFMT
            if kind == S_IFREG || kind == S_IFLNK || kind == S_IFDIR {
                throw ToolError("\"\(DisplayText.printable(path))\" already exists", exit: .cannotCreate,
                                hints: ["use -f to replace it, or choose another name with -o or -C"])
            }
        }

        /// One file: to `target`, or standard output when nil.
        func download(_ entry: CloudEntry, to target: String?, session: RelaySession, client: RelayClient) async throws {
                let path = entry.path
                guard let size = entry.size, let sha256 = entry.sha256 else { throw RelayClientError.badAnswer(url: path, reason: "no size or digest") }
                if let target { try Self.refuseExisting(target, force: force) }
                let out = try ToolIO.openOutput(target ?? "-", binary: true)
                let incoming = try VFSPaths.current.home + "/cloud-incoming"
                try FileManager.default.createDirectory(atPath: incoming, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                let partial = incoming + "/" + sha256 + ".age"
                let download = RangeDownloader.Target(route: RelayClient.cloudRoute(path), label: path, size: size, sha256: sha256)
                // The reader follows the download (DownloadFeed): it decrypts as bytes arrive,
                // age authenticating each 64 KiB chunk before it is written, and hashes the
                // ciphertext, ending only once the whole matched the relay's SHA-256.
                let feed = try DownloadFeed(path: partial, target: download)
                let identity = session.credentials.identity
                let raw = self.raw
                let sink = SinkBox(out.sink)
                let bar = stdout ? nil : ProgressBar.make(label: entry.name, total: Int(size), quiet: progressOptions.quiet)
                defer { bar?.finish() }
                let reading = Task {
                    try await onThread {
                        defer { feed.abandon() }
                        let source = BufferedSource(feed)
                        if raw {
                            try copy(source, to: sink.sink)
                        } else {
                            guard let identity else { throw RelayClientError.missingCredential(what: "identity", place: "this run") }
                            let decryptor = try AgeDecryptor(source: source, armored: false)
                            let fileKey: SecretBytes
                            do {
                                fileKey = try decryptor.fileKey(identities: [identity])
                            } catch AgeError.noMatch {
                                throw ToolError("this device cannot open \"\(path)\"", exit: .noInput,
                                                hints: ["it was stored before this device was enrolled: run \"vfs-cloud rekey\" on a device that can"])
                            }
                            try decryptor.decrypt(fileKey: fileKey, to: sink.sink)
                        }
                        try sink.sink.finish()
                    }
                }
                var downloadError: (any Error)?
                do {
                    try await RangeDownloader(client: client).download(download, to: partial, feed: feed, progress: { bar?.update(Int($0)) })
                } catch {
                    downloadError = error
                    feed.fail(error)
                }
                let read = await reading.result
                do {
                    // The download's own error says more than the reader's stop.
                    if let downloadError, !(downloadError is CancellationError) { throw downloadError }
                    if let failure = feed.error, failure is RelayClientError { throw failure }
                    do {
                        try read.get()
                    } catch {
                        // Complete but not authentic (or not this device's): downloading
                        // the same bytes again would not help; the next get starts over.
                        unlink(partial)
                        throw error
                    }
                } catch {
                    out.abandon()
                    throw error
                }
                try out.commit(exclusive: !force && target.map { !Self.isSpecial($0) } ?? false)
                unlink(partial)
        }

        static func isSpecial(_ path: String) -> Bool {
            var info = stat()
            return stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG
        }
    }
}

/// The output, handed to the decrypting thread (used by that thread alone until it ends).
final class SinkBox: @unchecked Sendable {
    let sink: ByteSink
    init(_ sink: ByteSink) { self.sink = sink }
}

func copy(_ source: ByteSource, to sink: ByteSink) throws {
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
        if n == 0 { return }
        try buffer.withUnsafeBytes { try sink.write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
    }
}

/// Runs blocking work on its own thread (decryption reads a file as it grows).
func onThread(_ work: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
        DetachedThread.start {
            do {
                try work()
                continuation.resume()
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}
