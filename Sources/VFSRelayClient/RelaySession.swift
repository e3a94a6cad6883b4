#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol

/// What every relay command starts from: this machine's config and credentials.
public struct RelaySession: Sendable {
    public let home: String
    public let config: DeviceConfig
    public let credentials: DeviceCredentials
    /// `--timeout`: seconds to wait for the relay to connect and answer each request.
    public var timeout: Int?
    /// `--retry-for`: what the session's clients try again after a temporary failure.
    public var retry: RetryPolicy = .none
    /// Where the session's warnings go: stderr as `TOOL: warning: …` unless a tool says otherwise.
    public var warn: @Sendable (String) -> Void = RelaySession.standardErrorWarning

    public init(home: String, config: DeviceConfig, credentials: DeviceCredentials) {
        self.home = home
        self.config = config
        self.credentials = credentials
    }

    /// `signingKey`: load the device's signing key too (made now for a device enrolled before them).
    public static func open(home: String, place: CredentialPlace, identity: Bool = false, signingKey: Bool = false,
                            timeout: Int? = nil) throws -> RelaySession {
        let config = try DeviceConfig.load(home: home)
        var session = RelaySession(home: home, config: config,
                                   credentials: try DeviceCredentials.load(place, identity: identity, signingKey: signingKey))
        session.timeout = timeout
        return session
    }

    /// `TOOL: warning: MESSAGE` on stderr, TOOL being this program's name.
    public static let standardErrorWarning: @Sendable (String) -> Void = { message in
        let tool = CommandLine.arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? "vfs"
        try? writeAll(fd: 2, Array("\(tool): warning: \(DisplayText.printable(message))\n".utf8))
    }

    /// Runs `body` with a client of the configured relay, token included.
    public func withClient<R>(_ body: (RelayClient) async throws -> R) async throws -> R {
        try await RelayClient.with(baseURL: config.relay, token: credentials.token, timeout: timeout, caFile: config.caFile(), retry: retry, body)
    }

    /// The device named `reference`: a name (live devices win over revoked ones of the
    /// same name; two live ones are ambiguous), else an id or a unique id prefix.
    public static func device(_ reference: String, in devices: [Device]) throws -> Device {
        let named = devices.filter { $0.name == reference }
        let live = named.filter { $0.invalidated == nil }
        if live.count > 1 {
            throw RelayClientError.ambiguous(what: "device", reference: reference, candidates: live.map(\.id))
        }
        if let any = live.first ?? named.first { return any }
        let id = try uniqueID(reference, among: devices.map(\.id), what: "device", missing: .noSuchDevice(reference))
        return devices.first { $0.id == id }!
    }

    /// The one of `ids` that `reference` is, or begins (as git and docker take ids);
    /// `missing` when none, `.ambiguous` listing them when several.
    public static func uniqueID(_ reference: String, among ids: [String], what: String = "transfer",
                                missing: RelayClientError? = nil) throws -> String {
        if ids.contains(reference) { return reference }
        let matches = reference.isEmpty ? [] : ids.filter { $0.hasPrefix(reference.lowercased()) }
        guard matches.count <= 1 else { throw RelayClientError.ambiguous(what: what, reference: reference, candidates: matches.sorted()) }
        guard let match = matches.first else { throw missing ?? .noSuchTransfer(reference) }
        return match
    }

    /// A group by name; a 404 from the relay becomes `.noSuchGroup`.
    public static func group(_ name: String, client: RelayClient) async throws -> DeviceGroup {
        do {
            return try await client.group(name)
        } catch RelayClientError.rejected(let status, _, _) where status == 404 || status == 400 {
            throw RelayClientError.noSuchGroup(name)
        }
    }
}

extension RelaySession {
    /// The age recipients of `devices`, each checked against this machine's pin (a
    /// device seen for the first time is pinned; a changed key is `.keyChanged`).
    /// A device's recipient is X25519 (age1…), or a plugin's (age1NAME1…: a key in hardware).
    public func pinnedRecipients(_ devices: [Device]) throws -> [AgeRecipient] {
        var pins = try PinStore(home: home)
        for device in devices { try pins.check(device) }
        try pins.save()
        return try devices.map { try AgeRecipient($0.recipient) }
    }

    /// Who a cloud file is encrypted to (put, rekey): every device of the user that is not
    /// revoked and is in the verified device chain, checked against the pins, and the
    /// user's recovery key if the chain has one (issue 49; never a push's recipient).
    /// Pending devices are left out, each named by `warn`; `.pending` when no device is left.
    package func cloudRecipients(_ client: RelayClient, warn: (String) -> Void) async throws -> [AgeRecipient] {
        let (trust, readers) = try await liveReaders(client, warn: warn)
        return try pinnedRecipients(readers) + (trust.verified?.recovery.map { [try AgeRecipient($0.recipient)] } ?? [])
    }

    /// The devices of cloudRecipients, without the recovery key: who receives what a file
    /// request takes in (vfs-share request).
    package func cloudReaders(_ client: RelayClient, warn: (String) -> Void) async throws -> [Device] {
        try await liveReaders(client, warn: warn).readers
    }

    private func liveReaders(_ client: RelayClient, warn: (String) -> Void) async throws -> (trust: DeviceTrust, readers: [Device]) {
        let trust = try await deviceTrust(client)
        let readers = trust.leavingOutPending(trust.devices, warn: warn)
        guard !readers.isEmpty else { throw RelayClientError.pending(devices: trust.devices.map(\.name)) }
        return (trust, readers)
    }
}
