import Foundation
import VFSCommandLine
import VFSCore
import VFSRelayClient
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// One transfer from the inbox to DIR (or stdout): download with Range into
/// `$VFS_HOME/incoming/ID.age`, check its SHA-256, decrypt with the device identity,
/// apply vfs-unwrap's checks and policy gate through VFSCore's BundleReader, and
/// acknowledge only after all of that succeeded.
struct Receiver {
    let tool: FetchTool
    let session: RelaySession
    let client: RelayClient

    static var incoming: String { get throws { try VFSPaths.current.home + "/incoming" } }

    /// The top-level names unpacked (for --exec), empty for --stdout/--raw.
    func receive(_ entry: InboxEntry) async throws -> [String] {
        let incoming = try Self.incoming
        try FileManager.default.createDirectory(atPath: incoming, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let part = incoming + "/" + entry.id + ".age"
        let bar = ProgressBar.make(label: "fetching", total: Int(entry.size), quiet: tool.quiet)
        var update: (@Sendable (Int64) -> Void)?
        if let bar { update = { bar.update(Int($0)) } }
        do {
            try await RangeDownloader(client: client).download(entry, to: part, progress: update)
        } catch RelayClientError.rejected(404, _, _) {
            bar?.finish()
            throw RelayClientError.noSuchTransfer(entry.id)
        }
        bar?.finish()
        if tool.raw {
            try copy(part, to: FileDescriptorSink.standardOutput())
            return []
        }
        let names = try unwrap(part, transfer: entry.id)
        try await client.ack(entry.id)
        unlink(part)
        return names
    }

    func unwrap(_ path: String, transfer: String) throws -> [String] {
        guard let identity = session.credentials.identity else {
            throw RelayClientError.missingCredential(what: "identity", place: "this run")
        }
        let source = BufferedSource(try FileDescriptorSource(path: path))
        let decryptor = try AgeDecryptor(source: source)
        let fileKey = try decryptor.fileKey(identities: [identity])
        return try BundleReader.openSealed(decryptor, fileKey: fileKey) { reader -> [String] in
            let manifest = reader.manifest
            if let app = tool.app {
                try PolicyGate.authorize(app, group: manifest.group, paths: manifest.contentEntries.map(\.path))
            }
            if tool.toStandardOutput {
                try reader.writeSingleFile(to: FileDescriptorSink.standardOutput())
                return []
            }
            let folder = tool.directory ?? "."
            _ = try reader.extract(into: folder, force: false, noBackup: tool.backupOption.noBackup)
            tool.backupOption.report(reader.backupMarks, folder: folder)
            var tops: [String] = []
            for entry in manifest.entries {
                let top = String(entry.path.split(separator: "/").first ?? "")
                if !top.isEmpty && !tops.contains(top) { tops.append(top) }
            }
            return tops.map { folder + "/" + $0 }
        }
    }

    func copy(_ path: String, to sink: ByteSink) throws {
        let source = try FileDescriptorSource(path: path)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { return }
            try buffer.withUnsafeBytes { try sink.write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
    }
}
