import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers

/// What users and organisations hold at once on this relay instance: requests in flight
/// and event streams, each under a cap of `UsageLimits`, so that one token (and the
/// devices it can mint, each with its streams) cannot take the connections every user
/// shares.
final class UsageCounts: Sendable {
    private let counts = NIOLockedValueBox<[String: Int]>([:])

    /// A place under every key, or none: nil with the first key at its limit.
    func take(_ keys: [(key: String, limit: Int)]) -> Result<UsageSlot, UsageExceeded> {
        counts.withLockedValue { counts in
            if let full = keys.first(where: { counts[$0.key, default: 0] >= $0.limit }) {
                return .failure(UsageExceeded(key: full.key, limit: full.limit))
            }
            for entry in keys { counts[entry.key, default: 0] += 1 }
            return .success(UsageSlot(counts: self, keys: keys.map(\.key)))
        }
    }

    fileprivate func give(_ keys: [String]) {
        counts.withLockedValue { counts in
            for key in keys {
                let left = counts[key, default: 1] - 1
                counts[key] = left > 0 ? left : nil
            }
        }
    }

    /// How many places `key` holds now (tests).
    func count(_ key: String) -> Int { counts.withLockedValue { $0[key, default: 0] } }

    static func userRequests(_ identity: DeviceIdentity) -> String { "requests/user/\(identity.userID)" }
    static func orgRequests(_ identity: DeviceIdentity) -> String { "requests/org/\(identity.orgID)" }
    static func userStreams(_ identity: DeviceIdentity) -> String { "streams/user/\(identity.userID)" }
    static func orgStreams(_ identity: DeviceIdentity) -> String { "streams/org/\(identity.orgID)" }
}

/// The cap that was reached.
struct UsageExceeded: Error {
    let key: String
    let limit: Int
}

/// Places taken in `UsageCounts`, given back once: by `release()` or when the last
/// reference goes (an answer dropped before its body ran).
final class UsageSlot: Sendable {
    let counts: UsageCounts
    let keys: [String]
    private let released = NIOLockedValueBox(false)

    fileprivate init(counts: UsageCounts, keys: [String]) {
        self.counts = counts
        self.keys = keys
    }

    func release() {
        guard released.withLockedValue({ released in
            defer { released = true }
            return !released
        }) else { return }
        counts.give(keys)
    }

    deinit { release() }
}

/// Counts each authenticated request against its user's and organisation's requests in
/// flight (after AuthMiddleware) until its answer is written: one more is 429.
struct UsageLimitMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext
    let counts: UsageCounts
    let limits: UsageLimits

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let identity = context.identity else { return try await next(request, context) }
        let slot: UsageSlot
        switch counts.take([(UsageCounts.userRequests(identity), limits.userRequests),
                            (UsageCounts.orgRequests(identity), limits.orgRequests)]) {
        case .success(let taken): slot = taken
        case .failure(let full):
            let whose = full.key == UsageCounts.userRequests(identity) ? "your devices have" : "your organisation's devices have"
            throw RelayError(.tooManyRequests, .tooManyRequests,
                             "\(whose) \(full.limit) requests in progress at once, the most this relay allows; wait for some to end",
                             headers: [.retryAfter: "5"])
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            slot.release()
            throw error
        }
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            defer { slot.release() }
            try await body.write(writer)
        }
        return response
    }
}
