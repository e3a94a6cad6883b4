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

    public static func open(home: String, place: CredentialPlace, identity: Bool = false) throws -> RelaySession {
        let config = try DeviceConfig.load(home: home)
        return RelaySession(home: home, config: config, credentials: try DeviceCredentials.load(place, identity: identity))
    }

    /// Runs `body` with a client of the configured relay, token included.
    public func withClient<R>(_ body: (RelayClient) async throws -> R) async throws -> R {
        try await RelayClient.with(baseURL: config.relay, token: credentials.token, body)
    }

    /// The device named `reference` (a name, else an id); live devices win over revoked
    /// ones of the same name.
    public static func device(_ reference: String, in devices: [Device]) throws -> Device {
        let named = devices.filter { $0.name == reference }
        if let live = named.first(where: { $0.invalidated == nil }) { return live }
        if let any = named.first ?? devices.first(where: { $0.id == reference }) { return any }
        throw RelayClientError.noSuchDevice(reference)
    }

    /// A group by name; a 404 from the relay becomes `.noSuchGroup`.
    public static func group(_ name: String, client: RelayClient) async throws -> DeviceGroup {
        do {
            return try await client.group(name)
        } catch RelayClientError.rejected(let status, _, _) where status == 404 || status == 400 {
            throw RelayClientError.noSuchGroup(name)
        }
    }

    /// A short, stable form of a recipient for listings: its first and last characters.
    public static func fingerprint(_ recipient: String) -> String {
        guard recipient.count > 16 else { return recipient }
        return recipient.prefix(10) + "…" + recipient.suffix(6)
    }
}

extension RelaySession {
    /// The age recipients of `devices`, each checked against this machine's pin (a
    /// device seen for the first time is pinned; a changed key is `.keyChanged`).
    public func pinnedRecipients(_ devices: [Device]) throws -> [X25519Recipient] {
        var pins = try PinStore(home: home)
        for device in devices { try pins.check(device) }
        try pins.save()
        return try devices.map { try X25519Recipient($0.recipient) }
    }

    /// Every device of the user that is not revoked: who a cloud file is encrypted to.
    public static func activeDevices(_ client: RelayClient) async throws -> [Device] {
        try await client.devices().filter { $0.invalidated == nil }
    }
}
