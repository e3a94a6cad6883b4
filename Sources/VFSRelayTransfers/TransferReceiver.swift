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

/// One transfer from the inbox to DIR (or stdout): download with Range into
/// `$VFS_HOME/incoming/ID.age`, decrypt with the device identity, apply vfs-unwrap's
/// checks and policy gate through VFSCore's BundleReader, and acknowledge only after all
/// of that succeeded.
///
/// Each byte is hashed once (SHA-256), by the bundle reader against the digest the
/// sender signed for its file (after the last file; in the manifest for a bundle of a vfs
/// from before): age authenticates every chunk of the download and its end (a truncated
/// or extended one fails), and the signature binds the manifest and the digests to their
/// sender, so the SHA-256 the relay lists for the download (its own word) would only
/// hash the same bytes again. It is checked only when the reading failed after reading
/// the whole download (`DownloadFeed.Digest.onFailure`), so that a download that went
/// wrong is reported as such; `--raw`, which decrypts nothing, checks it.
///
/// A transfer still `uploading` is read as its bytes arrive (`RangeDownloader.follow`),
/// decrypted and staged as they come; its size, known once the upload ended, is where the
/// reading ends, so nothing is placed before the whole was read and authenticated and
/// the sender's signature verified.
///
/// The download and the unpacking run at once (`StreamedDownload`): the policy gate is
/// decided on the manifest, at the start of the bundle. Into DIR, nothing is placed until
/// the whole download was read and authenticated (the unpacking reads its input to the
/// end before it moves anything out of its staging folder). With `--stdout` nothing is
/// written before the signature after the last file passed: the transfer is read through
/// once as it downloads, then decrypted again from the kept download to standard output
/// (`writeAgain`); a bundle whose signature follows its manifest (a vfs from before)
/// streams as it is decrypted, each 64 KiB chunk authenticated by age before it is
/// written. The transfer is acknowledged only once everything checked. `--raw`
/// writes ciphertext nobody has checked yet: it downloads and checks first. What
/// nothing checks as it arrives (`--raw`, `--allow-unverified`) is bounded by
/// `followLimit` while the transfer uploads (its size unknown); past the size the relay
/// lists, any download stops. Either refusal removes the partial file.
package struct TransferReceiver {
    let tool: ReceiveOptions
    let session: RelaySession
    let client: RelayClient
    /// The user's verified device chain, which senders are verified against.
    var trust: DeviceTrust?
    /// The verified chain of the user the relay names as the sender, when that is
    /// another user of the organisation (pinned as `vfs-push --to` pins it).
    var senderChain: DeviceChain.Verified?
    /// Why that chain could not be verified (a changed root, a fork): the sender is then
    /// unverified, refused unless --allow-unverified.
    var senderChainError: Error?

    package init(_ options: ReceiveOptions, session: RelaySession, client: RelayClient) {
        self.tool = options
        self.session = session
        self.client = client
    }

    /// The top-level names unpacked (for --exec), empty for --stdout/--raw.
    package func receive(_ entry: InboxEntry) async throws -> [String] {
        let incoming = ReceiveOptions.incoming(home: session.home)
        try FileManager.default.createDirectory(atPath: incoming, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let part = incoming + "/" + entry.id + ".age"
        let bar = tool.report.progress("fetching", Int(entry.size))
        let update = progress(bar)
        if let external = entry.external, !tool.raw {
            let names = try await receiveExternal(entry, origin: external, part: part, progress: update)
            bar?.finish()
            try await client.ack(entry.id)
            unlink(part)
            return names
        }
        if !tool.raw {
            var receiver = self
            receiver.trust = try await session.deviceTrust(client)
            if let user = entry.senderUser, user != receiver.trust?.user {
                do {
                    receiver.senderChain = try await session.colleagueChain(user, client: client)
                } catch let error as DeviceChainError {
                    receiver.senderChainError = error
                }
            }
            let names = try await receiver.streamed(entry, part: part, progress: update)
            bar?.finish()
            try await client.ack(entry.id)
            unlink(part)
            return names
        }
        do {
            let downloader = self.downloader
            var whole = entry
            if entry.status == .uploading { whole = try await downloader.follow(entry, to: part, progress: update) }
            // --raw checks the ciphertext against the listed SHA-256 alone: one the relay
            // deferred (`DeferredDigest`) is asked for.
            if whole.sha256.isEmpty {
                guard let listed = try await client.inbox().first(where: { $0.id == entry.id }) else {
                    throw RelayClientError.noSuchTransfer(entry.id)
                }
                whole = listed
            }
            try await downloader.download(whole, to: part, progress: update)
        } catch RelayClientError.rejected(404, _, _) {
            bar?.finish()
            throw RelayClientError.noSuchTransfer(entry.id)
        }
        bar?.finish()
        try FileDescriptorSource(path: part).copy(to: FileDescriptorSink.standardOutput())
        return []
    }

    /// An external transfer (issue 51, item 4): a file sent in through one of this user's
    /// file requests by someone without a device. It is an age file of anything, not a
    /// bundle, and nothing signs it: that is said on stderr every time (not only with -v),
    /// and --verified-only (a verified sender only) and --for (a policy judges a bundle's
    /// group and file types, which it has none of) refuse it, 77. Downloaded whole (the
    /// relay makes it of a finished upload), decrypted with this device's identity into
    /// a staging file in DIR, and placed under the name its sender gave (one file name,
    /// else `external-ID`) only once age authenticated all of it, never over a file
    /// that exists (73). With --stdout each chunk goes out once age authenticated it.
    func receiveExternal(_ entry: InboxEntry, origin: ExternalOrigin, part: String, progress: (@Sendable (Int64) -> Void)?) async throws -> [String] {
        if tool.verifiedOnly {
            throw TransferError.externalRefused(transfer: entry.id, why: "--verified-only takes transfers of verified senders only")
        }
        if tool.app != nil {
            throw TransferError.externalRefused(transfer: entry.id, why: "--for judges a bundle's group and file types, and it has none")
        }
        tool.report.warn("transfer \(entry.id) is external: sent in through your file request \(origin.request) by someone without a device; no device signed it, so nothing says who sent it")
        do {
            try await downloader.download(entry, to: part, progress: progress)
        } catch RelayClientError.rejected(404, _, _) {
            throw RelayClientError.noSuchTransfer(entry.id)
        }
        guard let identity = session.credentials.identity else {
            throw RelayClientError.missingCredential(what: "identity", place: "this run")
        }
        let decryptor = try AgeDecryptor(source: try FileDescriptorSource(path: part))
        let fileKey = try decryptor.fileKey(identities: [identity])
        if tool.toStandardOutput {
            try decryptor.decrypt(fileKey: fileKey, to: FileDescriptorSink.standardOutput())
            return []
        }
        let folder = tool.directory ?? "."
        let name = Self.externalName(origin.name, transfer: entry.id)
        let staging = folder + "/.vfs-external-" + entry.id
        let fd = open(staging, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw TransferError.externalNotPlaced(path: staging, errno: errno) }
        do {
            let sink = FileDescriptorSink(fd: fd, name: staging, owned: true)
            try decryptor.decrypt(fileKey: fileKey, to: sink)
            guard fsync(fd) == 0 else { throw TransferError.externalNotPlaced(path: staging, errno: errno) }
        } catch {
            unlink(staging)
            throw error
        }
        let path = folder + "/" + name
        // link(2) never replaces what is there.
        let linked = link(staging, path) == 0 ? 0 : errno
        unlink(staging)
        guard linked == 0 else { throw TransferError.externalNotPlaced(path: path, errno: linked) }
        if tool.verbose { tool.report.write(DisplayText.printable(name) + "\n") }
        return [path]
    }

    /// The name an external transfer is placed under: its sender's when it is one file
    /// name (no `/`, not `.` or `..`, no control character, not a hidden staging name, at
    /// most 255 bytes), else `external-ID`.
    static func externalName(_ given: String?, transfer: String) -> String {
        guard let given, !given.isEmpty, given.utf8.count <= 255, given != ".", given != "..", !given.contains("/"),
              !given.hasPrefix(".vfs-external-"), !given.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return "external-" + transfer
        }
        return given
    }

    /// The downloader, following an upload no further than `followLimit`.
    var downloader: RangeDownloader {
        var downloader = RangeDownloader(client: client)
        downloader.followLimit = tool.followLimit
        downloader.followIdle = tool.followIdle
        return downloader
    }

    /// Downloads into `part` while a thread unpacks what is there. A failed download or
    /// SHA-256 wins over the unpacking's own error (which is then only its consequence).
    func streamed(_ entry: InboxEntry, part: String, progress: (@Sendable (Int64) -> Void)?) async throws -> [String] {
        // The unpacking authenticates every byte (age, the signed manifest's digests).
        let feed = try DownloadFeed(path: part, transfer: entry, digest: .onFailure)
        let receiver = Handoff(value: self)
        do {
            return try await StreamedDownload.run(feed, read: { try receiver.value.unwrap($0, transfer: entry.id, kept: part) }) {
                let downloader = self.downloader
                var whole = entry
                if entry.status == .uploading {
                    // Still uploading: the bytes as they arrive, then the size (where the
                    // reading ends) and SHA-256 once the upload ended.
                    whole = try await downloader.follow(entry, to: part, feed: feed, progress: progress)
                    feed.settle(size: whole.size, sha256: whole.sha256)
                }
                try await downloader.download(whole, to: part, feed: feed, progress: progress)
            }.get()
        } catch RelayClientError.rejected(404, _, _) {
            throw RelayClientError.noSuchTransfer(entry.id)
        }
    }

    /// Unpacks the transfer read from `source`, the download being kept at `kept`.
    func unwrap(_ source: ByteSource, transfer: String, kept: String) throws -> [String] {
        guard let identity = session.credentials.identity else {
            throw RelayClientError.missingCredential(what: "identity", place: "this run")
        }
        let decryptor = try AgeDecryptor(source: source)
        let fileKey = try decryptor.fileKey(identities: [identity])
        return try BundleReader.openSealed(decryptor, fileKey: fileKey) { reader -> [String] in
            let manifest = reader.manifest
            // Version 1: at once. Version 2 (the digests, then the signature, after the last
            // file): once the last file is read, before anything is placed.
            try reader.whenSignatureRead { try checkSender($0, transfer: transfer) }
            if let app = tool.app {
                try tool.authorize(app, manifest.group, manifest.contentEntries.map(\.path))
            }
            if tool.toStandardOutput {
                guard manifest.digestsLast else {
                    try reader.writeSingleFile(to: FileDescriptorSink.standardOutput())
                    return []
                }
                // The signature comes last: nothing goes out before it passed. The whole is
                // read once into nothing, then again from the download kept in `kept`.
                try reader.checkSingleFile()
                try reader.readThrough()
                try writeAgain(kept: kept, identity: identity, as: reader)
                return []
            }
            let folder = tool.directory ?? "."
            _ = try reader.extract(into: folder, force: false, noBackup: tool.noBackup)
            if tool.verbose {
                for entry in reader.extractedEntries {
                    tool.report.write(DisplayText.printable(entry.path) + (entry.type == .directory ? "/" : "") + "\n")
                }
            }
            tool.reportMarks(reader.backupMarks, folder)
            var tops: [String] = []
            for entry in manifest.entries {
                let top = String(entry.path.split(separator: "/").first ?? "")
                if !top.isEmpty && !tops.contains(top) { tops.append(top) }
            }
            return tops.map { folder + "/" + $0 }
        }
    }

    /// The second reading of a one-file transfer whose signature comes last, for --stdout,
    /// from the download kept at `kept` once `first` read it all and it passed every check:
    /// its manifest, digests and signature must be those `first` read (the digests are
    /// checked again as it is read).
    func writeAgain(kept: String, identity: any Identity, as first: BundleReader) throws {
        let decryptor = try AgeDecryptor(source: try FileDescriptorSource(path: kept))
        let fileKey = try decryptor.fileKey(identities: [identity])
        try BundleReader.openSealed(decryptor, fileKey: fileKey) { reader in
            try reader.whenSignatureRead { again in
                guard again.manifestBytes == first.manifestBytes, again.digestsEntry == first.digestsEntry,
                      again.signatureEntry == first.signatureEntry else {
                    throw BundleError.manifest("the kept download \(kept) changed while it was read")
                }
            }
            try reader.writeSingleFile(to: FileDescriptorSink.standardOutput())
        }
    }

    /// The devices a signature names, as "NAME of USER" where a verified chain holds them
    /// (the id otherwise).
    static func describe(_ recipients: [String], known chains: [DeviceChain.Verified]) -> String {
        let names = recipients.map { id -> String in
            for chain in chains { if let entry = chain.devices[id] { return "\"\(DisplayText.printable(entry.name))\" of \(DisplayText.printable(chain.user))" } }
            return id
        }
        return "\(recipients.count) device(s): " + names.joined(separator: ", ")
    }

    /// The sender's signature (docs/device-chain.md), checked against the verified chain
    /// before anything is released: refused (77) when missing, bad or by a device not in
    /// it, unless --allow-unverified, which says so on stderr. -v names the verified sender.
    func checkSender(_ reader: BundleReader, transfer: String) throws {
        // Another user's sender, verified against a chain pinned at first contact but not
        // confirmed with the safety code: a relay could have served that chain.
        var unconfirmed: String?
        do {
            guard let entry = reader.signatureEntry else {
                throw TransferError.notSigned(transfer: transfer)
            }
            let signature = try BundleSignature.decode(entry)
            // The signer's user's chain: this user's, or the sender's the relay named (a
            // signature claiming any other user names nobody this device verified).
            let chains = [trust?.verified, senderChain].compactMap { $0 }
            if signature.user != trust?.user, let senderChainError { throw senderChainError }
            guard let chain = chains.first(where: { $0.user == signature.user }) ?? chains.first else {
                throw BundleSignatureError.unknownDevice(user: signature.user, device: signature.device)
            }
            let device = try signature.verify(manifest: reader.manifestBytes, digests: reader.digestsEntry, chain: chain)
            // Whom it is for and when it was signed (issue 43, item 8): a bundle signed for
            // other devices was forwarded; one whose signature came with another transfer
            // is a replay. A version 2 signature says neither: taken as unverified.
            guard let recipients = signature.recipients, let time = signature.time else {
                throw BundleSignatureError.unaddressed(version: signature.version)
            }
            guard recipients.contains(session.config.device) else {
                throw BundleSignatureError.notForThisDevice(device: session.config.device)
            }
            var seen = try SeenSignatures(home: session.home)
            try seen.record(signature, transfer: transfer)
            try seen.save()
            if chain.user != trust?.user, (try? PinStore(home: session.home))?.isVerified(chain.user) != true {
                unconfirmed = chain.user
            }
            if tool.verbose {
                let how = unconfirmed == nil ? "verified" : "pinned, not confirmed"
                let role = device.sendOnly ? " (send-only)" : ""
                tool.report.info("transfer \(transfer) is from \"\(DisplayText.printable(device.name))\" of \(DisplayText.printable(chain.user))\(role) (\(how))")
                tool.report.info("transfer \(transfer) was signed \(DateText.iso8601(Date(timeIntervalSince1970: TimeInterval(time)))) for \(Self.describe(recipients, known: chains))")
            }
        } catch {
            guard tool.allowUnverified else { throw TransferError.unverifiedSender(reason: error) }
            tool.report.warn("UNVERIFIED sender of transfer \(transfer): \(error)")
        }
        if let user = unconfirmed {
            if tool.verifiedOnly { throw TransferError.senderNotConfirmed(user: user, transfer: transfer) }
            tool.report.warn("transfer \(transfer) is from \(DisplayText.printable(user)), whose safety code you have not confirmed (\(TransferError.verifyHint(user)))")
        }
    }
}
