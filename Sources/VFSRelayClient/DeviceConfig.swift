#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol

/// `$VFS_HOME/relay.json`: which relay this machine is enrolled with, and as which
/// device. `VFS_RELAY` overrides the URL (a relay that moved, a test).
public struct DeviceConfig: Codable, Equatable, Sendable {
    public var relay: String
    public var device: String
    public var name: String
    /// The device's user (their email), as the relay first said: whose device chain this
    /// device trusts (docs/device-chain.md). Older configs have none until first use.
    public var user: String?
    /// `vfs-device enroll --cacert`: the private CA's PEM file, copied into VFS_HOME, that
    /// an https:// relay's certificate is checked against instead of the system's CAs.
    public var ca: String?
    /// `vfs-device enroll --insecure-http`: plain http to a host beyond loopback allowed.
    public var insecureHTTP: Bool?
    /// `vfs-device enroll --identity-file` with a plugin's stub: the device's recipient,
    /// which a stub does not yield (given with --recipient or in the stub file's comment).
    public var recipient: String?
    /// `vfs-device enroll --send-only` (issue 48): this device signs its pushes and is
    /// never a recipient; its fingerprint says so. Nil for a reader.
    public var sendOnly: Bool?

    public init(relay: String, device: String, name: String, user: String? = nil, ca: String? = nil, insecureHTTP: Bool = false,
                recipient: String? = nil, sendOnly: Bool = false) {
        self.sendOnly = sendOnly ? true : nil
        self.relay = relay
        self.device = device
        self.name = name
        self.user = user
        self.ca = ca
        self.insecureHTTP = insecureHTTP ? true : nil
        self.recipient = recipient
    }

    /// The CA file to trust for https: `VFS_RELAY_CACERT`, else the one kept at enrolment.
    public func caFile(paths: VFSPaths = .current) -> String? { paths.relayCACert ?? ca }

    public static func path(home: String) throws -> String { try VFSPaths(environment: ["VFS_HOME": home]).relayConfig }

    /// The config in `home`; `.notEnrolled` without one. `paths.relayURL` (VFS_RELAY)
    /// overrides the URL.
    public static func load(home: String, paths: VFSPaths = .current) throws -> DeviceConfig {
        let path = try path(home: home)
        guard let data = FileManager.default.contents(atPath: path) else { throw RelayClientError.notEnrolled(config: path) }
        var config: DeviceConfig
        do {
            config = try JSONDecoder().decode(DeviceConfig.self, from: data)
        } catch {
            throw RelayClientError.badAnswer(url: path, reason: "not a relay config: \(error)")
        }
        if let url = paths.relayURL {
            try RelayClient.validate(url: url, from: "VFS_RELAY", insecureHTTP: config.insecureHTTP == true)
            config.relay = url
        } else {
            try RelayClient.validate(url: config.relay, from: path, insecureHTTP: config.insecureHTTP == true)
        }
        return config
    }

    /// Written atomically, private to the user.
    public func save(home: String) throws {
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try AtomicOutputFile.write(Array(try encoder.encode(self)) + [0x0A], to: Self.path(home: home), mode: 0o600)
    }

    public static func remove(home: String) {
        if let path = try? path(home: home) { try? FileManager.default.removeItem(atPath: path) }
    }
}
