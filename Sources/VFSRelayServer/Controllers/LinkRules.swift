import Foundation
import VFSRelayProtocol

/// An organisation's link settings (`LinkPolicy`) applied to a new share link or file
/// request: refused when links are off or it asks past a limit (403 `link_policy`), and
/// given the organisation's longest when it names no expiry or download limit.
struct LinkRules {
    let policy: LinkPolicy
    let configuration: RelayConfiguration

    /// How far a client's clock may be ahead when it asks for the longest expiry.
    static let skew: TimeInterval = 300

    static func refusal(_ message: String) -> RelayError { RelayError(.forbidden, .linkPolicy, message) }

    /// Refuses anything when the organisation has links off.
    func checkAllowed(_ what: String) throws {
        guard policy.allowed else {
            throw Self.refusal("your organisation does not allow \(what) (its operator turned them off: vfs-relay org set --links)")
        }
    }

    /// The expiry: asked, or the relay's default; at most the organisation's longest (a
    /// later one asked is refused; the default is cut to it).
    func expiry(asked: Date?, now: Date) throws -> Date {
        guard let longest = policy.maxExpiry else { return try configuration.expiry(asked: asked, now: now) }
        let latest = now.addingTimeInterval(TimeInterval(longest))
        guard let asked else { return try configuration.expiry(asked: min(latest, now.addingTimeInterval(configuration.transferLifetime)), now: now) }
        guard asked <= latest.addingTimeInterval(Self.skew) else {
            throw Self.refusal("your organisation's links expire within \(Self.duration(longest)) at most")
        }
        return try configuration.expiry(asked: min(asked, latest), now: now)
    }

    /// A link's download limit: asked (at most the organisation's most), or that most.
    func downloads(asked: Int?) throws -> Int? {
        guard let most = policy.maxDownloads else { return asked }
        guard let asked else { return most }
        guard asked <= most else { throw Self.refusal("your organisation's links allow \(most) download\(most == 1 ? "" : "s") at most") }
        return asked
    }

    /// The most bytes a link may hold or a request may take: the organisation's cap, within the relay's.
    var sizeCap: Int64 { min(policy.maxSize ?? .max, configuration.maxUploadSize) }

    func checkSize(_ size: Int64) throws {
        guard let cap = policy.maxSize, size > cap else { return }
        throw Self.refusal("your organisation's links hold \(cap) bytes at most; this is \(size)")
    }

    /// Seconds as a person reads them: whole days, else hours, else seconds.
    static func duration(_ seconds: Int64) -> String {
        if seconds % 86400 == 0 { return "\(seconds / 86400) day\(seconds == 86400 ? "" : "s")" }
        if seconds % 3600 == 0 { return "\(seconds / 3600) hour\(seconds == 3600 ? "" : "s")" }
        return "\(seconds) seconds"
    }
}
