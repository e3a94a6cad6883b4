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

extension CloudTool {
    struct Rekey: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-encrypt every cloud file's key to your current devices, without uploading the files again.",
            discussion: """
            For each file this device can open, rekey reads the file's age header, unwraps the \
            file key with this device's identity and writes a new header wrapping the same key \
            for every active device (keys checked against the pins), with a new header MAC. The \
            relay puts it in front of the unchanged payload: only the header travels. Run it \
            after enrolling a device, so it can read the existing files, and after revoking one, \
            so its key is dropped from every file. Copies a revoked device already fetched are \
            out of reach: rekeying cannot take them back.

            Files this device cannot open are left as they are, with a warning (exit 1).

            Example:
              vfs-device revoke old-phone && vfs-cloud rekey
            """)
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("Rekey only this folder or file.", valueName: "path")) var path = "/"

        func run() async throws {
            let root = try CloudPath.normal(path)
            let skipped = try await options.run(identity: true) { session, client -> Int in
                guard let identity = session.credentials.identity else {
                    throw RelayClientError.missingCredential(what: "identity", place: "this run")
                }
                let recipients = try session.pinnedRecipients(try await session.cloudReaders(client, warn: { Diagnostics.warn($0) }))
                var files: [CloudEntry] = []
                if let entry = try await client.cloudEntry(root), entry.kind == .file {
                    files = [entry]
                } else {
                    var pending = [root]
                    while let folder = pending.popLast() {
                        for child in try await client.cloudList(folder) {
                            if child.kind == .folder { pending.append(child.path) } else { files.append(child) }
                        }
                    }
                }
                var skipped = 0, done = 0
                for file in files.sorted(by: { $0.path < $1.path }) {
                    guard let size = file.size, let sha256 = file.sha256 else { continue }
                    do {
                        let (length, header) = try await newHeader(file.path, size: size, client: client,
                                                                  identity: identity, recipients: recipients)
                        _ = try await client.cloudReplaceHeader(file.path, CloudHeaderReplace(
                            header: Data(header).base64EncodedString(), length: Int64(length), sha256: sha256))
                        done += 1
                    } catch let error as AgeError {
                        Diagnostics.warn("left \"\(DisplayText.printable(file.path))\" as it is: \(error)")
                        skipped += 1
                    }
                }
                Diagnostics.info("rekeyed \(done) file\(done == 1 ? "" : "s") for \(recipients.count) device\(recipients.count == 1 ? "" : "s")")
                return skipped
            }
            if skipped > 0 {
                throw ToolError("\(skipped) file\(skipped == 1 ? " was" : "s were") left as they are", exit: .no,
                                hints: ["a device that can open them (one that was enrolled when they were stored) can rekey them"])
            }
        }

        /// The old header's length and the new header, from the file's first bytes (more
        /// of them when the header is longer than the first read).
        func newHeader(_ path: String, size: Int64, client: RelayClient, identity: AgeIdentity,
                       recipients: [AgeRecipient]) async throws -> (Int, [UInt8]) {
            let decryptor = try await Self.header(path, size: size, client: client)
            let fileKey = try decryptor.fileKey(identities: [identity])
            return (decryptor.headerLength, try decryptor.rewrappedHeader(fileKey: fileKey, recipients: recipients))
        }

        /// A cloud file's age header, from its first bytes (more of them when the header
        /// is longer than the first read).
        static func header(_ path: String, size: Int64, client: RelayClient, first: Int64 = 64 << 10) async throws -> AgeDecryptor {
            var count = min(size, first)
            while true {
                let prefix = try await client.cloudPrefix(path, count: count)
                do {
                    return try AgeDecryptor(source: ArraySource(prefix), armored: false)
                } catch AgeError.header(let reason) where reason.contains("end of file") && count < size && count < 4 << 20 {
                    count = min(size, count * 4)
                }
            }
        }
    }
}

/// Bytes in memory as a source.
final class ArraySource: ByteSource {
    let bytes: [UInt8]
    var position = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func prepareForStreaming() {}
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, bytes.count - position)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: n) }
        position += n
        return n
    }
}
