#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayClient
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// `vfs-fetch --watch`: the event stream drives fetches. Every (re)connection first
/// fetches whatever waits in the inbox, so a transfer sent while the watcher or the
/// relay was down is not lost; each `transfer` event fetches again. A `logout` (or the
/// relay's "revoked" answer) ends the run with 77; it erases the credentials (and with
/// --wipe-on-logout shreds DIR) only when the user's verified device chain removed this
/// device by a statement of another of their devices: the relay, its operator or a
/// stolen token can stop a token, never make a device erase its keys.
package struct InboxWatcher {
    let tool: ReceiveOptions
    let session: RelaySession
    /// `--exec`: run (sh -c) after each transfer.
    let exec: String?
    /// `--wipe-on-logout`: shred DIR when the user's device chain removes this device.
    let wipeOnLogout: Bool

    package init(_ options: ReceiveOptions, session: RelaySession, exec: String?, wipeOnLogout: Bool) {
        self.tool = options
        self.session = session
        self.exec = exec
        self.wipeOnLogout = wipeOnLogout
    }

    /// Transfers that failed here (a policy denial, a corrupt one): not retried on
    /// every event; reported once.
    final class Failed: @unchecked Sendable {
        // Sendable: used from one task at a time (the stream's callbacks run in order).
        var ids = Set<String>()
    }

    package func run() async throws {
        do {
            try await watch()
        } catch RelayClientError.rejected(401, RelayErrorCode.revoked.rawValue, _) {
            // Revoked while this watcher was away: the logout event can't be read with a
            // dead token, so the relay's answer stands in for it.
        }
        try await logOut()
    }

    /// Holds the event stream until a `logout` event (returns) or an error (throws).
    func watch() async throws {
        let failed = Failed()
        try await session.withClient { client in
            let receiver = TransferReceiver(tool, session: session, client: client)
            let stream = EventStreamClient(client: client)
            try await stream.run(lastEventID: nil, onConnect: {
                tool.report.info("watching \(session.config.relay) for \"\(session.config.name)\"")
                try await syncPolicy(client)
                try await catchUp(receiver, client: client, failed: failed)
            }, onEvent: { event in
                switch event.type {
                case RelayEventKind.transfer.rawValue:
                    try await catchUp(receiver, client: client, failed: failed)
                    return .keepGoing
                case RelayEventKind.policy.rawValue:
                    try await syncPolicy(client)
                    return .keepGoing
                case RelayEventKind.logout.rawValue:
                    return .stop
                default:
                    return .keepGoing
                }
            }, onDisconnect: { error, wait in
                tool.report.info("\(error.description); connecting again in \(DecimalText.oneDecimal(wait)) s")
            })
        }
    }

    /// Refreshes this device's copy of the organisation's policy (RelayPolicyCache) on
    /// every connection (a change made while away) and every `policy` event, so checks
    /// here follow an admin's change within a second. A failure other than the relay
    /// going away is reported and the watch goes on (the copy stays as it was).
    func syncPolicy(_ client: RelayClient) async throws {
        do {
            let origin = try await RelayPolicySync.refresh(client: client, cache: try RelayPolicyCache(paths: .current))
            tool.report.info("policy synced (revision \(origin.revision))")
        } catch let error as RelayClientError {
            if case .unreachable = error { throw error }
            tool.report.error("policy sync: \(error.description)")
        } catch where tool.report.reportable(error) {
            tool.report.error("policy sync: \(error)")
        }
    }

    func catchUp(_ receiver: TransferReceiver, client: RelayClient, failed: Failed) async throws {
        // Each transfer is checked end to end (--raw asks the relay for the SHA-256 it lacks).
        for entry in try await client.inbox(digests: false) where !failed.ids.contains(entry.id) {
            do {
                let names = try await receiver.receive(entry)
                tool.report.info("fetched \(entry.id) into \(tool.directory ?? ".")")
                if let command = exec { runHook(command, transfer: entry.id, files: names) }
            } catch let error as RelayClientError {
                // The relay going away is the stream's business (it reconnects).
                if case .unreachable = error { throw error }
                failed.ids.insert(entry.id)
                tool.report.error("transfer \(entry.id): \(error.description)")
            } catch where tool.report.reportable(error) {
                failed.ids.insert(entry.id)
                tool.report.error("transfer \(entry.id): \(error)")
            }
        }
    }

    /// The relay logged this device out. Always throws: `.loggedOut` after erasing the
    /// credentials (and shredding DIR) when the chain removed this device,
    /// `.loggedOutByRelay` (nothing erased) otherwise.
    func logOut() async throws {
        // Enrolled again meanwhile (vfs-device enroll --force revokes the old device): the
        // credentials and DIR are the new device's now, and stay.
        if let current = try? DeviceConfig.load(home: session.home, paths: VFSPaths(environment: [:])),
           current.device != session.config.device {
            throw TransferError.loggedOutReenrolled(name: session.config.name, device: session.config.device,
                                                    newName: current.name, newDevice: current.device)
        }
        let remover: String
        do {
            guard let name = try await removedBy() else {
                throw TransferError.loggedOutByRelay(name: session.config.name, device: session.config.device, reason: nil)
            }
            remover = name
        } catch let error as TransferError {
            throw error
        } catch {
            throw TransferError.loggedOutByRelay(name: session.config.name, device: session.config.device, reason: "\(error)")
        }
        tool.report.info("\"\(DisplayText.printable(remover))\" removed this device from your device chain: erasing its keys")
        if wipeOnLogout, let folder = tool.directory {
            var options = ShredOptions()
            options.recursive = true
            options.force = true
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).map { folder + "/" + $0 }
            Shredder(options: options).shred(names)
        }
        try session.credentials.erase()
        let incoming = ReceiveOptions.incoming(home: session.home)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: incoming)) ?? [] { unlink(incoming + "/" + name) }
        throw RelayClientError.loggedOut(device: session.config.name)
    }

    /// The name of the device that removed this one from its user's device chain, as
    /// the chain says once verified against this machine's pin (the logged-out token
    /// still reads it); nil when the chain holds this device, or no remove of it signed
    /// by another device, or this machine never verified its user's chain (no pin to
    /// hold a relay's chain to).
    func removedBy() async throws -> String? {
        guard let user = session.knownUser else { return nil }
        guard let pinned = try PinStore(home: session.home).head(of: user) else { return nil }
        let me = session.config.device
        return try await session.withClient { client in
            let (statements, refused) = try DeviceChain.decodeWirePrefix(
                try await client.chainDocument(RelayPaths.chain, pinned: pinned.sequence))
            var pins = try PinStore(home: session.home)
            guard !statements.isEmpty else { return nil }
            let verified = try pins.accept(statements, user: user, refused: refused)
            try pins.save()
            session.warnAboutTail(of: verified)
            guard verified.signer(me) == nil else { return nil }
            var kept = statements.prefix(verified.count)
            // Served from a checkpoint after the removal (this machine pinned past it): the
            // removal is in the whole chain, verified against the same pin.
            if kept.first?.sequence != 0, !kept.contains(where: { $0.action == .remove(deviceId: me) }) {
                let (whole, refused) = try DeviceChain.decodeWirePrefix(try await client.chainDocument(RelayPaths.chain))
                var pins = try PinStore(home: session.home)
                kept = whole.prefix(try pins.accept(whole, user: user, refused: refused).count)
            }
            guard let removal = kept.last(where: { $0.action == .remove(deviceId: me) }), removal.signer != me else { return nil }
            // The remover's name, from the statement that added it (or a checkpoint
            // restating it: the chain may be served from one).
            for statement in kept {
                switch statement.action {
                case .add(let entry) where entry.id == removal.signer: return entry.name
                case .checkpoint(let checkpoint):
                    if let entry = checkpoint.devices.first(where: { $0.id == removal.signer }) { return entry.name }
                default: continue
                }
            }
            return removal.signer
        }
    }

    /// `sh -c CMD` with every top-level path unpacked as "$@", and VFS_FILE (the first),
    /// VFS_DIR and VFS_TRANSFER; its failure is reported, not fatal.
    func runHook(_ command: String, transfer: String, files: [String]) {
        var environment = ProcessInfo.processInfo.environment
        environment["VFS_TRANSFER"] = transfer
        environment["VFS_DIR"] = tool.directory ?? "."
        environment["VFS_FILE"] = files.first ?? ""
        do {
            let status = try ShellCommand.run(command, environment: environment, arguments: files)
            if status != 0 {
                tool.report.warn("--exec command exited with \(status) for transfer \(transfer)")
            }
        } catch {
            tool.report.warn("cannot run the --exec command: \(error)")
        }
    }
}
