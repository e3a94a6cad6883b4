#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol

/// The user's devices as this machine trusts them (docs/device-chain.md): the relay's
/// list, split by the user's device chain, verified and pinned. Only approved devices
/// are encrypted to; the others are pending.
package struct DeviceTrust: Sendable {
    public var user: String
    /// The verified chain; nil while the user has none (before the first device's root).
    public var verified: DeviceChain.Verified?
    /// The statements that verified: the chain the relay served, without a tail that
    /// does not verify (`verified?.refusedTail` says why it was left out). What this
    /// device appends to.
    public var statements: [DeviceChain.Statement]
    /// The live devices the relay lists.
    public var devices: [Device]

    /// In the verified chain, with the recipient the relay lists.
    public func isApproved(_ device: Device) -> Bool {
        guard let entry = verified?.devices[device.id] else { return false }
        return entry.recipient == device.recipient
    }

    /// In the verified chain as a send-only device (issue 48), with the recipient the
    /// relay lists: it signs its own pushes and is never encrypted to.
    public func isSendOnly(_ device: Device) -> Bool {
        guard let entry = verified?.senders[device.id] else { return false }
        return entry.recipient == device.recipient
    }

    /// In the verified chain, as a reader or as a send-only device.
    public func isMember(_ device: Device) -> Bool { isApproved(device) || isSendOnly(device) }

    /// The sequence number of the next statement appended.
    public var nextSequence: UInt64 { (statements.last?.sequence).map { $0 + 1 } ?? 0 }

    public var approved: [Device] { devices.filter(isApproved) }
    public var pending: [Device] { devices.filter { !isMember($0) } }

    /// The device's fingerprint from the signing key and recipient the relay lists; nil
    /// until it published its key.
    /// `sendOnly`: the fingerprint of the device as a send-only one (issue 48).
    public static func fingerprint(_ device: Device, sendOnly: Bool = false) -> String? {
        guard let key = device.signingKey.flatMap({ Data(base64Encoded: $0) }), key.count == Ed25519.publicKeyCount else { return nil }
        return Fingerprint.device(signingKey: Array(key), recipient: device.recipient, sendOnly: sendOnly)
    }

    /// `devices` without the pending ones, each named on stderr by `warn` ("left out"),
    /// and without send-only devices, which read nothing (issue 48: no stanza for them).
    public func leavingOutPending(_ devices: [Device], warn: (String) -> Void) -> [Device] {
        for device in devices where !isMember(device) {
            warn("leaving out \"\(DisplayText.printable(device.name))\": not approved by your devices yet (vfs-device approve)")
        }
        return devices.filter(isApproved)
    }

    /// Throws `.keyChanged` for a device of `targets` the chain holds with another
    /// recipient, `.pending` naming those it does not hold, and
    /// `DeviceChainError.sendOnlyRecipient` (77) for a send-only device (issue 48).
    public func requireApproved(_ targets: [Device]) throws {
        for device in targets {
            _ = try verified?.recipient(device.id)
            if let entry = verified?.devices[device.id], entry.recipient != device.recipient {
                throw RelayClientError.keyChanged(device: device.name, pinned: entry.recipient, reported: device.recipient)
            }
        }
        let pending = targets.filter { !isApproved($0) }
        guard pending.isEmpty else { throw RelayClientError.pending(devices: pending.map(\.name)) }
    }
}

extension RelaySession {
    /// The user's chain from the relay, verified against this machine's pins (a chain
    /// that does not extend the last one verified is refused, 77), and the relay's live
    /// devices. The pin moves forward on success.
    ///
    /// `enrolling`: this machine was just enrolled with a new code (`vfs-device enroll`).
    /// A user whose chain is gone from the relay (removed and added again, or the
    /// operator's `vfs-relay user reset-chain`) serves an empty chain: then, and only
    /// then, the pin of this machine's own user is forgotten (said on stderr), so that
    /// the new device starts a new chain. Anywhere else an empty chain with a pin is a
    /// rollback (77).
    ///
    /// A chain this machine has never seen (no pin of its own user, or, while enrolling,
    /// a pin of another root) that this device did not start was started by someone
    /// else: the user's other device, or the operator's (issue 43, item 6). It is pinned
    /// only as `acceptance` says: a fingerprint of one of its live devices, or a yes on a
    /// terminal; otherwise `UnseenChain` (77) lists its devices and nothing is pinned.
    package func deviceTrust(_ client: RelayClient, enrolling: Bool = false,
                             acceptance: ChainAcceptance = .refuse) async throws -> DeviceTrust {
        // From the last checkpoint at or before the head pinned (the whole chain without).
        let pinnedHead = try knownUser.flatMap { try PinStore(home: home).head(of: $0) }
        let bytes = try await client.chainDocument(RelayPaths.chain, pinned: pinnedHead?.sequence)
        var (statements, refused) = try DeviceChain.decodeWirePrefix(bytes)
        guard let owner = try? JSONDecoder().decode(ChainOwner.self, from: Data(bytes)) else {
            throw RelayClientError.badAnswer(url: config.relay + RelayPaths.chain, reason: "a chain without its user")
        }
        // The user is the one this device first heard of, never one the relay names later.
        let user = config.user ?? owner.user
        if owner.user != user { throw DeviceChainError.wrongUser(index: 0, expected: user, found: owner.user) }
        if config.user == nil {
            var config = self.config
            config.user = user
            try config.save(home: home)
        }
        var pins = try PinStore(home: home)
        var verified: DeviceChain.Verified?
        if statements.isEmpty, enrolling, refused == nil, pins.head(of: user) != nil {
            pins.forget(user)
            try pins.save()
            warn("\(user)'s device chain is gone from the relay (the user was removed and added again, or the operator reset it): this device starts a new one, and your colleagues confirm its root (vfs-device verify)")
        }
        if statements.isEmpty {
            if let pinned = pins.head(of: user) { throw DeviceChainError.rolledBack(pinned: pinned.sequence, served: 0) }
            // Not even a root that decodes: refused as before (there is no prefix to keep).
            if let refused { throw refused }
        } else {
            var unseen = pins.head(of: user) == nil
            let accepted: DeviceChain.Verified
            do {
                accepted = try pins.accept(statements, user: user, refused: refused)
            } catch DeviceChainError.rootChanged where enrolling {
                // A new enrolment finds another root than the one this machine pinned (its
                // user reset, then another device started the chain): as a chain never seen,
                // the whole of it, from its root.
                pins.forget(user)
                if statements.first?.sequence != 0 {
                    (statements, refused) = try DeviceChain.decodeWirePrefix(try await client.chainDocument(RelayPaths.chain))
                }
                accepted = try pins.accept(statements, user: user, refused: refused)
                unseen = true
            }
            statements = Array(statements.prefix(accepted.count))
            // Only a chain this device started itself (its root adds this device with this
            // device's own key) needs no confirmation: being in a chain, even approved, says
            // nothing of who started it (the operator's device approves whom it likes, or adds
            // this device's id with a key of its own).
            if unseen, !isOwnRoot(statements) {
                try Self.confirm(UnseenChain(accepted, statements: statements), acceptance)
            }
            try pins.save()
            warnAboutTail(of: accepted)
            verified = accepted
        }
        let devices = try await client.devices().filter { $0.invalidated == nil }
        return DeviceTrust(user: user, verified: verified, statements: statements, devices: devices)
    }

    /// This device's user, saved by its first `deviceTrust` (this session may have been
    /// opened before that); nil before.
    package var knownUser: String? { config.user ?? (try? DeviceConfig.load(home: home))?.user }

    /// Whether `statements` start with this device's own root: an add of this device with
    /// the signing key this run holds (false when it holds none).
    func isOwnRoot(_ statements: [DeviceChain.Statement]) -> Bool {
        guard let key = credentials.signingKey, case .add(let entry)? = statements.first?.action else { return false }
        return entry.id == config.device && entry.signingKey == key.publicKey
    }

    /// Signs `action` as this device (or as `signer`, whose `key` it is: a machine's old
    /// device vouching for its new one), appends it to the chain of `trust`, and verifies
    /// and pins what the relay answers.
    ///
    /// When the chain's segment is near its bounds (`Verified.needsCheckpoint`), a
    /// checkpoint restating the verified state, signed the same way, goes first: so a
    /// user who changes devices thousands of times never meets the statement limit
    /// (docs/device-chain.md, "Checkpoints").
    package func append(_ action: DeviceChain.Action, to trust: DeviceTrust, key: Ed25519.SigningKey,
                        signer: String? = nil, client: RelayClient) async throws -> DeviceTrust {
        var trust = trust
        let now = Int64(Date().timeIntervalSince1970)
        // The recovery key signs no checkpoint (issue 49): its one add goes without.
        if !action.isCheckpoint, let verified = trust.verified, verified.needsCheckpoint, signer == nil || signer != verified.recovery?.id,
           let checkpoint = try DeviceChain.Statement.checkpoint(of: verified, timestamp: now, signer: signer ?? config.device, key: key) {
            if checkpoint.encoded.count <= DeviceChain.maxCheckpointBytes {
                trust = try await post(checkpoint, to: trust, client: client)
            } else {
                warn("\(trust.user)'s devices are too many to restate in a checkpoint (\(checkpoint.encoded.count) bytes, the limit is \(DeviceChain.maxCheckpointBytes)): the chain has room for \(DeviceChain.maxStatements - verified.segmentStatements) more statements")
            }
        }
        let statement = try DeviceChain.Statement.signed(
            user: trust.user, sequence: trust.nextSequence,
            previous: trust.statements.last?.hash ?? [UInt8](repeating: 0, count: DeviceChain.hashCount),
            timestamp: now, signer: signer ?? config.device, action: action, key: key)
        return try await post(statement, to: trust, client: client)
    }

    /// Posts a signed statement that follows `trust`'s head; verifies and pins what the
    /// relay answers (the chain from the last checkpoint at or before that head).
    func post(_ statement: DeviceChain.Statement, to trust: DeviceTrust, client: RelayClient) async throws -> DeviceTrust {
        let body = try JSONEncoder().encode(ChainAppend(statement: Data(statement.encoded).base64EncodedString()))
        let bytes = try await client.send(.POST, RelayPaths.chain, json: body, limit: DeviceChain.maxWireBytes)
        let (statements, refused) = try DeviceChain.decodeWirePrefix(bytes)
        var pins = try PinStore(home: home)
        let verified = try pins.accept(statements, user: trust.user, refused: refused)
        try pins.save()
        warnAboutTail(of: verified)
        return DeviceTrust(user: trust.user, verified: verified, statements: Array(statements.prefix(verified.count)), devices: trust.devices)
    }

    /// What `vfs-device` does first: publishes this device's signing key if the relay
    /// has none, and makes this device its user's root when the user has no chain yet
    /// (the first device, or the first to upgrade). Returns the trust after that, and
    /// whether this device just made the root.
    package func joinChain(_ client: RelayClient, key: Ed25519.SigningKey, recipient: String,
                           enrolling: Bool = false, acceptance: ChainAcceptance = .refuse) async throws -> (DeviceTrust, rooted: Bool) {
        var trust = try await deviceTrust(client, enrolling: enrolling, acceptance: acceptance)
        guard let me = trust.devices.first(where: { $0.id == config.device }) else { return (trust, false) }
        if me.signingKey == nil {
            let body = try JSONEncoder().encode(SigningKeyUpdate(signingKey: Data(key.publicKey).base64EncodedString()))
            _ = try await client.send(.PUT, RelayPaths.deviceSigningKey(config.device), json: body)
            trust.devices = try await client.devices().filter { $0.invalidated == nil }
        }
        guard trust.verified == nil else { return (trust, false) }
        // A send-only device signs no statement, the root least of all (issue 48).
        if config.sendOnly == true {
            throw DeviceChainError.badRoot(reason: "\(trust.user) has no device chain yet, and a send-only device cannot start one: enrol a device of theirs that reads first")
        }
        let entry = DeviceChain.DeviceEntry(id: config.device, name: try Self.chainName(me.name), recipient: recipient,
                                            signingKey: key.publicKey)
        do {
            return (try await append(.add(entry), to: trust, key: key, client: client), true)
        } catch RelayClientError.rejected(409, _, _) {
            // Another device of the user became the root first: this one is pending.
            return (try await deviceTrust(client, acceptance: acceptance), false)
        }
    }

    /// Says on stderr that the relay served statements that do not verify, which were
    /// left out (the relay's fault: no device of the user could have signed them).
    package func warnAboutTail(of verified: DeviceChain.Verified) {
        guard let refused = verified.refusedTail else { return }
        warn("the relay serves \(verified.user)'s device chain with statements after number \(verified.head.sequence) that do not verify (\(refused)); using the \(verified.count) that do")
    }

    /// A device name as the chain holds it: at most 64 bytes, no control or format characters.
    package static func chainName(_ name: String) throws -> String {
        guard name.utf8.count <= DeviceChain.maxNameBytes,
              !name.unicodeScalars.contains(where: { [.control, .format].contains($0.properties.generalCategory) }) else {
            throw DeviceChainError.malformed(index: nil, reason: "the device name \"\(DisplayText.printable(name))\" is over 64 bytes or holds format characters: rename it first")
        }
        return name
    }
}

extension RelayClient {
    /// A device chain document (`path`: `RelayPaths.chain` or `userChain`), from the last
    /// checkpoint at or before `pinned` (the whole chain without), of up to the clients'
    /// bound for a whole chain (`DeviceChain.maxWireBytes`, past the usual answer limit).
    package func chainDocument(_ path: String, pinned: UInt64? = nil) async throws -> [UInt8] {
        try await send(.GET, RelayPaths.chain(path, pinned: pinned), limit: DeviceChain.maxWireBytes)
    }
}

/// How a device takes a chain of its user that it has never seen (issue 43, item 6).
package enum ChainAcceptance: Sendable {
    /// Refuse it (`UnseenChain`, 77): not on a terminal, no fingerprint given.
    case refuse
    /// `--accept-chain FINGERPRINT`: the fingerprint of one of its live devices, read on
    /// that device's own screen (`vfs-device fingerprint`).
    case fingerprint(String)
    /// A terminal: the devices are listed on stderr, and this answers yes or no.
    case ask(@Sendable (UnseenChain) -> Bool)
    /// `vfs-device recover` (issue 49): the chain's live recovery key has this signing key,
    /// the one the person typed in.
    case recoveryKey([UInt8])
}

/// A chain of this device's user that it has never seen: who is in it, for a person to
/// recognise (or not) before this device trusts it.
package struct UnseenChain: Error, CustomStringConvertible, Sendable {
    package struct Listed: Sendable, Equatable {
        package var name: String
        package var fingerprint: String
        /// When the statement that added it was signed (the signer's clock).
        package var added: Date
    }

    package var user: String
    /// The root: the device that started the chain, and when.
    package var root: Listed
    /// Its live devices, in the order they were added.
    package var devices: [Listed]
    /// A fingerprint given that is none of them.
    package var mismatch: String? = nil
    /// The signing key of its live recovery key, if it has one.
    package var recoveryKey: [UInt8]?

    package init(_ verified: DeviceChain.Verified, statements: [DeviceChain.Statement]) {
        user = verified.user
        recoveryKey = verified.recovery?.signingKey
        var added: [String: Date] = [:], order: [String] = []
        var root: Listed?
        for statement in statements {
            guard case .add(let entry) = statement.action else { continue }
            let date = Date(timeIntervalSince1970: TimeInterval(statement.timestamp))
            if root == nil {
                root = Listed(name: entry.name, fingerprint: Fingerprint.device(signingKey: entry.signingKey, recipient: entry.recipient),
                              added: date)
            }
            added[entry.id] = date
            order.removeAll { $0 == entry.id }
            order.append(entry.id)
        }
        self.root = root ?? Listed(name: "?", fingerprint: "?", added: Date(timeIntervalSince1970: 0))
        devices = order.compactMap { id in
            verified.devices[id].map {
                Listed(name: $0.name, fingerprint: Fingerprint.device(signingKey: $0.signingKey, recipient: $0.recipient),
                       added: added[id] ?? Date(timeIntervalSince1970: 0))
            }
        }
    }

    /// One line per live device: name, fingerprint, when it was added.
    package var lines: [String] {
        devices.map { "\"\(DisplayText.printable($0.name))\" \($0.fingerprint), added \(DateText.iso8601($0.added))" }
    }

    /// What it is, without what became of it.
    package var summary: String {
        "\(DisplayText.printable(user)) already has a device chain, which this device has never seen, started by \"\(DisplayText.printable(root.name))\" on \(DateText.iso8601(root.added)) with \(devices.count) device(s) now"
    }

    package var description: String {
        if let mismatch { return summary + "; \(mismatch) is the fingerprint of none of them: nothing was trusted" }
        return summary + ": nothing was trusted"
    }
}

extension RelaySession {
    /// Passes when `acceptance` takes `unseen`; throws it otherwise.
    static func confirm(_ unseen: UnseenChain, _ acceptance: ChainAcceptance) throws {
        switch acceptance {
        case .refuse: throw unseen
        case .fingerprint(let given):
            guard unseen.devices.contains(where: { Fingerprint.matches(given, $0.fingerprint) }) else {
                var refused = unseen
                refused.mismatch = given
                throw refused
            }
        case .ask(let answer):
            guard answer(unseen) else { throw unseen }
        case .recoveryKey(let key):
            guard unseen.recoveryKey == key else { throw unseen }
        }
    }
}

/// The one field of the chain document the library's wire form leaves out.
private struct ChainOwner: Decodable { var user: String }
