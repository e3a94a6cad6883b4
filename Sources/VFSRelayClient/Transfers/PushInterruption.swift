#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
import VFSCore
import VFSRelayProtocol

/// Ctrl-C, kill or hang-up (SIGINT, SIGTERM, SIGHUP) during a push: the signal is only
/// recorded while the push runs (`SignalCleanup` defers it), and answered here before the
/// process dies of it, so that the transfer always ends one way or the other and the
/// sender is told which:
///
/// - sealed to the end (the whole bundle is in the relay or the spool): the push is kept,
///   as rclone keeps a copy to go on with; `vfs-push resume` finishes it, `vfs-push resume
///   --drop ID` withdraws it;
/// - not sealed yet (the bundle's key dies with this process, so it could never be
///   resumed): withdrawn, as croc and wormhole do, its upload terminated on the relay (its
///   bytes and quota freed, the copies of its transfer cancelled) and its spool removed.
///
/// A push killed outright (SIGKILL) has no say: the relay expires its upload once it gets
/// no bytes for the relay's idle expiry, and `vfs-push resume` ends its spool.
package final class PushInterruption: Sendable {
    let record: SpoolRecord
    let client: RelayClient
    let report: ClientReport
    /// The spool's files registered for removal on a signal (until sealed).
    package let unsealed: [String]
    private let claimed = NIOLockedValueBox(false)

    package init(record: SpoolRecord, client: RelayClient, report: ClientReport, unsealed: [String]) {
        (self.record, self.client, self.report, self.unsealed) = (record, client, report, unsealed)
    }

    /// Defers the terminating signals and watches for one until `finish`.
    package func start() -> Task<Void, Never> {
        SignalCleanup.beginDeferring()
        return Task {
            while !Task.isCancelled {
                if SignalCleanup.pendingSignal != 0 { await answer() }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// A point past which the push must not go once interrupted (it would make a new
    /// upload, or remove a spool the answer keeps): there it waits for the end.
    package func checkpoint() async {
        if SignalCleanup.pendingSignal != 0 || claimed.withLockedValue({ $0 }) { await answer() }
    }

    /// The push ended (either way): stops watching; a signal that came meanwhile is answered.
    package func finish(_ watcher: Task<Void, Never>) async {
        watcher.cancel()
        await checkpoint()
        SignalCleanup.endDeferring()
    }

    /// Answers the signal once (the other callers wait for the process to die of it).
    func answer() async {
        let first = claimed.withLockedValue { claimed in
            defer { claimed = true }
            return !claimed
        }
        guard first else { return await Self.waitForTheEnd() }
        // No change to push.json from now on: what it says is what the answer goes by.
        let spool = record.close()
        let id = PushSpool.id(of: record.dir)
        let name = spool.transfer.map { "transfer \($0)" } ?? "push \(id)"
        if !FileManager.default.fileExists(atPath: record.dir + "/push.json") {
            // It ended just as the signal came.
            report.info("interrupted: \(name) had been sent")
        } else if spool.length != nil {
            for path in unsealed { SignalCleanup.forget(path) }
            report.info("interrupted: \(name) was kept (its bundle is sealed); \"vfs-push resume\" finishes it, "
                        + "\"vfs-push resume --drop \(spool.transfer ?? id)\" withdraws it")
        } else if let location = spool.location {
            do {
                try await TusUploader(client: client).terminate(location)
                report.info("interrupted: \(name) was withdrawn (not sealed to the end, it could not be resumed): its targets get nothing")
            } catch RelayClientError.rejected(404, _, _) {
                report.info("interrupted: \(name) was withdrawn (not sealed to the end, it could not be resumed): its targets get nothing")
            } catch {
                report.warn("interrupted: \(name) could not be withdrawn (\(error)); the relay expires it once its upload gets no bytes "
                            + "for its idle expiry, and \"vfs-push resume\" removes what is left here")
            }
            PushSpool.remove(record.dir)
        } else {
            PushSpool.remove(record.dir)
            report.info("interrupted before the relay had any of it: nothing was sent")
        }
        // Dies of the signal (the files still registered for it removed first).
        SignalCleanup.endDeferring()
        await Self.waitForTheEnd()
    }

    /// Never returns: the process is about to die of its signal.
    static func waitForTheEnd() async {
        while true { await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in } }
    }
}
