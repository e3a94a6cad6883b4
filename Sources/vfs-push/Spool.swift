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

/// A push on its way: the sealed bundle (ciphertext only) and what to do with it, in
/// `$VFS_HOME/outgoing/ID/`. It stays until the transfer exists, so a push that was
/// killed or lost its connection continues with `vfs-push resume` from the relay's offset.
struct Spool: Codable {
    var devices: [String]
    var names: [String]
    /// Seconds undelivered copies live, counted from when the transfer is created.
    var lifetime: Int?
    /// The tus upload, once created.
    var location: String?
    var length: Int64
    /// `--cloud PATH`: the cloud file that keeps the transfer's ciphertext.
    var cloud: String?

    static var folder: String { get throws { try VFSPaths.current.home + "/outgoing" } }

    /// Every pending push (oldest first).
    static func pending() throws -> [String] {
        let folder = try folder
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted().map { folder + "/" + $0 }
            .filter { FileManager.default.fileExists(atPath: $0 + "/push.json") }
    }

    static func load(_ dir: String) throws -> Spool {
        guard let data = FileManager.default.contents(atPath: dir + "/push.json") else {
            throw ToolError("no pending push in \"\(dir)\"", exit: .noInput)
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(Spool.self, from: data)
    }

    func save(_ dir: String) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try AtomicOutputFile.write(Array(try encoder.encode(self)), to: dir + "/push.json", mode: 0o600)
    }

    /// Uploads (resuming) and creates the transfer; removes the spool once it exists.
    static func deliver(_ dir: String, client: RelayClient, quiet: Bool) async throws -> OutboxEntry {
        var spool = try load(dir)
        let uploader = TusUploader(client: client)
        if spool.location == nil {
            spool.location = try await uploader.create(length: spool.length)
            try spool.save(dir)
        }
        let location = spool.location!
        let bar = ProgressBar.make(label: "pushing", total: Int(spool.length), quiet: quiet)
        defer { bar?.finish() }
        var update: (@Sendable (Int64) -> Void)?
        if let bar { update = { bar.update(Int($0)) } }
        do {
            try await uploader.send(file: dir + "/bundle.age", length: spool.length, to: location, progress: update)
        } catch RelayClientError.rejected(404, _, _) {
            // The upload expired or was removed: start it again from the spool.
            spool.location = nil
            try spool.save(dir)
            return try await deliver(dir, client: client, quiet: quiet)
        }
        let upload = String(location.split(separator: "/").last ?? "")
        let entry = try await client.createTransfer(TransferCreate(upload: upload, devices: spool.devices,
                                                                         expires: spool.lifetime.map { Date().addingTimeInterval(TimeInterval($0)) }))
        remove(dir)
        if let cloud = spool.cloud {
            do {
                _ = try await client.cloudPut(cloud, CloudPut(transfer: entry.id))
            } catch let error as RelayClientError {
                throw ToolError("transfer \(entry.id) was sent, but the cloud copy \"\(cloud)\" was not kept: \(error)",
                                exit: error.exitStatus, hints: ["vfs-cloud ls shows the cloud folders; vfs-cloud mkdir -p makes one"])
            }
        }
        return entry
    }

    static func remove(_ dir: String) {
        unlink(dir + "/bundle.age")
        unlink(dir + "/push.json")
        rmdir(dir)
    }
}
