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

/// How vfs-push, vfs-fetch and vfs-cloud ride out a relay that goes away for a while (a
/// restart, a full disk, a proxy whose relay is down), as curl `--retry` and rclone do:
/// what failed for a reason that passes is tried again after an exponential backoff with
/// jitter, until `--retry-for` is spent; only then is the last failure reported
/// (`RetriesSpent`). What can never pass (401, 403, 404, 413, a bad request, a refused
/// signature or chain) is reported at once. The one place that says which failures pass
/// (`isTemporary`) and how long to wait; `RelayClient` (each request), `TusUploader`,
/// `RangeDownloader` and `TransferSender` (a spooled push) go by it.
public struct RetryPolicy: Sendable {
    /// What it means to do the failed thing again.
    public enum Replay: Sendable {
        /// A request the relay may have carried out before its answer was lost (POST, PUT,
        /// DELETE, MOVE): sent again only when it surely was not (no connection was made,
        /// or the answer refused it for now: 429, 502, 503, 504, 507).
        case once
        /// Harmless to do again whatever happened (GET, HEAD; a download that resumes
        /// with Range): a cut connection and a 500 pass too.
        case idempotent
        /// A tus upload or a spooled push, resumed from the relay's offset: as
        /// `idempotent`, and 409 (the relay still sees the upload busy) passes too.
        case resumable
    }

    /// `--retry-for`'s default: a cron job's run outlives a relay's restart or upgrade
    /// (seconds to a minute or two) and a disk freed by its operator's alert, yet ends
    /// well before a job run every 10 minutes or more starts again.
    public static let defaultBudget: Duration = .seconds(300)
    /// No retry: the first failure is reported as it is.
    public static let none = RetryPolicy(for: .zero)

    /// How long failures that pass are tried again: counted from the first failure, and
    /// from the start again whenever an upload or a download moves forward (`advanced`),
    /// so a long transfer cut now and then goes on, and one that cannot move ends.
    public let budget: Duration
    /// The waits between attempts (each ±half, so clients cut off together don't come back together).
    public var backoff: Backoff
    /// Told once, at the first wait, of the failure and how long it is tried for (a tool
    /// says so on a terminal).
    public var waiting: (@Sendable (any Error) -> Void)?
    private let state = NIOLockedValueBox(State())

    struct State {
        /// The first failure since the start or the last move forward.
        var failingSince: ContinuousClock.Instant?
        var told = false
    }

    public init(for budget: Duration, backoff: Backoff = Backoff(base: 1, cap: 30)) {
        self.budget = max(.zero, budget)
        self.backoff = backoff
    }

    /// An upload or a download moved forward: the time for failures starts again.
    public func advanced() {
        state.withLockedValue { $0.failingSince = nil }
    }

    /// Whether `error` may pass if `replay` is done again after a while.
    public static func isTemporary(_ error: any Error, _ replay: Replay) -> Bool {
        if case TransferError.kept(let cause) = error { return isTemporary(cause, replay) }
        guard let error = error as? RelayClientError else { return false }
        switch error {
        case .unreachable:
            return replay != .once || !answerLost(error)
        case .rejected(let status, let code, _):
            switch status {
            case 408, 429, 502, 503, 504: return true
            case 507: return code != RelayErrorCode.tooManyEntries.rawValue  // a full disk passes, a cap does not
            case 500: return replay != .once
            case 409: return replay == .resumable
            default: return false
            }
        default:
            return false
        }
    }

    /// Whether a request that failed with `error` may have been carried out all the same:
    /// its answer was lost (a connection cut or timed out after it was sent), where a
    /// refused connection never carried it.
    public static func answerLost(_ error: any Error) -> Bool {
        if case RelayClientError.unreachable(_, let reason) = error { return reason != RelayClient.refused }
        return false
    }

    /// After the `attempt`th failure of `replay` (from 1): waits for the next attempt, or
    /// throws when there is to be none: `error` itself if it cannot pass or nothing is
    /// retried, else `RetriesSpent`.
    public func pause(after error: any Error, attempt: Int, _ replay: Replay) async throws {
        guard budget > .zero, Self.isTemporary(error, replay) else { throw error }
        let now = ContinuousClock.now
        let (since, first) = state.withLockedValue { state in
            defer { state.told = true }
            if state.failingSince == nil { state.failingSince = now }
            return (state.failingSince!, !state.told)
        }
        let left = since + budget - now
        guard left > .zero else { throw RetriesSpent(budget: budget, last: error) }
        if first { waiting?(error) }
        try await Task.sleep(for: min(.seconds(backoff.delay(attempt: attempt)), left))
    }

    /// For a loop that rides out a blip on its own (a tus upload, a download: `quick`
    /// tries after `quickBackoff`'s short waits): then as long as this policy allows.
    public func pause(after error: any Error, failure: Int, quick: Int, quickBackoff: Backoff, _ replay: Replay) async throws {
        guard Self.isTemporary(error, replay) else { throw error }
        if failure <= quick {
            try await Task.sleep(for: .seconds(quickBackoff.delay(attempt: failure)))
        } else {
            try await pause(after: error, attempt: failure - quick, replay)
        }
    }

    /// Runs `body` until it succeeds, fails in a way that does not pass, or the time is spent.
    public func run<R>(_ replay: Replay, _ body: () async throws -> R) async throws -> R {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch {
                attempt += 1
                try await pause(after: error, attempt: attempt, replay)
            }
        }
    }
}

/// `--retry-for` spent: `last` is the failure the last attempt met.
public struct RetriesSpent: Error, CustomStringConvertible {
    public let budget: Duration
    public let last: any Error

    public var description: String {
        "\(last) (still so after trying again for \(DurationText.format(seconds: Int(budget.components.seconds))): --retry-for)"
    }
}

/// Exponential backoff with jitter: attempt n waits a random time between half and all
/// of min(cap, base·2ⁿ⁻¹) seconds, so many clients don't come back at once.
public struct Backoff: Sendable {
    public var base: Double
    public var cap: Double
    public init(base: Double, cap: Double) {
        self.base = base
        self.cap = cap
    }

    public func ceiling(attempt: Int) -> Double {
        min(cap, base * pow(2, Double(max(0, attempt - 1))))
    }

    public func delay(attempt: Int) -> Double {
        let top = ceiling(attempt: attempt)
        return top / 2 + Double.random(in: 0...(top / 2))
    }
}
