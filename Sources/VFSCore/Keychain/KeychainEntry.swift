/// One item in a keychain's body: a secret filed by service and account, or an age
/// identity filed by name.
public struct KeychainEntry: Sendable {
    public enum Kind: UInt8, Sendable {
        case secret = 1
        case identity = 2
    }

    public let kind: Kind
    /// The service, or the identity's name.
    public let service: String
    /// The account; empty for an identity.
    public let account: String
    public var label: String
    /// Seconds since 1970.
    public let created: Int64
    public var modified: Int64
    /// The secret as stored (for an identity, its 32-byte X25519 scalar, or the
    /// `AGE-SECRET-KEY-PQ-1…` text of a post-quantum one).
    public var secret: SecretBytes

    /// The longest service, account, label or question the tools accept, in UTF-8 bytes.
    public static let maxNameCount = 1024
    /// The longest the format can hold: a u16 length.
    static let maxFieldCount = Int(UInt16.max)
    /// The largest secret the tools store (the format's u32 would hold more).
    static let maxSecretCount = 16 << 20

    public init(kind: Kind, service: String, account: String, label: String = "", created: Int64, modified: Int64, secret: SecretBytes) {
        self.kind = kind
        self.service = service
        self.account = account
        self.label = label
        self.created = created
        self.modified = modified
        self.secret = secret
    }

    /// An identity entry named `name` holding `identity`'s scalar.
    public init(identityNamed name: String, _ identity: X25519Identity, created: Int64) {
        self.init(kind: .identity, service: name, account: "", created: created, modified: created, secret: identity.secretKey)
    }

    /// An identity entry named `name` holding `identity`: an X25519 scalar as such, any
    /// other kind as its text (a plugin's stub, which holds no secret, too).
    public init(identityNamed name: String, _ identity: AgeIdentity, created: Int64) {
        switch identity {
        case .x25519(let x25519):
            self.init(identityNamed: name, x25519, created: created)
        case .hybrid, .plugin:
            self.init(kind: .identity, service: name, account: "", created: created, modified: created,
                      secret: SecretBytes(copying: Array(identity.string.utf8)))
        case .sshEd25519, .sshRSA:
            preconditionFailure("the keychain keeps no SSH keys (UnlockedKeychain.addIdentity refuses them)")
        }
    }

    /// For an identity entry, the X25519 identity (what the relay's device key is).
    public func identity() throws -> X25519Identity {
        precondition(kind == .identity)
        return try X25519Identity(secretKey: secret)
    }

    /// For an identity entry, the age identity of any kind: a 32-byte secret is an
    /// X25519 scalar, anything else an identity's text.
    public func ageIdentity() throws -> AgeIdentity {
        precondition(kind == .identity)
        if secret.count == X25519.keyCount { return .x25519(try X25519Identity(secretKey: secret)) }
        let text = secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        guard text.hasPrefix(HybridIdentity.hrp + "1") || text.hasPrefix(AgePlugin.identityPrefix) else {
            throw AgeError.invalidKey("the keychain identity \"\(service)\" is of an unknown kind")
        }
        return try AgeIdentity(text)
    }

    public func matches(_ kind: Kind, _ service: String, _ account: String) -> Bool {
        self.kind == kind && self.service == service && self.account == account
    }
}


/// The keychain body's plaintext: a u32 count, then per entry kind (u8), service,
/// account and label (u16 length + UTF-8 each), created and modified (i64 seconds),
/// and the secret (u32 length + bytes).
enum KeychainBody {
    /// Refuses (`KeychainError.entryTooLarge`) what `encode` could not hold, so that no
    /// name or secret ever reaches a trapping conversion.
    static func checkSizes(_ entries: [KeychainEntry]) throws {
        for entry in entries {
            for (what, text) in [("service", entry.service), ("account", entry.account), ("label", entry.label)]
            where text.utf8.count > KeychainEntry.maxFieldCount {
                throw KeychainError.entryTooLarge(what: what, count: text.utf8.count, limit: KeychainEntry.maxFieldCount)
            }
            guard entry.secret.count <= KeychainEntry.maxSecretCount else {
                throw KeychainError.entryTooLarge(what: "secret", count: entry.secret.count, limit: KeychainEntry.maxSecretCount)
            }
        }
    }

    /// The body's plaintext; `checkSizes` must have passed.
    static func encode(_ entries: [KeychainEntry]) -> SecretBytes {
        var size = 4
        for entry in entries { size += 1 + 6 + entry.service.utf8.count + entry.account.utf8.count + entry.label.utf8.count + 16 + 4 + entry.secret.count }
        return SecretBytes(count: size) { out in
            var offset = 0
            func put(_ bytes: UnsafeRawBufferPointer) {
                out.baseAddress!.advanced(by: offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                offset += bytes.count
            }
            func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.bigEndian) { put($0) } }
            func put(_ text: String) {
                var text = text
                put(UInt16(text.utf8.count))
                text.withUTF8 { if $0.count > 0 { put(UnsafeRawBufferPointer($0)) } }
            }
            put(UInt32(entries.count))
            for entry in entries {
                put(entry.kind.rawValue)
                put(entry.service)
                put(entry.account)
                put(entry.label)
                put(entry.created)
                put(entry.modified)
                put(UInt32(entry.secret.count))
                entry.secret.withUnsafeBytes { if $0.count > 0 { put($0) } }
            }
            precondition(offset == size)
        }
    }

    /// Scans for one entry comparing UTF-8 bytes, creating no strings on the way.
    static func secret(in plaintext: SecretBytes, kind: KeychainEntry.Kind, service: String, account: String) throws -> SecretBytes? {
        let wantedService = Array(service.utf8), wantedAccount = Array(account.utf8)
        return try plaintext.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer)
            do {
                let count = Int(try reader.u32())
                for _ in 0..<count {
                    let rawKind = try reader.u8()
                    let serviceBytes = try reader.take(Int(try reader.u16()))
                    let accountBytes = try reader.take(Int(try reader.u16()))
                    _ = try reader.take(Int(try reader.u16()))   // label
                    _ = try reader.take(16)                       // dates
                    let secret = try reader.take(Int(try reader.u32()))
                    if rawKind == kind.rawValue && serviceBytes.elementsEqual(wantedService) && accountBytes.elementsEqual(wantedAccount) {
                        return SecretBytes(copying: secret)
                    }
                }
                return nil
            } catch is ByteReader.Truncated {
                throw KeychainFormat.Problem("the body ends inside an entry")
            }
        }
    }

    /// The smallest encoded entry: kind (1), three empty u16-prefixed strings (6), two
    /// i64 times (16) and an empty u32-prefixed secret (4). A count that could not fit
    /// in what is left is refused before anything is allocated for it.
    static let minimumEntryCount = 1 + 3 * 2 + 2 * 8 + 4

    static func decode(_ plaintext: SecretBytes) throws -> [KeychainEntry] {
        try plaintext.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer)
            do {
                let count = Int(try reader.u32())
                guard count <= reader.remaining / Self.minimumEntryCount else { throw KeychainFormat.Problem("the body claims \(count) entries") }
                var entries: [KeychainEntry] = []
                entries.reserveCapacity(count)
                for _ in 0..<count {
                    let rawKind = try reader.u8()
                    guard let kind = KeychainEntry.Kind(rawValue: rawKind) else { throw KeychainFormat.Problem("unknown entry kind \(rawKind)") }
                    guard let service = try reader.string16(), let account = try reader.string16(), let label = try reader.string16() else {
                        throw KeychainFormat.Problem("a name in the body is not UTF-8")
                    }
                    let created = try reader.i64(), modified = try reader.i64()
                    let secret = SecretBytes(copying: try reader.take(Int(try reader.u32())))
                    entries.append(KeychainEntry(kind: kind, service: service, account: account, label: label,
                                                 created: created, modified: modified, secret: secret))
                }
                guard reader.remaining == 0 else { throw KeychainFormat.Problem("\(reader.remaining) bytes after the last entry") }
                return entries
            } catch is ByteReader.Truncated {
                throw KeychainFormat.Problem("the body ends inside an entry")
            }
        }
    }
}

