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

/// `$VFS_HOME/pins.json`: everything this machine pinned, in one file (mode 0600, written
/// atomically; a damaged one is refused, never replaced):
///
/// - `devices`: the recipient first seen for each other device (trust on first use). A
///   relay that later reports another key for a device is refused (`.keyChanged`) until
///   `vfs-device trust NAME` accepts it.
/// - `chains`: for each user this device has seen (its own user first), the root key of
///   that user's device chain and the last head it verified. A chain whose root differs,
///   that is shorter than the pinned head or that forks from it is refused
///   (docs/device-chain.md); a chain that extends it moves the pin forward.
///
/// A home written before (`relay-pins.json` and `chain-pins.json`, each with its own
/// checks) is read as it is until the first save, which writes `pins.json` with every
/// pin of both and then removes them.
///
/// `save` writes what this value changed over the file as it is then, so two values
/// loaded at once (a device pin and a chain pin recorded by one run) lose nothing of
/// each other's.
package struct PinStore: Sendable {
    /// A device's pinned recipient.
    package struct DevicePin: Codable, Equatable, Sendable {
        package var name: String
        package var recipient: String
    }

    /// A user's pinned device chain.
    package struct ChainPin: Codable, Equatable, Sendable {
        /// The root device's Ed25519 public key (base64 in the file).
        package var rootKey: Data
        package var sequence: UInt64
        /// SHA-256 of the head statement (base64 in the file).
        package var hash: Data
        /// Another user's root this device's user confirmed by comparing the safety code
        /// (`vfs-device verify USER --confirm CODE`); absent until then.
        package var verified: Bool? = nil
    }

    /// The file's layout.
    struct Pins: Codable, Equatable, Sendable {
        /// By device id.
        var devices: [String: DevicePin] = [:]
        /// By user (their email).
        var chains: [String: ChainPin] = [:]
    }

    package let path: String
    let home: String
    /// The pins as loaded: `save` writes only what changed since.
    private var loaded: Pins
    private var current: Pins

    /// By device id.
    package var devices: [String: DevicePin] { current.devices }
    /// By user.
    package var chains: [String: ChainPin] { current.chains }

    package init(home: String) throws {
        self.home = home
        path = home + "/" + Self.fileName
        current = try Self.read(home: home)
        loaded = current
    }

    package static let fileName = "pins.json"
    /// The two files of a home written before `pins.json`.
    package static let legacyDeviceFile = "relay-pins.json", legacyChainFile = "chain-pins.json"

    /// `pins.json`, else what the two files of before hold, each checked as before.
    static func read(home: String) throws -> Pins {
        let path = home + "/" + fileName
        if let pins: Pins = try PinFile.load(path, what: "a pin file") {
            try checkChains(pins.chains, path: path)
            return pins
        }
        let devices: [String: DevicePin] = try PinFile.load(home + "/" + legacyDeviceFile, what: "a pin file") ?? [:]
        let chainPath = home + "/" + legacyChainFile
        let chains: [String: ChainPin] = try PinFile.load(chainPath, what: "a chain pin file") ?? [:]
        try checkChains(chains, path: chainPath)
        return Pins(devices: devices, chains: chains)
    }

    static func checkChains(_ chains: [String: ChainPin], path: String) throws {
        guard chains.values.allSatisfy({ $0.rootKey.count == Ed25519.publicKeyCount && $0.hash.count == DeviceChain.hashCount }) else {
            throw RelayClientError.badAnswer(url: path, reason: "not a chain pin file: a key or hash of the wrong length")
        }
    }

    /// Written atomically, private to the user: what this value changed, over the file
    /// as it is now. The files of before are removed once `pins.json` holds their pins.
    package mutating func save() throws {
        var merged = try Self.read(home: home)
        Self.apply(from: loaded.devices, to: current.devices, onto: &merged.devices)
        Self.apply(from: loaded.chains, to: current.chains, onto: &merged.chains)
        try PinFile.save(merged, to: path)
        for legacy in [Self.legacyDeviceFile, Self.legacyChainFile] {
            if unlink(home + "/" + legacy) != 0 && errno != ENOENT {
                throw RelayClientError.badAnswer(url: home + "/" + legacy, reason: "could not remove it after moving its pins to \(Self.fileName): \(String(cString: strerror(errno)))")
            }
        }
        (loaded, current) = (merged, merged)
    }

    private static func apply<Value: Equatable>(from old: [String: Value], to new: [String: Value], onto file: inout [String: Value]) {
        for key in Set(old.keys).union(new.keys) where old[key] != new[key] { file[key] = new[key] }
    }

    // MARK: Device keys

    /// Pins `device` on first sight; throws `.keyChanged` if its pin differs.
    /// Returns true when a new pin was recorded.
    @discardableResult
    package mutating func check(_ device: Device) throws -> Bool {
        if let pin = current.devices[device.id] {
            guard pin.recipient == device.recipient else {
                throw RelayClientError.keyChanged(device: device.name, pinned: pin.recipient, reported: device.recipient)
            }
            if pin.name != device.name { current.devices[device.id]?.name = device.name }
            return false
        }
        current.devices[device.id] = DevicePin(name: device.name, recipient: device.recipient)
        return true
    }

    /// Accepts the device's current recipient.
    package mutating func trust(_ device: Device) {
        current.devices[device.id] = DevicePin(name: device.name, recipient: device.recipient)
    }

    // MARK: Device chains

    /// The head pinned for `user`, if any.
    package func head(of user: String) -> DeviceChain.Head? {
        current.chains[user].map { DeviceChain.Head(sequence: $0.sequence, hash: Array($0.hash)) }
    }

    /// Verifies `statements` as `user`'s chain against the pin, and pins its root (on
    /// first sight) and its head. Nothing is pinned when it throws. Call `save` after.
    ///
    /// A tail that does not verify (a statement no live device could have signed) is
    /// the relay's doing, never the user's: the longest verified prefix is kept and
    /// pinned, and `refusedTail` says why the rest was left out. `refused` is why the
    /// statements after `statements` were not even decoded (`decodeWirePrefix`).
    ///
    /// The relay serves a pinned user's chain from the last checkpoint at or before the
    /// pin (`GET …/chain?pinned=N`): `statements` may start there, and are then held to
    /// the pin (`DeviceChain.verifyPrefix`); a chain that starts at a checkpoint with no
    /// pin, or after the pin, is refused (`unanchoredCheckpoint`, 77).
    package mutating func accept(_ statements: [DeviceChain.Statement], user: String,
                                 refused: DeviceChainError? = nil) throws -> DeviceChain.Verified {
        // A checkpoint restating another root is a changed root (said as such, whatever
        // else is wrong with it): the caller may then ask for the whole chain.
        if let pin = current.chains[user], let first = statements.first, first.sequence != 0,
           case .checkpoint(let checkpoint) = first.action, checkpoint.root.signingKey != Array(pin.rootKey) {
            throw DeviceChainError.rootChanged(user: user)
        }
        var verified = try DeviceChain.verifyPrefix(statements, user: user, pinned: head(of: user))
        if verified.refusedTail == nil { verified.refusedTail = refused }
        let kept = Array(statements.prefix(verified.count))
        if let pin = current.chains[user] {
            guard Array(pin.rootKey) == verified.rootKey else { throw DeviceChainError.rootChanged(user: user) }
            try DeviceChain.check(kept, extend: DeviceChain.Head(sequence: pin.sequence, hash: Array(pin.hash)))
        }
        current.chains[user] = ChainPin(rootKey: Data(verified.rootKey), sequence: verified.head.sequence, hash: Data(verified.head.hash),
                                        verified: current.chains[user]?.verified)
        return verified
    }

    /// Whether `user`'s pinned root was confirmed with the safety code.
    package func isVerified(_ user: String) -> Bool { current.chains[user]?.verified == true }

    /// Records `user`'s pinned root as confirmed with the safety code.
    package mutating func confirm(_ user: String) {
        current.chains[user]?.verified = true
    }

    /// Forgets `user`'s pin (the user re-created their chain and it was confirmed out of band).
    package mutating func forget(_ user: String) {
        current.chains[user] = nil
    }
}

/// The JSON files of pins and seen signatures in `$VFS_HOME` (PinStore, SeenSignatures):
/// read whole, written atomically and private to the user; a damaged one is refused,
/// never replaced.
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
