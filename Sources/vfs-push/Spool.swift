#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore
import VFSRelayClient
import VFSRelayProtocol
import Synchronization
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
struct Spool: Codable {
    var devices: [String]
    var names: [String]
    /// Seconds undelivered copies live, counted from when the transfer is created.
    var lifetime: Int?
    /// The tus upload, once created.
    var location: String?
    /// The bundle's size, once it is completely sealed (nil before: such a spool cannot
    /// be resumed, the bundle's key being gone with the process that sealed it).
    var length: Int64?
    /// The first byte the spool's bundle file holds (nil: all of them); the relay had
    /// every byte before it, synced, when sealing ended.
    var base: Int64?
    /// `--cloud PATH`: the cloud file that keeps the transfer's ciphertext.
    var cloud: String?
    /// The transfer made once the relay had the bundle's first bytes (its targets fetch
    /// it while it uploads); the upload's end gives it its content.
    var transfer: String?
    /// `--to`: other users' devices, from their verified chains.
    var users: [UserTarget]?

    static var folder: String { get throws { try VFSPaths.current.home + "/outgoing" } }

    /// The request that makes this push's transfer of `upload` (its targets and lifetime).
    func transferRequest(upload: String, streaming: Bool?) -> TransferCreate {
        TransferCreate(upload: upload, devices: devices, users: users ?? [],
                       expires: lifetime.map { Date().addingTimeInterval(TimeInterval($0)) }, streaming: streaming)
    }

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

    /// Seals the bundle into the spool folder `dir` (its `push.json` saved, no bundle yet)
    /// with `seal`, on a thread of its own, while the bytes already sealed go up in a tus
    /// upload whose length is declared once sealing ends; then creates the transfer and
    /// removes the spool. An upload that fails leaves the spool whole (sealing goes on to
    /// the end) for `vfs-push resume`; sealing that fails removes it and the upload.
    ///
    /// Once the relay holds the bundle's first bytes the transfer is made (`streaming`), so
    /// targets that are online fetch it while it uploads; `announce` gets its id then (or,
    /// if that could not be done, once the upload ended and the transfer was made).
    /// A push with --cloud makes it at the end (the cloud file needs the whole blob).
    static func push(_ dir: String, client: RelayClient, quiet: Bool, total: Int, announce: @escaping @Sendable (String) -> Void,
                     seal: @escaping @Sendable (ByteSink) throws -> Void) async throws -> OutboxEntry {
        // push.json changes from two sides (the upload's location, the sealed length): one at a time.
        let record = SpoolRecord(try load(dir), dir: dir)
        let path = dir + "/bundle.age"
        // Until the bundle is sealed to the end the spool cannot be resumed: Ctrl-C (or
        // a kill, a hang-up) removes it, and the process dies of the signal (exit 130).
        let unsealed = [path, dir + "/push.json", dir]
        for name in unsealed { SignalCleanup.removeOnSignal(name) }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw IOError("cannot create", path: path) }
        let window = UploadWindow()
        let sealing = Task {
            try await onThread { () throws -> Int64 in
                defer { close(fd) }
                let sink = SpoolingWriter(fd: fd, path: path, window: window)
                do {
                    try seal(sink)
                    // What the relay may not have yet goes to the spool file: resumable
                    // from now on, whatever happens to the upload.
                    let base = try sink.complete()
                    try record.update {
                        $0.length = sink.count
                        $0.base = base > 0 ? base : nil
                    }
                    for name in unsealed { SignalCleanup.forget(name) }
                    window.finish(length: sink.count)
                    return sink.count
                } catch {
                    window.fail(error)
                    throw error
                }
            }
        }
        let uploader = TusUploader(client: client)
        // The relay's first confirmed bytes start the transfer (a task beside the upload).
        let (firstBytes, reached) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let streaming = Task { () -> OutboxEntry? in
            for await location in firstBytes {
                let spool = record.current
                guard spool.cloud == nil else { return nil }
                do {
                    let entry = try await client.createTransfer(spool.transferRequest(upload: uploadID(location), streaming: true))
                    try record.update { $0.transfer = entry.id }
                    announce(entry.id)
                    return entry
                } catch {
                    // Made the ordinary way once the upload ended.
                    return nil
                }
            }
            return nil
        }
        var uploadError: (any Error)?
        do {
            let bar = ProgressBar.make(label: "pushing", total: total, quiet: quiet)
            defer { bar?.finish() }
            var progress: (@Sendable (Int64) -> Void)?
            if let bar { progress = { bar.update(min(total, Int($0))) } }
            let location = try await uploader.create(length: nil)
            try record.update { $0.location = location }
            try await uploader.send(window, to: location, progress: progress, confirmed: { offset in
                if offset > 0 {
                    reached.yield(location)
                    reached.finish()
                }
            })
        } catch {
            uploadError = error
            // The sealing goes on to the end, into the spool file.
            window.abandon()
        }
        reached.finish()
        let early = await streaming.value
        do {
            _ = try await sealing.value
        } catch {
            if let location = record.current.location { try? await uploader.terminate(location) }
            remove(dir)
            for name in unsealed { SignalCleanup.forget(name) }
            throw error
        }
        var spool = record.current
        if let uploadError {
            if case RelayClientError.rejected(404, _, _) = uploadError {
                // The upload expired or was removed: start it again from the spool.
                spool.location = nil
                try spool.save(dir)
                return try await deliver(dir, client: client, quiet: quiet)
            }
            throw kept(uploadError)
        }
        do {
            let entry = try await createTransfer(dir, spool: spool, client: client)
            if early == nil { announce(entry.id) }
            return entry
        } catch let error where FileManager.default.fileExists(atPath: dir + "/push.json") {
            throw kept(error)
        }
    }

    /// The upload's id: the last part of its location.
    static func uploadID(_ location: String) -> String { String(location.split(separator: "/").last ?? "") }

    /// The error of a push whose sealed spool was kept, with the hint that finishes it.
    static func kept(_ error: any Error) -> any Error {
        guard let error = error as? ReportableError else { return error }
        return ToolError(error.description, exit: error.exitStatus,
                         hints: error.hints + ["the sealed push was kept: \"vfs-push resume\" sends it once the relay takes it"])
    }

    /// Uploads a sealed spool (resuming) and creates the transfer; removes the spool once it exists.
    static func deliver(_ dir: String, client: RelayClient, quiet: Bool) async throws -> OutboxEntry {
        var spool = try load(dir)
        let uploader = TusUploader(client: client)
        guard let length = spool.length else {
            // Killed while sealing: the bundle's key died with that process.
            if let location = spool.location { try? await uploader.terminate(location) }
            remove(dir)
            throw ToolError("the push in \"\(dir)\" was interrupted before its bundle was sealed", exit: .dataError,
                            hints: ["it was removed: push the files again"])
        }
        if spool.location == nil {
            if let base = spool.base, base > 0 {
                // The upload is gone, and with it the bytes the spool did not keep.
                remove(dir)
                throw ToolError("the relay no longer has the upload of the push in \"\(dir)\", and its bundle's first \(base) bytes went only there",
                                exit: .dataError, hints: ["it was removed: push the files again"])
            }
            spool.location = try await uploader.create(length: length)
            try spool.save(dir)
        }
        let location = spool.location!
        let bar = ProgressBar.make(label: "pushing", total: Int(length), quiet: quiet)
        defer { bar?.finish() }
        var update: (@Sendable (Int64) -> Void)?
        if let bar { update = { bar.update(Int($0)) } }
        do {
            try await uploader.send(file: dir + "/bundle.age", length: length, base: spool.base ?? 0, to: location, progress: update)
        } catch RelayClientError.rejected(404, _, _) {
            // The upload expired or was removed: start it again from the spool.
            spool.location = nil
            try spool.save(dir)
            return try await deliver(dir, client: client, quiet: quiet)
        }
        return try await createTransfer(dir, spool: spool, client: client)
    }

    /// The upload is complete: the transfer (and the cloud copy) from it; the spool goes.
    /// A transfer made while it uploaded got its content from the upload's last PATCH;
    /// asking for it again (`streaming`) finishes it if that PATCH's answer was lost, and
    /// 404 (the upload was consumed) says it had.
    static func createTransfer(_ dir: String, spool: Spool, client: RelayClient) async throws -> OutboxEntry {
        let upload = uploadID(spool.location ?? "")
        let request = spool.transferRequest(upload: upload, streaming: spool.transfer == nil ? nil : true)
        let entry: OutboxEntry
        do {
            entry = try await client.createTransfer(request)
        } catch RelayClientError.rejected(404, _, _) where spool.transfer != nil {
            guard let made = try await client.outbox().first(where: { $0.id == spool.transfer }) else {
                throw RelayClientError.noSuchTransfer(spool.transfer!)
            }
            entry = made
        }
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

/// A spool's `push.json` changed from two sides of a push (the upload's location, the
/// sealed length), one change at a time.
final class SpoolRecord: Sendable {
    private let spool: Mutex<Spool>
    let dir: String

    init(_ spool: Spool, dir: String) {
        self.spool = Mutex(spool)
        self.dir = dir
    }

    var current: Spool { spool.withLock { $0 } }

    func update(_ change: (inout Spool) -> Void) throws {
        try spool.withLock { spool in
            change(&spool)
            try spool.save(dir)
        }
    }
}

/// Runs blocking work (the sealing: libarchive, zstd and age) on a thread of its own.
func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
        DetachedThread.start(stackSize: 8 << 20) {
            do {
                continuation.resume(returning: try work())
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}
