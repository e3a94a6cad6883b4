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
            commandName: "get", abstract: "Download and decrypt a cloud file, streaming while it downloads.",
            discussion: """
            The ciphertext comes with HTTP Range into $VFS_HOME/cloud-incoming, and is decrypted \
            as it arrives: with --stdout the plaintext flows out at once; -o FILE (or -C DIR, \
            default the current folder, under the cloud name) appears only once complete and \
            authenticated. A get killed or cut off halfway continues from the bytes already \
            downloaded when run again. --raw writes the ciphertext itself (the age file, or the \
            sealed bundle a "vfs-push --cloud" kept, for vfs-unwrap).

            Examples:
              vfs-cloud get /docs/2026/report.pdf -C ~/Downloads
              vfs-cloud get /music/set.flac --stdout | mpv -
            """)
        @Option(name: .short, help: ArgumentHelp("Write to FILE.", valueName: "file"), completion: .file()) var output: String?
        @Option(name: .customShort("C"), help: ArgumentHelp("Write into DIR under the cloud name.", valueName: "dir"), completion: .directory)
        var directory: String?
        @Flag(help: "Write to standard output, streaming.") var stdout = false
        @Flag(help: "Write the ciphertext as stored, without decrypting.") var raw = false
        @OptionGroup var progressOptions: ProgressOptions
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("The cloud file.", valueName: "path")) var path: String

        func check() throws {
            if [output != nil, directory != nil, stdout].filter({ $0 }).count > 1 {
                throw ToolError.usage("choose one of -o FILE, -C DIR and --stdout")
            }
        }

        func run() async throws {
            let path = try CloudPath.normal(self.path)
            try await options.run(identity: !raw) { session, client in
                guard let entry = try await client.cloudEntry(path), entry.kind == .file, let size = entry.size, let sha256 = entry.sha256 else {
                    throw ToolError("\"\(path)\" is a folder", exit: .usage, hints: ["get takes files; vfs-cloud ls -R lists what a folder holds"])
                }
                let target: String? = stdout ? nil : output ?? ((directory ?? ".") + "/" + entry.name)
                let out = try ToolIO.openOutput(target ?? "-", binary: true)
                let incoming = try VFSPaths.current.home + "/cloud-incoming"
                try FileManager.default.createDirectory(atPath: incoming, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                let partial = incoming + "/" + sha256 + ".age"
                let state = GrowingFile.State()
                let identity = session.credentials.identity
                let raw = self.raw
                let sink = SinkBox(out.sink)
                let bar = stdout ? nil : ProgressBar.make(label: entry.name, total: Int(size), quiet: progressOptions.quiet)
                defer { bar?.finish() }
                do {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            do {
                                try await RangeDownloader(client: client).download(
                                    RangeDownloader.Target(route: RelayClient.cloudRoute(path), label: path, size: size, sha256: sha256), to: partial,
                                    progress: { state.update($0); bar?.update(Int($0)) })
                                state.finish(failed: false)
                            } catch {
                                state.failure.withLock { $0 = $0 ?? error }
                                state.finish(failed: true)
                                throw error
                            }
                        }
                        group.addTask {
                            try await onThread {
                                let source = try GrowingFile(path: partial, state: state)
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
                        do {
                            try await group.waitForAll()
                        } catch {
                            state.finish(failed: true)
                            group.cancelAll()
                            // The download's own error says more than the reader's stop.
                            throw state.failure.withLock { $0 } ?? error
                        }
                    }
                } catch {
                    out.abandon()
                    throw error
                }
                try out.commit()
                unlink(partial)
            }
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

/// A file being downloaded, read as it grows: a read past what has arrived waits for
/// more, and ends when the download is done (or throws when it failed).
final class GrowingFile: ByteSource {
    final class State: Sendable {
        let value = Mutex((have: Int64(0), done: false, failed: false))
        let failure = Mutex<(any Error)?>(nil)
        func update(_ have: Int64) { value.withLock { $0.have = max($0.have, have) } }
        func finish(failed: Bool) { value.withLock { $0.done = true; $0.failed = $0.failed || failed } }
    }

    let fd: Int32
    let state: State
    var position: Int64 = 0

    init(path: String, state: State) throws {
        // The downloader creates the file; wait for it.
        var fd: Int32 = -1
        while true {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 { break }
            if state.value.withLock({ $0.done }) { throw IOError("cannot open", path: path) }
            usleep(1000)
        }
        self.fd = fd
        self.state = state
    }

    deinit { close(fd) }

    func prepareForStreaming() {}

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let (have, done, failed) = state.value.withLock { ($0.have, $0.done, $0.failed) }
            if failed { throw CancellationError() }
            let available = have - position
            if available > 0 || done {
                let want = done ? buffer.count : Int(min(Int64(buffer.count), available))
                let n = pread(fd, buffer.baseAddress!, want, off_t(position))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw IOError("cannot read the download", path: "")
                }
                position += Int64(n)
                return n
            }
            usleep(500)
        }
    }
}
