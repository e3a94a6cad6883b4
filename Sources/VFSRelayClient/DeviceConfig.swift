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

    public init(relay: String, device: String, name: String, user: String? = nil, ca: String? = nil, insecureHTTP: Bool = false,
                recipient: String? = nil) {
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

/// `$VFS_HOME/relay-pins.json`: the recipient first seen for each other device
/// (trust on first use). A relay that later reports another key for a device is
/// refused until `vfs-device trust NAME` accepts it.
public struct PinStore: Sendable {
    public struct Pin: Codable, Equatable, Sendable {
        public var name: String
        public var recipient: String
    }

    public let path: String
    public private(set) var pins: [String: Pin]

    public init(home: String) throws {
        path = home + "/relay-pins.json"
        pins = try PinFile.load(path, what: "a pin file") ?? [:]
    }

    /// Pins `device` on first sight; throws `.keyChanged` if its pin differs.
    /// Returns true when a new pin was recorded.
    @discardableResult
    public mutating func check(_ device: Device) throws -> Bool {
        if let pin = pins[device.id] {
            guard pin.recipient == device.recipient else {
                throw RelayClientError.keyChanged(device: device.name, pinned: pin.recipient, reported: device.recipient)
            }
            if pin.name != device.name { pins[device.id]?.name = device.name }
            return false
        }
        pins[device.id] = Pin(name: device.name, recipient: device.recipient)
        return true
    }

    /// Accepts the device's current recipient.
    public mutating func trust(_ device: Device) {
        pins[device.id] = Pin(name: device.name, recipient: device.recipient)
    }

    public func save() throws { try PinFile.save(pins, to: path) }
}

/// The JSON files of pins in `$VFS_HOME` (PinStore, ChainPins): read whole, written
/// atomically and private to the user; a damaged one is refused, never replaced.
enum PinFile {
    /// The file's value; nil if there is no file.
    static func load<Value: Decodable>(_ path: String, what: String) throws -> Value? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw RelayClientError.badAnswer(url: path, reason: "not \(what): \(error)")
        }
    }

    static func save<Value: Encodable>(_ value: Value, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try AtomicOutputFile.write(Array(try encoder.encode(value)) + [0x0A], to: path, mode: 0o600)
    }
}
