#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol

/// `$VFS_HOME/chain-pins.json`: for each user this device has seen (its own user first),
/// the root key of that user's device chain and the last head it verified. A chain whose
/// root differs, that is shorter than the pinned head or that forks from it is refused
/// (docs/device-chain.md); a chain that extends it moves the pin forward.
package struct ChainPins: Sendable {
    package struct Pin: Codable, Equatable, Sendable {
        /// The root device's Ed25519 public key (base64 in the file).
        public var rootKey: Data
        public var sequence: UInt64
        /// SHA-256 of the head statement (base64 in the file).
        public var hash: Data
        /// Another user's root this device's user confirmed by comparing the safety code
        /// (`vfs-device verify USER --confirm CODE`); absent until then.
        public var verified: Bool? = nil
    }

    public let path: String
    public private(set) var pins: [String: Pin]

    public init(home: String) throws {
        path = home + "/chain-pins.json"
        pins = try PinFile.load(path, what: "a chain pin file") ?? [:]
        guard pins.values.allSatisfy({ $0.rootKey.count == Ed25519.publicKeyCount && $0.hash.count == DeviceChain.hashCount }) else {
            throw RelayClientError.badAnswer(url: path, reason: "not a chain pin file: a key or hash of the wrong length")
        }
    }

    /// The head pinned for `user`, if any.
    public func head(of user: String) -> DeviceChain.Head? {
        pins[user].map { DeviceChain.Head(sequence: $0.sequence, hash: Array($0.hash)) }
    }

    /// Verifies `statements` as `user`'s chain against the pin, and pins its root (on
    /// first sight) and its head. Nothing is pinned when it throws. Call `save` after.
    ///
    /// A tail that does not verify (a statement no live device could have signed) is
    /// the relay's doing, never the user's: the longest verified prefix is kept and
    /// pinned, and `refusedTail` says why the rest was left out. `refused` is why the
    /// statements after `statements` were not even decoded (`decodeWirePrefix`).
    public mutating func accept(_ statements: [DeviceChain.Statement], user: String,
                                refused: DeviceChainError? = nil) throws -> DeviceChain.Verified {
        var verified = try DeviceChain.verifyPrefix(statements, user: user)
        if verified.refusedTail == nil { verified.refusedTail = refused }
        let kept = Array(statements.prefix(verified.count))
        if let pin = pins[user] {
            guard Array(pin.rootKey) == verified.rootKey else { throw DeviceChainError.rootChanged(user: user) }
            try DeviceChain.check(kept, extend: DeviceChain.Head(sequence: pin.sequence, hash: Array(pin.hash)))
        }
        pins[user] = Pin(rootKey: Data(verified.rootKey), sequence: verified.head.sequence, hash: Data(verified.head.hash),
                         verified: pins[user]?.verified)
        return verified
    }

    /// Whether `user`'s pinned root was confirmed with the safety code.
    public func isVerified(_ user: String) -> Bool { pins[user]?.verified == true }

    /// Records `user`'s pinned root as confirmed with the safety code.
    public mutating func confirm(_ user: String) {
        pins[user]?.verified = true
    }

    /// Forgets `user`'s pin (the user re-created their chain and it was confirmed out of band).
    public mutating func forget(_ user: String) {
        pins[user] = nil
    }

    /// Written atomically, private to the user.
    public func save() throws { try PinFile.save(pins, to: path) }
}
