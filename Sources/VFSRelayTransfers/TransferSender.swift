#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSBundle
import VFSCore
import VFSRelayClient
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// vfs-push's way from files to a transfer: the bundle is planned (the files walked;
/// their digests come after the last, `BundleDigests`), sealed into a `PushSpool` on a
/// thread of its own while the sealed bytes go up in a tus upload, and the transfer is
/// made (while it uploads when it can); `deliver` finishes a spool a killed or cut-off
/// push left (`vfs-push resume`).
package struct TransferSender {
    let client: RelayClient
    /// The session's home (`$VFS_HOME`), which holds the spools (`PushSpool`).
    let home: String
    /// No progress bar.
    let report: ClientReport

    package init(client: RelayClient, home: String, report: ClientReport) {
        self.client = client
        self.home = home
        self.report = report
    }

    /// Plans the bundle of `paths` (`-` is standard input, named `standardInputName`),
    /// makes its spool folder, then seals it there while it is uploaded (`push`).
    /// `group`: the group the bundle belongs to (vfs-fetch --for checks it).
    /// Returns the transfer and how many names could not be stored (each named in a warning).
    package func send(_ paths: [String], standardInputName: String?, to targets: PushTargets, group: String?, lifetime: Int?,
                      cloud: String?, announce: @escaping @Sendable (String) -> Void) async throws -> (OutboxEntry, Int) {
        // The digests last (manifest version 2): each file is read once, as it is sealed, and
        // the upload starts with the first bytes read instead of after every file was hashed.
        let plan = try BundlePlan(paths: paths.filter { $0 != "-" }, standardInputName: paths.contains("-") ? standardInputName : nil,
                                  standardInput: FileDescriptorSource.standardInput(), digestsLast: true, warning: report.warn)
        let manifest = plan.manifest(group: group, accessID: nil, sender: targets.sender)
        let dir = try PushSpool(devices: targets.devices.map(\.id), names: targets.devices.map(\.name), lifetime: lifetime, cloud: cloud,
                                users: targets.colleagues.isEmpty ? nil : targets.colleagues.map { UserTarget(user: $0.user, devices: $0.devices.map(\.id)) })
            .create(home: home)
        let job = SealJob(plan: plan, manifest: manifest, recipients: targets.recipients, signer: targets.signer)
        // The id is announced as soon as the transfer exists (while it uploads, for targets fetching it).
        // Memory bounded whatever the size and the cores (issue 26: 1 GiB under 96 MiB):
        // zstd without workers (it would take 64 MiB on 2 cores, more with more), beside
        // the encryptor's workers and the upload window. And zstd only if the content
        // shrinks (CompressionEstimate, sampled while the plan hashed it): on random data,
        // media and archives it would spend a CPU-second per GiB on the push's critical path.
        let compress = plan.compression.worthCompressing
        let entry = try await push(dir, total: plan.contentBytes, announce: announce) { sink in
            try BundleWriter.seal(job.plan, manifest: job.manifest, compress: compress, compressOnAllCores: false,
                                  recipients: job.recipients, to: sink, signer: job.signer)
        }
        return (entry, plan.refused.count)
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
    func push(_ dir: String, total: Int, announce: @escaping @Sendable (String) -> Void,
              seal: @escaping @Sendable (ByteSink) throws -> Void) async throws -> OutboxEntry {
        // push.json changes from two sides (the upload's location, the sealed length): one at a time.
        let record = SpoolRecord(try PushSpool.load(dir), dir: dir)
        // Until the bundle is sealed to the end the spool cannot be resumed: Ctrl-C (or
        // a kill, a hang-up) withdraws the push, after that it keeps it for `vfs-push
        // resume`, and says which (`PushInterruption`); the process then dies of the
        // signal (exit 130 for SIGINT, 143 for SIGTERM).
        let unsealed = [dir + "/bundle.age", dir + "/push.json", dir]
        for name in unsealed { SignalCleanup.removeOnSignal(name) }
        let interruption = PushInterruption(record: record, client: client, report: report, unsealed: unsealed)
        let watcher = interruption.start()
        let result: Result<OutboxEntry, any Error>
        do {
            result = .success(try await push(record, interruption: interruption, total: total, announce: announce, seal: seal))
        } catch {
            do {
                result = .success(try await goOn(record, after: error, interruption: interruption, announce: announce))
            } catch {
                result = .failure(error)
            }
        }
        await interruption.finish(watcher)
        return try result.get()
    }

    /// A push whose upload or transfer failed for a reason that passes (the relay
    /// restarting, full, busy), its sealed spool kept: resumed from the relay's offset, as
    /// `vfs-push resume` would, for as long as the client's `--retry-for` allows.
    func goOn(_ record: SpoolRecord, after failure: any Error, interruption: PushInterruption,
              announce: @escaping @Sendable (String) -> Void) async throws -> OutboxEntry {
        let dir = record.dir
        // The transfer made while it uploaded was announced then.
        let announced = record.current.transfer
        var failure = failure
        var attempt = 0
        while true {
            attempt += 1
            try await client.retry.pause(after: failure, attempt: attempt, .resumable)
            await interruption.checkpoint()
            guard FileManager.default.fileExists(atPath: dir + "/push.json") else { throw failure }
            do {
                let entry = try await deliver(dir)
                if entry.id != announced { announce(entry.id) }
                return entry
            } catch let error where Self.refusedForGood(error) {
                await drop(dir)
                throw TransferError.refused(error)
            } catch {
                failure = kept(error)
            }
        }
    }

    func push(_ record: SpoolRecord, interruption: PushInterruption, total: Int, announce: @escaping @Sendable (String) -> Void,
              seal: @escaping @Sendable (ByteSink) throws -> Void) async throws -> OutboxEntry {
        let dir = record.dir
        let path = dir + "/bundle.age"
        let unsealed = interruption.unsealed
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
        let client = self.client
        let streaming = Task { () -> OutboxEntry? in
            for await location in firstBytes {
                let spool = record.current
                guard spool.cloud == nil else { return nil }
                do {
                    let entry = try await client.createTransfer(spool.transferRequest(upload: Self.uploadID(location), streaming: true))
                    try record.update { $0.transfer = entry.id }
                    announce(entry.id)
                    return entry
                } catch {
                    // Made the ordinary way once the upload ended (or found, if this made it).
                    if RetryPolicy.answerLost(error) { try? record.update { $0.asked = true } }
                    return nil
                }
            }
            return nil
        }
        var uploadError: (any Error)?
        do {
            let bar = report.progress("pushing", total)
            defer { bar?.finish() }
            // Its receivers check every byte against the signed digests: the relay need not hash it.
            let location = try await uploader.create(length: nil, deferDigest: true)
            try record.update { $0.location = location }
            try await uploader.send(window, to: location, progress: progress(bar, limit: total), confirmed: { offset in
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
            await interruption.checkpoint()
            if let location = record.current.location { try? await uploader.terminate(location) }
            PushSpool.remove(dir)
            for name in unsealed { SignalCleanup.forget(name) }
            throw error
        }
        await interruption.checkpoint()
        let spool = record.current
        if let uploadError {
            if case RelayClientError.rejected(404, _, _) = uploadError {
                // The upload expired or was removed: start it again from the spool (unless
                // its transfer was withdrawn).
                return try await restart(dir, spool)
            }
            throw kept(uploadError)
        }
        do {
            let entry = try await createTransfer(dir, spool: spool)
            if early == nil { announce(entry.id) }
            return entry
        } catch let error where Self.refusedForGood(error) {
            // Never to be taken (a person disabled or removed, a device revoked meanwhile):
            // nothing is kept for a resume that could only fail again.
            await drop(dir)
            throw TransferError.refused(error)
        } catch let error where FileManager.default.fileExists(atPath: dir + "/push.json") {
            throw kept(error)
        }
    }

    /// The upload's id: the last part of its location.
    static func uploadID(_ location: String) -> String { String(location.split(separator: "/").last ?? "") }

    /// The error of a push whose sealed spool was kept, with the hint that finishes it.
    func kept(_ error: any Error) -> any Error {
        report.reportable(error) ? TransferError.kept(error) : error
    }

    /// Delivers the spools `pending` (`vfs-push resume`: `PushSpool.pending()`), announcing
    /// each transfer, and goes on past one that fails: a push that can never be sent (killed
    /// while sealing, its upload lost, its transfer cancelled, or refused for good: its
    /// targets or their user gone or disabled) is reported and dropped (its spool removed,
    /// its upload terminated); one that may go later (the relay unreachable, full, busy)
    /// is reported and kept. Either ends in `.resumeIncomplete`.
    package func resume(_ pending: [String], announce: (String) -> Void) async throws {
        var (dropped, kept) = (0, 0)
        var cause: (any Error)?
        for dir in pending {
            let id = PushSpool.id(of: dir)
            do {
                // One that fails for a while is resumed again, as --retry-for allows.
                announce(try await client.retry.run(.resumable) { try await deliver(dir) }.id)
            } catch let error as TransferError where error.isUnsealedSpool {
                report.error("push \(id): \(error); dropped")
                dropped += 1
            } catch let error where Self.refusedForGood(error) {
                await drop(dir)
                report.error("push \(id): \(error); it can never be sent, dropped")
                dropped += 1
            } catch {
                report.error("push \(id): \(error); kept for the next \"vfs-push resume\"")
                kept += 1
                if cause == nil { cause = error }
            }
        }
        if dropped > 0 || kept > 0 {
            throw TransferError.resumeIncomplete(dropped: dropped, kept: kept, cause: cause)
        }
    }

    /// A refusal the same request can never get past: the relay no longer knows a target
    /// (a device revoked, a user removed, disabled or moved away: 404, 403) or refuses its
    /// body (400). A revoked token (401), a full relay or quota, and no answer may pass later.
    static func refusedForGood(_ error: any Error) -> Bool {
        if case RelayClientError.rejected(let status, _, _) = error { return [400, 403, 404].contains(status) }
        switch error as? RelayClientError {
        case .noSuchDevice, .noSuchUser, .noSuchGroup, .noSuchTransfer: return true
        default: return false
        }
    }

    /// Withdraws a pending push: its transfer cancelled on the relay (which removes its
    /// upload) or else its upload terminated, then its spool removed. The relay's answer
    /// does not matter: what it keeps, its idle expiry removes.
    package func drop(_ dir: String) async {
        if let spool = try? PushSpool.load(dir) {
            if let transfer = spool.transfer {
                try? await client.cancel(transfer)
            }
            if let location = spool.location {
                try? await TusUploader(client: client).terminate(location)
            }
        }
        PushSpool.remove(dir)
    }

    /// Uploads a sealed spool (resuming) and creates the transfer; removes the spool once it exists.
    func deliver(_ dir: String) async throws -> OutboxEntry {
        var spool = try PushSpool.load(dir)
        let uploader = TusUploader(client: client)
        guard let length = spool.length else {
            // Killed while sealing: the bundle's key died with that process.
            if let location = spool.location { try? await uploader.terminate(location) }
            PushSpool.remove(dir)
            throw TransferError.interruptedBeforeSealed(spool: dir)
        }
        if spool.location == nil, let base = spool.base, base > 0 {
            // The upload is gone, and with it the bytes the spool did not keep.
            PushSpool.remove(dir)
            throw TransferError.uploadLost(spool: dir, base: base)
        }
        do {
            spool.location = try await uploader.upload(file: dir + "/bundle.age", length: length, base: spool.base ?? 0, at: spool.location,
                                                       label: "pushing", report: report) { location in
                spool.location = location
                try spool.save(dir)
            }
        } catch RelayClientError.rejected(404, _, _) {
            // The upload expired or was removed: start it again from the spool (unless its
            // transfer was withdrawn).
            return try await restart(dir, spool)
        }
        return try await createTransfer(dir, spool: spool)
    }

    /// The relay no longer has the spool's upload (it expired, idle, or was removed). A
    /// transfer made of it while it uploaded that its sender cancelled stays withdrawn:
    /// the spool goes (`.withdrawn`). Otherwise the push starts again from the spool, as a
    /// new transfer (the old one's copies expired with the upload).
    func restart(_ dir: String, _ spool: PushSpool) async throws -> OutboxEntry {
        if let made = try await madeUnanswered(dir, spool) { return try await delivered(dir, spool, made) }
        var spool = spool
        if let transfer = spool.transfer {
            let made = try await client.outbox().first { $0.id == transfer }
            if made?.recipients.contains(where: { $0.status == .cancelled }) == true {
                PushSpool.remove(dir)
                throw TransferError.withdrawn(transfer: transfer)
            }
            spool.transfer = nil
        }
        spool.location = nil
        try spool.save(dir)
        return try await deliver(dir)
    }

    /// The upload is complete: the transfer (and the cloud copy) from it; the spool goes.
    /// A transfer made while it uploaded got its content from the upload's last PATCH;
    /// asking for it again (`streaming`) finishes it if that PATCH's answer was lost, and
    /// 404 (the upload was consumed) says it had.
    func createTransfer(_ dir: String, spool: PushSpool) async throws -> OutboxEntry {
        let upload = Self.uploadID(spool.location ?? "")
        let request = spool.transferRequest(upload: upload, streaming: spool.transfer == nil ? nil : true)
        let entry: OutboxEntry
        do {
            entry = try await client.createTransfer(request)
        } catch RelayClientError.rejected(404, _, _) where spool.transfer != nil {
            guard let made = try await client.outbox().first(where: { $0.id == spool.transfer }) else {
                throw RelayClientError.noSuchTransfer(spool.transfer!)
            }
            entry = made
        } catch let error as RelayClientError where error.status == 404 && spool.asked == true {
            // No such upload: a request whose answer was lost (the relay restarting) may
            // have made it a transfer.
            guard let made = try await madeUnanswered(dir, spool) else { throw error }
            entry = made
        } catch let error where RetryPolicy.answerLost(error) && spool.transfer == nil {
            var asked = spool
            asked.asked = true
            try? asked.save(dir)
            throw error
        }
        return try await delivered(dir, spool, entry)
    }

    /// The transfer a request whose answer was lost made of the spool's upload (the relay
    /// consumed the upload, so asking again finds none, and the transfer's id was never
    /// heard of): the one transfer in the outbox of the bundle's size and exactly the
    /// spool's target devices made since the spool was (five minutes' leeway for the
    /// relay's clock). Nil when there is none, or more than one to choose from.
    func madeUnanswered(_ dir: String, _ spool: PushSpool) async throws -> OutboxEntry? {
        guard spool.transfer == nil, spool.asked == true, let length = spool.length,
              let millis = Int(PushSpool.id(of: dir).split(separator: "-").first ?? "") else { return nil }
        let since = Date(timeIntervalSince1970: Double(millis) / 1000 - 300)
        let targets = Set(spool.devices + (spool.users ?? []).flatMap(\.devices))
        let made = try await client.outbox().filter {
            $0.size == length && $0.created >= since && Set($0.recipients.map(\.device)) == targets
        }
        return made.count == 1 ? made[0] : nil
    }

    /// The transfer exists: the spool goes, and the cloud copy is made of it.
    func delivered(_ dir: String, _ spool: PushSpool, _ entry: OutboxEntry) async throws -> OutboxEntry {
        PushSpool.remove(dir)
        if let cloud = spool.cloud {
            do {
                _ = try await client.cloudPut(cloud, CloudPut(transfer: entry.id))
            } catch let error as RelayClientError {
                throw TransferError.cloudCopyNotKept(transfer: entry.id, cloud: cloud, error)
            }
        }
        return entry
    }
}

/// What the sealing thread needs, handed to it (and used by it alone).
struct SealJob: @unchecked Sendable {
    let plan: BundlePlan
    let manifest: BundleManifest
    let recipients: [AgeRecipient]
    let signer: BundleSignature.Signer?
}
