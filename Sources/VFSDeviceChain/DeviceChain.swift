#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A user's device list: an append-only chain of signed statements (docs/device-chain.md).
///
/// Statement 0 (the root) adds the user's first device and is signed by that device's
/// own key; every later statement is signed by a device live at that point, names the
/// SHA-256 of the previous signed statement and has the next sequence number.
///
/// This module is the one implementation of the format, its bounds and its verifier,
/// shared by the clients (through VFSCore) and the relay (which links no VFSCore): each
/// passes the two primitives it has, SHA-256 and Ed25519 verification (`Primitives`).
package enum DeviceChain {
    /// Limits that keep a hostile relay from making a client loop or balloon. The relay
    /// stores no more than these either (the same constants).
    ///
    /// A **segment** is the statements from the last checkpoint (or the root, before the
    /// first checkpoint) to the head, the checkpoint included: at most `maxStatements`
    /// statements and `maxChainBytes` bytes. A checkpoint starts a new segment, so the
    /// chain as a whole grows past them; what bounds it is `maxHistoryBytes`, what a new
    /// device (no pin) verifies from the root.
    public static let maxStatements = 1024
    public static let maxStatementBytes = 8192
    public static let maxChainBytes = 1 << 20
    /// A checkpoint restates every live device: it may be larger than other statements.
    public static let maxCheckpointBytes = 256 << 10
    /// A whole chain, root to head, every segment: what a device with no pin verifies.
    public static let maxHistoryBytes = 16 << 20
    /// Clients append a checkpoint before a change once the segment holds this many
    /// statements of the `maxStatements` (64 left), or this many bytes of the
    /// `maxChainBytes` (64 KiB left): docs/device-chain.md, "Checkpoints".
    public static let checkpointAfterStatements = maxStatements - 64
    public static let checkpointAfterBytes = maxChainBytes - (64 << 10)
    public static let maxNameBytes = 64
    public static let maxUserBytes = 254
    public static let maxRecipientBytes = 4096
    public static let deviceIdCount = 32
    public static let hashCount = 32
    public static let publicKeyCount = 32
    public static let signatureCount = 64

    /// The statement layout's version (the first byte of its canonical bytes).
    public static let statementVersion: UInt8 = 1
    /// Prepended to the canonical bytes before signing, so a chain signature can never
    /// be replayed as a bundle signature or any other signature of the same key.
    public static let signatureContext = Array("vfs device chain statement v1\0".utf8)

    /// What the verifier needs from a crypto library: SHA-256, and Ed25519 verification
    /// (RFC 8032; false for a key or signature of the wrong length or a key off the curve).
    public struct Primitives: Sendable {
        public var sha256: @Sendable ([UInt8]) -> [UInt8]
        public var verifyEd25519: @Sendable (_ signature: [UInt8], _ message: [UInt8], _ publicKey: [UInt8]) -> Bool
        public init(sha256: @escaping @Sendable ([UInt8]) -> [UInt8],
                    verifyEd25519: @escaping @Sendable ([UInt8], [UInt8], [UInt8]) -> Bool) {
            self.sha256 = sha256
            self.verifyEd25519 = verifyEd25519
        }
    }

    /// Statement kinds (the second byte of the canonical bytes). A send-only device
    /// (issue 48) is added by its own kind, and a checkpoint restating one has its own
    /// kind too, so that a verifier from before them refuses both (unknown kind) rather
    /// than taking a send-only device for a reader. A recovery key (issue 49) is added by
    /// kind 6 and restated in a kind 5 checkpoint with role 2, which a verifier from
    /// before it refuses as well (unknown kind, unknown role).
    enum Kind {
        static let add: UInt8 = 1
        static let remove: UInt8 = 2
        static let checkpoint: UInt8 = 3
        static let addSendOnly: UInt8 = 4
        static let checkpointWithRoles: UInt8 = 5
        /// Issue 49: a recovery key joins (and replaces the live one, if any).
        static let addRecovery: UInt8 = 6
        static func isCheckpoint(_ kind: UInt8) -> Bool { kind == checkpoint || kind == checkpointWithRoles }
    }

    public enum Action: Equatable, Sendable {
        /// A device joins: a reader (kind 1), a send-only device (kind 4,
        /// `DeviceEntry.sendOnly`) that signs its own pushes and is never a recipient, or
        /// the recovery key (kind 6, `DeviceEntry.recovery`), which replaces the live one.
        case add(DeviceEntry)
        case remove(deviceId: String)
        /// Restates the verifier's whole state at that point; changes nothing.
        case checkpoint(Checkpoint)

        public var isCheckpoint: Bool {
            if case .checkpoint = self { return true }
            return false
        }
    }

    /// What a checkpoint restates: everything the verifier holds at that point (the
    /// root and the live devices), so that a client that verified the chain up to and
    /// past it can later be served the chain from it (docs/device-chain.md, "Checkpoints").
    public struct Checkpoint: Equatable, Sendable {
        /// The device statement 0 added (its key is the root key), and when it was signed.
        public var root: DeviceEntry
        public var rootTimestamp: Int64
        /// The live devices, in ascending order of id (one encoding per state).
        public var devices: [DeviceEntry]
        public init(root: DeviceEntry, rootTimestamp: Int64, devices: [DeviceEntry]) {
            self.root = root; self.rootTimestamp = rootTimestamp
            self.devices = devices.sorted { $0.id < $1.id }
        }
        /// Whether it restates a send-only device or a recovery key (kind 5, each
        /// device's role after it).
        public var hasRoles: Bool { devices.contains { $0.sendOnly || $0.recovery } }
        /// Whether it restates a send-only device.
        public var hasSendOnly: Bool { devices.contains { $0.sendOnly } }
    }

    /// A device as the chain knows it.
    public struct DeviceEntry: Equatable, Sendable {
        public var id: String
        public var name: String
        public var recipient: String
        public var signingKey: [UInt8]
        /// A send-only device (issue 48): it signs its own pushes and nothing else (no
        /// chain statement), and no client encrypts to it. Its recipient is kept (what the
        /// relay lists and the fingerprint covers), never used.
        public var sendOnly: Bool
        /// The user's recovery key (issue 49): a recipient of cloud files (never of a
        /// push), and the signer of one kind of statement only, the add of a new reader.
        public var recovery: Bool
        public init(id: String, name: String, recipient: String, signingKey: [UInt8], sendOnly: Bool = false, recovery: Bool = false) {
            self.id = id; self.name = name; self.recipient = recipient; self.signingKey = signingKey
            self.sendOnly = sendOnly; self.recovery = recovery
        }
        /// The role byte of a kind 5 checkpoint: 0 a reader, 1 send-only, 2 the recovery key.
        var role: UInt8 { recovery ? 2 : sendOnly ? 1 : 0 }
    }

    /// The last statement of a chain: what a client pins.
    public struct Head: Equatable, Codable, Sendable {
        public var sequence: UInt64
        public var hash: [UInt8]
        public init(sequence: UInt64, hash: [UInt8]) { self.sequence = sequence; self.hash = hash }
    }

    /// One signed statement.
    public struct Statement: Equatable, Sendable {
        public var user: String
        public var sequence: UInt64
        public var previous: [UInt8]
        /// Seconds since 1970; informational (device clocks differ), never checked for order.
        public var timestamp: Int64
        public var signer: String
        public var action: Action
        public var signature: [UInt8]

        public init(user: String, sequence: UInt64, previous: [UInt8], timestamp: Int64, signer: String,
                    action: Action, signature: [UInt8]) {
            self.user = user; self.sequence = sequence; self.previous = previous; self.timestamp = timestamp
            self.signer = signer; self.action = action; self.signature = signature
        }

        /// The canonical bytes that are signed.
        public var body: [UInt8] {
            var out = CanonicalWriter()
            out.byte(DeviceChain.statementVersion)
            switch action {
            case .add(let device): out.byte(device.recovery ? Kind.addRecovery : device.sendOnly ? Kind.addSendOnly : Kind.add)
            case .remove: out.byte(Kind.remove)
            case .checkpoint(let checkpoint):
                out.byte(checkpoint.hasRoles ? Kind.checkpointWithRoles : Kind.checkpoint)
            }
            out.field(Array(user.utf8))
            out.uint64(sequence)
            out.raw(previous)
            out.uint64(UInt64(bitPattern: timestamp))
            out.field(Array(signer.utf8))
            switch action {
            case .add(let device):
                out.device(device)
            case .remove(let id):
                out.field(Array(id.utf8))
            case .checkpoint(let checkpoint):
                out.uint64(UInt64(bitPattern: checkpoint.rootTimestamp))
                out.device(checkpoint.root)
                precondition(checkpoint.devices.count <= Int(UInt16.max))
                out.byte(UInt8(checkpoint.devices.count >> 8)); out.byte(UInt8(checkpoint.devices.count & 0xff))
                // Kind 5: each device's role after it (0 a reader, 1 send-only, 2 the recovery key).
                let roles = checkpoint.hasRoles
                for device in checkpoint.devices {
                    out.device(device)
                    if roles { out.byte(device.role) }
                }
            }
            return out.bytes
        }

        /// Whether it is a checkpoint (which starts a segment).
        public var isCheckpoint: Bool { action.isCheckpoint }

        /// The signed statement's bytes: the body, then the 64-byte signature.
        public var encoded: [UInt8] { body + signature }

        /// What the signature is over: the context, then the canonical bytes.
        public var signedMessage: [UInt8] { DeviceChain.signatureContext + body }

        /// Parses one signed statement; refuses anything but the exact canonical form.
        public static func decode(_ bytes: [UInt8]) throws -> Statement {
            let kind = bytes.count > 1 ? bytes[1] : 0
            let limit = Kind.isCheckpoint(kind) ? DeviceChain.maxCheckpointBytes : DeviceChain.maxStatementBytes
            guard bytes.count <= limit else {
                throw DeviceChainError.malformed(index: nil, reason: "a statement of \(bytes.count) bytes (the limit is \(limit))")
            }
            var reader = CanonicalReader(bytes)
            guard try reader.byte() == DeviceChain.statementVersion else {
                throw DeviceChainError.malformed(index: nil, reason: "unknown statement version \(bytes[0])")
            }
            _ = try reader.byte()
            let user = try reader.text(max: DeviceChain.maxUserBytes, what: "user")
            let sequence = try reader.uint64()
            let previous = try reader.raw(DeviceChain.hashCount)
            let timestamp = Int64(bitPattern: try reader.uint64())
            let signer = try reader.deviceId()
            let action: Action
            switch kind {
            case Kind.add:
                action = .add(try reader.device())
            case Kind.addSendOnly:
                var device = try reader.device()
                device.sendOnly = true
                action = .add(device)
            case Kind.addRecovery:
                var device = try reader.device()
                device.recovery = true
                action = .add(device)
            case Kind.remove:
                action = .remove(deviceId: try reader.deviceId())
            case Kind.checkpoint, Kind.checkpointWithRoles:
                let roles = kind == Kind.checkpointWithRoles
                let rootTimestamp = Int64(bitPattern: try reader.uint64())
                let root = try reader.device()
                let count = try reader.raw(2).reduce(0) { $0 << 8 | Int($1) }
                guard count > 0 else { throw DeviceChainError.malformed(index: nil, reason: "a checkpoint of no devices") }
                var devices: [DeviceEntry] = []
                for _ in 0..<count {
                    var device = try reader.device()
                    if roles {
                        switch try reader.byte() {
                        case 0: break
                        case 1: device.sendOnly = true
                        case 2: device.recovery = true
                        case let role: throw DeviceChainError.malformed(index: nil, reason: "a device of unknown role \(role) in a checkpoint")
                        }
                    }
                    // Strictly ascending ids: one encoding per state, no device twice.
                    guard devices.last.map({ $0.id < device.id }) ?? true else {
                        throw DeviceChainError.malformed(index: nil, reason: "a checkpoint whose devices are not in ascending order of id")
                    }
                    devices.append(device)
                }
                let checkpoint = Checkpoint(root: root, rootTimestamp: rootTimestamp, devices: devices)
                // One encoding per state: roles only where a device is send-only or the
                // recovery key (kind 3 otherwise).
                guard roles == checkpoint.hasRoles else {
                    throw DeviceChainError.malformed(index: nil, reason: "a checkpoint with roles and no send-only device or recovery key")
                }
                action = .checkpoint(checkpoint)
            default:
                throw DeviceChainError.malformed(index: nil, reason: "unknown statement kind \(kind)")
            }
            let signature = try reader.raw(DeviceChain.signatureCount)
            guard reader.atEnd else { throw DeviceChainError.malformed(index: nil, reason: "bytes after the signature") }
            return Statement(user: user, sequence: sequence, previous: previous, timestamp: timestamp,
                             signer: signer, action: action, signature: signature)
        }
    }

    /// What a verified chain says.
    public struct Verified: Equatable, Sendable {
        public var user: String
        /// The root (first) device's signing key: what another user pins (issue 28).
        public var rootKey: [UInt8]
        /// The live devices by id: the readers, every one a recipient of what the user's
        /// devices encrypt and a signer of the chain.
        public var devices: [String: DeviceEntry]
        public var head: Head
        /// Why the statements after `head` were left out, when the chain served had a
        /// tail that does not verify (`verifyPrefix`); nil when every statement verified.
        public var refusedTail: DeviceChainError? = nil
        /// The sequence number of the first statement verified: 0 (the root), or the
        /// checkpoint a pinned client was served the chain from.
        public var first: UInt64 = 0
        /// The root device and when it was added (restated by every checkpoint).
        public var root: DeviceEntry? = nil
        public var rootTimestamp: Int64 = 0
        /// The segment at the head (since the last checkpoint, or the root): its
        /// statements and bytes, which the bounds limit.
        public var segmentStatements = 0
        public var segmentBytes = 0
        /// The live send-only devices by id (issue 48): they sign their own pushes, never
        /// a chain statement, and are never a recipient. Apart from `devices` so that no
        /// code choosing readers from `devices` can take one in.
        public var senders: [String: DeviceEntry] = [:]
        /// The live recovery key (issue 49), at most one: a recipient of the user's cloud
        /// files, never of a push, and the signer of new readers' adds only. Apart from
        /// `devices` and `senders` for the same reason as they are apart.
        public var recovery: DeviceEntry? = nil
        /// How many statements verified: those from `first` to `head`.
        public var count: Int { Int(head.sequence - first) + 1 }

        /// The checkpoint that restates this state; nil before the root.
        public var checkpoint: Checkpoint? {
            root.map { Checkpoint(root: $0, rootTimestamp: rootTimestamp, devices: Array(devices.values) + Array(senders.values) + (recovery.map { [$0] } ?? [])) }
        }

        /// A live device that may sign a bundle: a reader or a send-only device.
        public func signer(_ id: String) -> DeviceEntry? { devices[id] ?? senders[id] }

        /// The live device `id` as a recipient: refuses a send-only device
        /// (`DeviceChainError.sendOnlyRecipient`, 77), nil for one not live.
        public func recipient(_ id: String) throws -> DeviceEntry? {
            if let sender = senders[id] { throw DeviceChainError.sendOnlyRecipient(device: sender.name, user: user) }
            return devices[id]
        }

        /// Whether a client should append a checkpoint before its next change: the
        /// segment is near its bounds (`checkpointAfterStatements`, `checkpointAfterBytes`).
        public var needsCheckpoint: Bool {
            segmentStatements >= DeviceChain.checkpointAfterStatements || segmentBytes >= DeviceChain.checkpointAfterBytes
        }
    }

    // MARK: Wire form

    /// The versioned wire form the relay stores and serves:
    /// `{"version":1,"statements":["<base64 of a signed statement>", …]}`.
    struct Wire: Codable, Equatable, Sendable {
        static let currentVersion = 1
        var version: Int
        var statements: [String]
        init(statements: [Statement]) {
            version = Self.currentVersion
            self.statements = statements.map { Data($0.encoded).base64EncodedString() }
        }
    }

    public static func encodeWire(_ statements: [Statement]) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(Wire(statements: statements)))
    }

    /// The largest chain document a client reads (a whole chain, root to head): base64
    /// grows 4/3 and each statement (at least 180 bytes) costs a few bytes of JSON.
    public static let maxWireBytes = maxHistoryBytes * 4 / 3 + maxHistoryBytes / 180 * 4 + 64

    /// Parses the wire form, bounded before anything is decoded; any statement that is
    /// not base64 of a canonical statement is refused.
    public static func decodeWire(_ bytes: [UInt8]) throws -> [Statement] {
        let (statements, refused) = try decodeWirePrefix(bytes)
        if let refused { throw refused }
        return statements
    }

    /// Parses the wire form up to its first statement that is not base64 of a canonical
    /// statement (or past the statement limit), and says why it stopped there: the tail
    /// a client leaves out. The document itself (size, JSON, version) is refused whole.
    public static func decodeWirePrefix(_ bytes: [UInt8]) throws -> (statements: [Statement], refused: DeviceChainError?) {
        guard bytes.count <= maxWireBytes else {
            throw DeviceChainError.malformed(index: nil, reason: "a chain document of \(bytes.count) bytes")
        }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(bytes))
        } catch {
            throw DeviceChainError.malformed(index: nil, reason: "not a chain document")
        }
        guard wire.version == Wire.currentVersion else { throw DeviceChainError.malformed(index: nil, reason: "unknown chain version \(wire.version)") }
        return decodeStatements(wire.statements)
    }

    /// Statements as the wire form and the relay's store keep them (base64, in order), up
    /// to the first that is not base64 of a canonical statement or is past the statement
    /// limit of its segment (`maxStatements` since the last checkpoint), and why it
    /// stopped there. The one parser of stored statements: clients read documents
    /// through it, the relay its stored chains (RelayChain).
    public static func decodeStatements(_ texts: [String]) -> (statements: [Statement], refused: DeviceChainError?) {
        var statements: [Statement] = []
        var segment = 0, checkpoints = 0, bytes = 0
        for (index, text) in texts.enumerated() {
            do {
                guard let data = Data(base64Encoded: text) else { throw DeviceChainError.malformed(index: nil, reason: "not base64") }
                bytes += data.count
                guard bytes <= maxHistoryBytes else { throw DeviceChainError.malformed(index: nil, reason: "a chain of more than \(maxHistoryBytes) bytes") }
                let statement = try Statement.decode(Array(data))
                if statement.isCheckpoint { segment = 0; checkpoints += 1 }
                segment += 1
                guard segment <= maxStatements else {
                    throw DeviceChainError.malformed(index: nil, reason: checkpoints == 0
                        ? "\(texts.count) statements (the limit is \(maxStatements))"
                        : "more than \(maxStatements) statements since the last checkpoint")
                }
                statements.append(statement)
            } catch DeviceChainError.malformed(_, let reason) {
                return (statements, .malformed(index: index, reason: reason))
            } catch {
                return (statements, .malformed(index: index, reason: "\(error)"))
            }
        }
        return (statements, nil)
    }
}

package enum DeviceChainError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformed(index: Int?, reason: String)
    case wrongUser(index: Int, expected: String, found: String)
    case badSequence(index: Int, found: UInt64)
    case brokenLink(index: Int)
    case badRoot(reason: String)
    case signerNotLive(index: Int, signer: String)
    case badSignature(index: Int)
    case duplicate(index: Int, reason: String)
    /// The served chain is shorter than the head this client pinned.
    case rolledBack(pinned: UInt64, served: UInt64)
    /// The served chain differs from the pinned one at or before the pinned head.
    case forked(sequence: UInt64)
    /// The user's root key is not the one pinned at first contact.
    case rootChanged(user: String)
    /// The chain was served from a checkpoint this client cannot hold to what it verified:
    /// it has no pin of the user, or the checkpoint comes after its pin.
    case unanchoredCheckpoint(sequence: UInt64, pinned: UInt64?)
    /// A checkpoint does not restate the state the chain has at that point.
    case checkpointMismatch(index: Int, reason: String)
    /// A statement signed by a send-only device, which signs only its own pushes (issue 48).
    case sendOnlySigner(index: Int, signer: String)
    /// A send-only device taken as a recipient: nothing is ever encrypted to one (issue 48).
    case sendOnlyRecipient(device: String, user: String)
    /// A statement signed by the recovery key that is not the add of a reader (issue 49).
    case recoverySigner(index: Int, signer: String)

    public var description: String {
        func at(_ index: Int?) -> String { index.map { "statement \($0): " } ?? "" }
        switch self {
        case let .malformed(index, reason): return "device chain: \(at(index))malformed: \(reason)"
        case let .wrongUser(index, expected, found): return "device chain: \(at(index))is \(found)'s, not \(expected)'s"
        case let .badSequence(index, found): return "device chain: \(at(index))has sequence number \(found)"
        case let .brokenLink(index): return "device chain: \(at(index))does not follow the statement before it"
        case let .badRoot(reason): return "device chain: bad root: \(reason)"
        case let .signerNotLive(index, signer): return "device chain: \(at(index))is signed by device \(signer), which is not in the chain at that point"
        case let .badSignature(index): return "device chain: \(at(index))bad signature"
        case let .duplicate(index, reason): return "device chain: \(at(index))\(reason)"
        case let .rolledBack(pinned, served):
            return "device chain: the relay served a chain ending at statement \(served), older than the \(pinned) this device verified"
        case let .forked(sequence): return "device chain: the relay served a chain that differs from the one this device verified at statement \(sequence)"
        case let .rootChanged(user): return "device chain: \(user)'s root key is not the one pinned at first contact"
        case let .unanchoredCheckpoint(sequence, pinned):
            let why = pinned.map { "after the statement \($0) this device verified" } ?? "and this device has verified none of it"
            return "device chain: the relay served the chain from a checkpoint (statement \(sequence)) \(why)"
        case let .checkpointMismatch(index, reason): return "device chain: \(at(index))is a checkpoint that \(reason)"
        case let .sendOnlySigner(index, signer):
            return "device chain: \(at(index))is signed by device \(signer), a send-only device, which signs no statement"
        case let .sendOnlyRecipient(device, user):
            return "device chain: \"\(device)\" of \(user) is a send-only device: nothing is encrypted to it"
        case let .recoverySigner(index, signer):
            return "device chain: \(at(index))is signed by \(signer), the recovery key, which signs only the add of a new device"
        }
    }
}
