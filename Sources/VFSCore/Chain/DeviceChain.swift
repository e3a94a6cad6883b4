#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A user's device list: an append-only chain of signed statements (docs/device-chain.md).
///
/// Statement 0 (the root) adds the user's first device and is signed by that device's
/// own key; every later statement is signed by a device live at that point, names the
/// SHA-256 of the previous signed statement and has the next sequence number. The relay
/// stores the chain opaquely; only clients verify it.
package enum DeviceChain {
    /// Limits that keep a hostile relay from making a client loop or balloon.
    public static let maxStatements = 1024
    public static let maxStatementBytes = 8192
    public static let maxChainBytes = 1 << 20
    public static let maxNameBytes = 64
    public static let maxUserBytes = 254
    public static let maxRecipientBytes = 4096
    public static let deviceIdCount = 32
    public static let hashCount = SHA256.byteCount

    /// The statement layout's version (the first byte of its canonical bytes).
    public static let statementVersion: UInt8 = 1
    /// Prepended to the canonical bytes before signing, so a chain signature can never
    /// be replayed as a bundle signature or any other signature of the same key.
    public static let signatureContext = Array("vfs device chain statement v1\0".utf8)

    public enum Action: Equatable, Sendable {
        case add(DeviceEntry)
        case remove(deviceId: String)
    }

    /// A device as the chain knows it.
    public struct DeviceEntry: Equatable, Sendable {
        public var id: String
        public var name: String
        public var recipient: String
        public var signingKey: [UInt8]
        public init(id: String, name: String, recipient: String, signingKey: [UInt8]) {
            self.id = id; self.name = name; self.recipient = recipient; self.signingKey = signingKey
        }
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

        /// The canonical bytes that are signed.
        public var body: [UInt8] {
            var out = CanonicalWriter()
            out.byte(DeviceChain.statementVersion)
            switch action {
            case .add: out.byte(1)
            case .remove: out.byte(2)
            }
            out.field(Array(user.utf8))
            out.uint64(sequence)
            out.raw(previous)
            out.uint64(UInt64(bitPattern: timestamp))
            out.field(Array(signer.utf8))
            switch action {
            case .add(let device):
                out.field(Array(device.id.utf8))
                out.field(Array(device.name.utf8))
                out.field(Array(device.recipient.utf8))
                out.raw(device.signingKey)
            case .remove(let id):
                out.field(Array(id.utf8))
            }
            return out.bytes
        }

        /// The signed statement's bytes: the body, then the 64-byte signature.
        public var encoded: [UInt8] { body + signature }

        /// What the next statement names as `previous`.
        public var hash: [UInt8] { SHA256.hash(encoded) }

        /// A new statement signed by `key`.
        public static func signed(user: String, sequence: UInt64, previous: [UInt8], timestamp: Int64,
                                  signer: String, action: Action, key: Ed25519.SigningKey) throws -> Statement {
            var statement = Statement(user: user, sequence: sequence, previous: previous, timestamp: timestamp,
                                      signer: signer, action: action, signature: [])
            statement.signature = try key.sign(DeviceChain.signatureContext + statement.body)
            return statement
        }

        /// Parses one signed statement; refuses anything but the exact canonical form.
        public static func decode(_ bytes: [UInt8]) throws -> Statement {
            guard bytes.count <= DeviceChain.maxStatementBytes else {
                throw DeviceChainError.malformed(index: nil, reason: "a statement of \(bytes.count) bytes (the limit is \(DeviceChain.maxStatementBytes))")
            }
            var reader = CanonicalReader(bytes)
            guard try reader.byte() == DeviceChain.statementVersion else {
                throw DeviceChainError.malformed(index: nil, reason: "unknown statement version \(bytes[0])")
            }
            let kind = try reader.byte()
            let user = try reader.text(max: DeviceChain.maxUserBytes, what: "user")
            let sequence = try reader.uint64()
            let previous = try reader.raw(DeviceChain.hashCount)
            let timestamp = Int64(bitPattern: try reader.uint64())
            let signer = try reader.deviceId()
            let action: Action
            switch kind {
            case 1:
                let id = try reader.deviceId()
                let name = try reader.text(max: DeviceChain.maxNameBytes, what: "name")
                let recipient = try reader.text(max: DeviceChain.maxRecipientBytes, what: "recipient")
                let key = try reader.raw(Ed25519.publicKeyCount)
                guard !name.isEmpty, !recipient.isEmpty else { throw DeviceChainError.malformed(index: nil, reason: "an empty name or recipient") }
                action = .add(DeviceEntry(id: id, name: name, recipient: recipient, signingKey: key))
            case 2:
                action = .remove(deviceId: try reader.deviceId())
            default:
                throw DeviceChainError.malformed(index: nil, reason: "unknown statement kind \(kind)")
            }
            let signature = try reader.raw(Ed25519.signatureCount)
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
        /// The live devices by id.
        public var devices: [String: DeviceEntry]
        public var head: Head
    }

    /// Verifies a whole chain from its root: signatures, links, sequence numbers, each
    /// signer live at its statement, bounds. `user` is the user the caller asked for.
    public static func verify(_ statements: [Statement], user: String) throws -> Verified {
        guard !statements.isEmpty else { throw DeviceChainError.malformed(index: nil, reason: "an empty chain") }
        guard statements.count <= maxStatements else {
            throw DeviceChainError.malformed(index: nil, reason: "\(statements.count) statements (the limit is \(maxStatements))")
        }
        var live: [String: DeviceEntry] = [:]
        var previousHash = [UInt8](repeating: 0, count: hashCount)
        var rootKey: [UInt8] = []
        var total = 0
        for (index, statement) in statements.enumerated() {
            let encoded = statement.encoded
            total += encoded.count
            // Only statements that are exactly their canonical form (lengths, id syntax,
            // field limits) are considered; one built in memory is held to it as well.
            let reparsed: Statement
            do {
                reparsed = try Statement.decode(encoded)
            } catch DeviceChainError.malformed(_, let reason) {
                throw DeviceChainError.malformed(index: index, reason: reason)
            }
            guard reparsed == statement else { throw DeviceChainError.malformed(index: index, reason: "not in canonical form") }
            guard encoded.count <= maxStatementBytes, total <= maxChainBytes else {
                throw DeviceChainError.malformed(index: index, reason: "the chain is larger than \(maxChainBytes) bytes")
            }
            guard statement.user == user else { throw DeviceChainError.wrongUser(index: index, expected: user, found: statement.user) }
            guard statement.sequence == UInt64(index) else { throw DeviceChainError.badSequence(index: index, found: statement.sequence) }
            guard statement.previous == previousHash else { throw DeviceChainError.brokenLink(index: index) }
            let signerKey: [UInt8]
            if index == 0 {
                guard case .add(let root) = statement.action, root.id == statement.signer else {
                    throw DeviceChainError.badRoot(reason: "the first statement must add the device that signs it")
                }
                signerKey = root.signingKey
                rootKey = root.signingKey
            } else {
                guard let signer = live[statement.signer] else { throw DeviceChainError.signerNotLive(index: index, signer: statement.signer) }
                signerKey = signer.signingKey
            }
            guard Ed25519.verify(signature: statement.signature, of: signatureContext + statement.body, publicKey: signerKey) else {
                throw DeviceChainError.badSignature(index: index)
            }
            switch statement.action {
            case .add(let device):
                guard live[device.id] == nil else { throw DeviceChainError.duplicate(index: index, reason: "device \(device.id) is already in the chain") }
                guard !live.values.contains(where: { $0.signingKey == device.signingKey }) else {
                    throw DeviceChainError.duplicate(index: index, reason: "its signing key is already another live device's")
                }
                live[device.id] = device
            case .remove(let id):
                guard live[id] != nil else { throw DeviceChainError.duplicate(index: index, reason: "device \(id) is not live") }
                guard live.count > 1 else { throw DeviceChainError.duplicate(index: index, reason: "it would remove the last device") }
                live[id] = nil
            }
            previousHash = statement.hash
        }
        return Verified(user: user, rootKey: rootKey, devices: live,
                        head: Head(sequence: UInt64(statements.count - 1), hash: previousHash))
    }

    /// Verifies `statements` and checks that they extend `pinned` (the head this client
    /// verified last): the chain is at least as long and holds the pinned statement.
    public static func verify(_ statements: [Statement], user: String, extending pinned: Head?) throws -> Verified {
        let verified = try verify(statements, user: user)
        if let pinned { try check(statements, extend: pinned) }
        return verified
    }

    /// Checks that verified `statements` extend `pinned`: at least as long, and holding
    /// the pinned statement (links were verified, so all before it are the pinned ones).
    public static func check(_ statements: [Statement], extend pinned: Head) throws {
        guard pinned.sequence < UInt64(statements.count) else {
            throw DeviceChainError.rolledBack(pinned: pinned.sequence, served: UInt64(statements.count) - 1)
        }
        guard statements[Int(pinned.sequence)].hash == pinned.hash else {
            throw DeviceChainError.forked(sequence: pinned.sequence)
        }
    }

    // MARK: Wire form

    /// The versioned wire form the relay stores and serves without reading it:
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

    /// Parses the wire form, bounded before anything is decoded.
    public static func decodeWire(_ bytes: [UInt8]) throws -> [Statement] {
        // base64 grows 4/3 and each statement costs a few bytes of JSON.
        guard bytes.count <= maxChainBytes * 4 / 3 + maxStatements * 4 + 64 else {
            throw DeviceChainError.malformed(index: nil, reason: "a chain document of \(bytes.count) bytes")
        }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(bytes))
        } catch {
            throw DeviceChainError.malformed(index: nil, reason: "not a chain document")
        }
        guard wire.version == Wire.currentVersion else { throw DeviceChainError.malformed(index: nil, reason: "unknown chain version \(wire.version)") }
        guard wire.statements.count <= maxStatements else {
            throw DeviceChainError.malformed(index: nil, reason: "\(wire.statements.count) statements (the limit is \(maxStatements))")
        }
        return try wire.statements.enumerated().map { index, text in
            guard let data = Data(base64Encoded: text) else { throw DeviceChainError.malformed(index: index, reason: "not base64") }
            do {
                return try Statement.decode(Array(data))
            } catch DeviceChainError.malformed(_, let reason) {
                throw DeviceChainError.malformed(index: index, reason: reason)
            }
        }
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
        }
    }
}

/// The canonical form's writer: big-endian integers, byte strings prefixed with their
/// 16-bit big-endian length, fixed-size fields raw.
struct CanonicalWriter {
    private(set) var bytes: [UInt8] = []
    mutating func byte(_ value: UInt8) { bytes.append(value) }
    mutating func uint64(_ value: UInt64) { for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) } }
    mutating func raw(_ value: [UInt8]) { bytes += value }
    mutating func field(_ value: [UInt8]) {
        precondition(value.count <= Int(UInt16.max))
        bytes.append(UInt8(value.count >> 8)); bytes.append(UInt8(value.count & 0xff)); bytes += value
    }
    /// A byte string of any length after its 64-bit big-endian length (fingerprint input).
    mutating func field64(_ value: [UInt8]) { uint64(UInt64(value.count)); bytes += value }
}

struct CanonicalReader {
    private let bytes: [UInt8]
    private var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var atEnd: Bool { offset == bytes.count }

    mutating func raw(_ count: Int) throws -> [UInt8] {
        guard bytes.count - offset >= count else { throw DeviceChainError.malformed(index: nil, reason: "truncated statement") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }
    mutating func byte() throws -> UInt8 { try raw(1)[0] }
    mutating func uint64() throws -> UInt64 { try raw(8).reduce(0) { $0 << 8 | UInt64($1) } }
    mutating func field(max: Int, what: String) throws -> [UInt8] {
        let length = try raw(2).reduce(0) { $0 << 8 | Int($1) }
        guard length <= max else { throw DeviceChainError.malformed(index: nil, reason: "a \(what) of \(length) bytes (the limit is \(max))") }
        return try raw(length)
    }
    mutating func text(max: Int, what: String) throws -> String {
        let field = try field(max: max, what: what)
        guard let text = String(validating: field, as: UTF8.self) else { throw DeviceChainError.malformed(index: nil, reason: "a \(what) that is not UTF-8") }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }) else {
            throw DeviceChainError.malformed(index: nil, reason: "a \(what) with control or format characters")
        }
        return text
    }
    /// A device id: 32 lowercase hex digits, as the relay makes them.
    mutating func deviceId() throws -> String {
        let field = try field(max: DeviceChain.deviceIdCount, what: "device id")
        guard field.count == DeviceChain.deviceIdCount,
              field.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw DeviceChainError.malformed(index: nil, reason: "a device id that is not 32 lowercase hex digits")
        }
        return String(decoding: field, as: UTF8.self)
    }
}
