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
