#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
import VFSCore
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// A push on its way: the sealed bundle (ciphertext only) and what to do with it, in
/// `$VFS_HOME/outgoing/ID/`. The bundle is uploaded while it is being sealed (a tus
/// upload with a deferred length, declared by the last PATCH), from memory: the sealed
/// bytes are held there (`UploadWindow`) until the relay confirms them, and what it may
/// still lack when sealing ends (everything, if the upload failed) is written to the
/// spool's bundle file at its offset and kept until the transfer exists, so a push that
/// was killed or lost its connection continues with `vfs-push resume` from the relay's
/// offset (which is never before the file's first byte, `base`). The bundle file is not
/// synced (it survives a killed process, not a machine crash, after which a resumed
/// upload fails authentication at the receiver instead of opening); `push.json` is.
/// `TransferSender` seals, uploads and delivers it.
package struct PushSpool: Codable {
    package var devices: [String]
    package var names: [String]
    /// Seconds undelivered copies live, counted from when the transfer is created.
    package var lifetime: Int?
    /// The tus upload, once created.
    package var location: String?
    /// The bundle's size, once it is completely sealed (nil before: such a spool cannot
    /// be resumed, the bundle's key being gone with the process that sealed it).
    package var length: Int64?
    /// The first byte the spool's bundle file holds (nil: all of them); the relay had
    /// every byte before it, synced, when sealing ended.
    package var base: Int64?
    /// `--cloud PATH`: the cloud file that keeps the transfer's ciphertext.
    package var cloud: String?
    /// The transfer made once the relay had the bundle's first bytes (its targets fetch
    /// it while it uploads); the upload's end gives it its content.
    package var transfer: String?
    /// `--to`: other users' devices, from their verified chains.
    package var users: [UserTarget]?
    /// A request to make the transfer got no answer (the relay went): it may have made one,
    /// consuming the upload (`TransferSender.madeUnanswered` looks for it).
    package var asked: Bool?

    package init(devices: [String], names: [String], lifetime: Int?, cloud: String?, users: [UserTarget]?) {
        (self.devices, self.names, self.lifetime, self.cloud, self.users) = (devices, names, lifetime, cloud, users)
    }

    /// `HOME/outgoing` (the session's home: `$VFS_HOME`): a folder per pending push.
    package static func folder(home: String) -> String { home + "/outgoing" }

    /// A pending push's id: its spool folder's name (`vfs-push resume --list`, `--drop`).
    package static func id(of dir: String) -> String { String(dir.split(separator: "/").last ?? "") }

    /// The request that makes this push's transfer of `upload` (its targets and lifetime).
    package func transferRequest(upload: String, streaming: Bool?) -> TransferCreate {
        TransferCreate(upload: upload, devices: devices, users: users ?? [],
                       expires: lifetime.map { Date().addingTimeInterval(TimeInterval($0)) }, streaming: streaming)
    }

    /// Every pending push (oldest first).
    package static func pending(home: String) -> [String] {
        let folder = folder(home: home)
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted().map { folder + "/" + $0 }
            .filter { FileManager.default.fileExists(atPath: $0 + "/push.json") }
    }

    /// A new spool folder holding this push's `push.json` (no bundle yet).
    package func create(home: String) throws -> String {
        let spoolFolder = Self.folder(home: home)
        try FileManager.default.createDirectory(atPath: spoolFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let dir = spoolFolder + "/" + String(Int(Date().timeIntervalSince1970 * 1000)) + "-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        do {
            try save(dir)
        } catch {
            Self.remove(dir)
            throw error
        }
        return dir
    }

    /// A pending push's record (`vfs-push resume --list`).
    package static func loadPending(_ dir: String) throws -> PushSpool { try load(dir) }

    package static func load(_ dir: String) throws -> PushSpool {
        guard let data = FileManager.default.contents(atPath: dir + "/push.json") else {
            throw TransferError.noPendingPush(spool: dir)
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(PushSpool.self, from: data)
    }

    package func save(_ dir: String) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try AtomicOutputFile.write(Array(try encoder.encode(self)), to: dir + "/push.json", mode: 0o600)
    }

    package static func remove(_ dir: String) {
        unlink(dir + "/bundle.age")
        unlink(dir + "/push.json")
        rmdir(dir)
    }
}

/// A spool's `push.json` changed from two sides of a push (the upload's location, the
/// sealed length), one change at a time.
package final class SpoolRecord: Sendable {
    private let spool: NIOLockedValueBox<(PushSpool, closed: Bool)>
    package let dir: String

    package init(_ spool: PushSpool, dir: String) {
        self.spool = NIOLockedValueBox((spool, false))
        self.dir = dir
    }

    package var current: PushSpool { spool.withLockedValue { $0.0 } }

    package func update(_ change: (inout PushSpool) -> Void) throws {
        try spool.withLockedValue { state in
            // A push interrupted by a signal is decided on what the record said then.
            guard !state.closed else { throw IOError("the push was interrupted", code: EINTR) }
            change(&state.0)
            try state.0.save(dir)
        }
    }

    /// No change from now on (a signal's answer goes by it); the record as it stands.
    package func close() -> PushSpool {
        spool.withLockedValue { state in
            state.closed = true
            return state.0
        }
    }
}
