#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// `vfs-fetch --watch`: the event stream drives fetches. Every (re)connection first
/// fetches whatever waits in the inbox, so a transfer sent while the watcher or the
/// relay was down is not lost; each `transfer` event fetches again; `logout` erases
/// the credentials (and with --wipe-on-logout shreds DIR) and ends the run with 77.
package struct InboxWatcher {
    let tool: ReceiveOptions
    let session: RelaySession
    /// `--exec`: run (sh -c) after each transfer.
    let exec: String?
    /// `--wipe-on-logout`: shred DIR when the relay logs this device out.
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
            try logOut()
        }
        throw RelayClientError.loggedOut(device: session.config.name)
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
                    try logOut()
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
        for entry in try await client.inbox() where !failed.ids.contains(entry.id) {
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

    func logOut() throws {
        // Enrolled again meanwhile (vfs-device enroll --force revokes the old device): the
        // credentials and DIR are the new device's now, and stay.
        if let current = try? DeviceConfig.load(home: session.home, paths: VFSPaths(environment: [:])),
           current.device != session.config.device {
            throw TransferError.loggedOutReenrolled(name: session.config.name, device: session.config.device,
                                                    newName: current.name, newDevice: current.device)
        }
        if wipeOnLogout, let folder = tool.directory {
            var options = ShredOptions()
            options.recursive = true
            options.force = true
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).map { folder + "/" + $0 }
            Shredder(options: options).shred(names)
        }
        try session.credentials.erase()
        let incoming = try TransferReceiver.incoming
        for name in (try? FileManager.default.contentsOfDirectory(atPath: incoming)) ?? [] { unlink(incoming + "/" + name) }
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
