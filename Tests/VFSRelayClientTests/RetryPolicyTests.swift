#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
import Testing
@testable import VFSRelayClient
import VFSRelayProtocol

/// The one classification of failures the three client tools retry (issue 45, item 8).
@Suite("RetryPolicy: which failures pass, and for how long they are tried")
struct RetryPolicyTests {
    static let refused = RelayClientError.unreachable(url: "http://r", reason: "connection refused")
    static let reset = RelayClientError.unreachable(url: "http://r", reason: "the connection was closed")

    static func rejected(_ status: Int, _ code: RelayErrorCode = .internalError) -> RelayClientError {
        .rejected(status: status, code: code.rawValue, message: "m")
    }

    @Test("temporary: a refused connection always; a cut one unless the request may have been carried out; 408, 429, 502, 503, 504; 507 unless a cap; 500 unless carried out; 409 only for an upload")
    func classification() {
        for replay in [RetryPolicy.Replay.once, .idempotent, .resumable] {
            #expect(RetryPolicy.isTemporary(Self.refused, replay))
            for status in [408, 429, 502, 503, 504] { #expect(RetryPolicy.isTemporary(Self.rejected(status), replay)) }
            #expect(RetryPolicy.isTemporary(Self.rejected(507, .insufficientStorage), replay))
            #expect(!RetryPolicy.isTemporary(Self.rejected(507, .tooManyEntries), replay))
            for status in [400, 401, 403, 404, 405, 412, 413, 415, 416] { #expect(!RetryPolicy.isTemporary(Self.rejected(status), replay)) }
            for permanent: RelayClientError in [.noSuchDevice("x"), .keyChanged(device: "d", pinned: "a", reported: "b"),
                                                .pending(devices: ["d"]), .badAnswer(url: "u", reason: "r"),
                                                .corruptDownload(transfer: "t", expected: "a", actual: "b"), .stalled(transfer: "t", seconds: 60)] {
                #expect(!RetryPolicy.isTemporary(permanent, replay))
            }
            #expect(!RetryPolicy.isTemporary(CancellationError(), replay))
        }
        #expect(!RetryPolicy.isTemporary(Self.reset, .once))
        #expect(RetryPolicy.isTemporary(Self.reset, .idempotent) && RetryPolicy.isTemporary(Self.reset, .resumable))
        #expect(!RetryPolicy.isTemporary(Self.rejected(500), .once) && RetryPolicy.isTemporary(Self.rejected(500), .idempotent))
        #expect(!RetryPolicy.isTemporary(Self.rejected(409), .once) && !RetryPolicy.isTemporary(Self.rejected(409), .idempotent))
        #expect(RetryPolicy.isTemporary(Self.rejected(409), .resumable))
        // A kept push is what its cause is.
        #expect(RetryPolicy.isTemporary(TransferError.kept(Self.refused), .resumable))
        #expect(!RetryPolicy.isTemporary(TransferError.kept(Self.rejected(403)), .resumable))
    }

    @Test("run: tries again until it works; a permanent failure and no budget end it at once, the error as it is; a spent budget ends it with RetriesSpent naming the last cause")
    func run() async throws {
        let fast = Backoff(base: 0.01, cap: 0.02)
        // An hour: on a loaded machine a 20 ms wait may take seconds.
        var policy = RetryPolicy(for: .seconds(3600), backoff: fast)
        let told = NIOLockedValueBox(0)
        policy.waiting = { _ in told.withLockedValue { $0 += 1 } }
        var attempts = 0
        let value = try await policy.run(.idempotent) { () async throws -> Int in
            attempts += 1
            if attempts < 4 { throw Self.rejected(503) }
            return 7
        }
        #expect(value == 7 && attempts == 4)
        #expect(told.withLockedValue { $0 } == 1, "the first wait is said once")

        attempts = 0
        await #expect(throws: RelayClientError.rejected(status: 404, code: RelayErrorCode.internalError.rawValue, message: "m")) {
            try await policy.run(.idempotent) { () async throws -> Int in
                attempts += 1
                throw Self.rejected(404)
            }
        }
        #expect(attempts == 1)

        attempts = 0
        await #expect(throws: RelayClientError.self) {
            try await RetryPolicy(for: .zero, backoff: fast).run(.idempotent) { () async throws -> Int in
                attempts += 1
                throw Self.refused
            }
        }
        #expect(attempts == 1)

        let short = RetryPolicy(for: .milliseconds(200), backoff: fast)
        attempts = 0
        let started = ContinuousClock.now
        do {
            _ = try await short.run(.once) { () async throws -> Int in
                attempts += 1
                throw attempts == 1 ? Self.rejected(503) : Self.refused
            }
            Issue.record("no error")
        } catch let spent as RetriesSpent {
            #expect(spent.last as? RelayClientError == Self.refused)
            #expect(spent.description.contains("connection refused") && spent.description.contains("--retry-for"))
        }
        // The first failure leaves the whole budget: a second attempt always comes.
        #expect(attempts >= 2)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
    }

    @Test("the time counts from the first failure and starts again when a transfer moves on")
    func advancedRestartsTheClock() async throws {
        let policy = RetryPolicy(for: .milliseconds(300), backoff: Backoff(base: 0.05, cap: 0.05))
        var attempts = 0
        // Each attempt fails after 100 ms of progress: 10 of them (a second) outlast the budget.
        let value = try await policy.run(.resumable) { () async throws -> Int in
            attempts += 1
            try await Task.sleep(for: .milliseconds(100))
            policy.advanced()
            if attempts < 10 { throw Self.reset }
            return attempts
        }
        #expect(value == 10)
        await #expect(throws: RetriesSpent.self) {
            try await policy.run(.resumable) { () async throws -> Int in throw Self.reset }
        }
    }
}
