/// A user's recovery key (issue 49): 32 random bytes a person writes down, from which
/// everything else is derived (HKDF-SHA-256, one label each): an X25519 identity and a
/// hybrid post-quantum one (the chain names the recipient that matches the user's
/// devices), an Ed25519 signing key and the chain entry's id. In the chain it is a
/// recipient of the user's cloud files, never of a push, and signs one kind of
/// statement: the add of a new reader (docs/device-chain.md, "Recovery keys").
///
/// Written as 14 groups of four RFC 4648 base32 characters: 52 for the 256 bits (the
/// last four bits zero) and a last group of 20 bits of SHA-256 over a label and the
/// secret, so a mistyped character is caught before anything is sent.
package struct RecoveryKey: Sendable {
    package static let seedCount = 32
    /// What the chain calls it, in `vfs-device list` and `revoke`.
    package static let name = "recovery-key"
    static let dataCharacters = 52
    static let checkCharacters = 4

    let seed: SecretBytes

    package init(seed: SecretBytes) {
        precondition(seed.count == Self.seedCount, "a recovery key is 32 bytes")
        self.seed = seed
    }

    package static func generate() throws -> RecoveryKey { RecoveryKey(seed: try SecureRandom.secret(seedCount)) }

    private func derive(_ label: String, count: Int = 32) throws -> SecretBytes {
        try HKDF.deriveKey(inputKey: seed, salt: [], info: "vfs recovery key " + label + " v1", count: count)
    }

    package func x25519() throws -> X25519Identity { try X25519Identity(secretKey: derive("x25519")) }
    package func hybrid() throws -> HybridIdentity { try HybridIdentity(seed: derive("hybrid")) }
    package func signingKey() throws -> Ed25519.SigningKey { try Ed25519.SigningKey(seed: derive("ed25519")) }
    /// The chain entry's id: 32 lowercase hex digits, as a device's.
    package func deviceID() throws -> String { try derive("id", count: 16).withUnsafeBytes { Array($0) }.hexString }

    /// The chain entry, its recipient post-quantum when one of `readers`' is (one file's
    /// recipients are all post-quantum or all classic).
    package func entry(matching readers: [DeviceChain.DeviceEntry]) throws -> DeviceChain.DeviceEntry {
        let postQuantum = readers.contains { Self.isPostQuantum($0.recipient) }
        return DeviceChain.DeviceEntry(id: try deviceID(), name: Self.name,
                                       recipient: postQuantum ? try hybrid().recipient.string : try x25519().recipient.string,
                                       signingKey: try signingKey().publicKey, recovery: true)
    }

    /// The identity that opens what is encrypted to `entry`'s recipient (the chain's
    /// recovery key; X25519 when there is none).
    package func identity(for entry: DeviceChain.DeviceEntry?) throws -> AgeIdentity {
        entry.map { Self.isPostQuantum($0.recipient) } == true ? .hybrid(try hybrid()) : .x25519(try x25519())
    }

    static func isPostQuantum(_ recipient: String) -> Bool {
        if case .hybrid? = try? AgeRecipient(recipient) { return true }
        return false
    }

    /// The words a person writes down: `ABCD-EFGH-…-WXYZ`, the checksum group last.
    package var text: String {
        let characters = seed.withUnsafeBytes { Fingerprint.base32(Array($0), count: Self.dataCharacters) } + Self.checksum(seed)
        return stride(from: 0, to: characters.count, by: 4).map { String(decoding: characters[$0..<$0 + 4], as: UTF8.self) }.joined(separator: "-")
    }

    /// A recovery key as typed: case, spaces and dashes do not matter; 0, 1 and 8 are
    /// read as O, I and B (base32 has no such digits). Refuses anything else, and a
    /// checksum that does not match (a mistyped character), before any use.
    package init(typed: String) throws {
        var kept: [UInt8] = []
        for scalar in typed.uppercased().unicodeScalars where scalar != "-" && !scalar.properties.isWhitespace {
            let c: Unicode.Scalar = scalar == "0" ? "O" : scalar == "1" ? "I" : scalar == "8" ? "B" : scalar
            guard c.isASCII, let value = Fingerprint.alphabet.firstIndex(of: UInt8(c.value)) else { throw RecoveryKeyError.character(String(scalar)) }
            kept.append(UInt8(value))
        }
        guard kept.count == Self.dataCharacters + Self.checkCharacters else {
            throw RecoveryKeyError.length(kept.count, expected: Self.dataCharacters + Self.checkCharacters)
        }
        var bytes: [UInt8] = [], buffer = 0, bits = 0
        for value in kept.prefix(Self.dataCharacters) {
            buffer = buffer << 5 | Int(value); bits += 5
            if bits >= 8 { bits -= 8; bytes.append(UInt8(buffer >> bits & 0xff)) }
            buffer &= (1 << bits) - 1
        }
        defer { bytes.wipe() }
        let seed = SecretBytes(copying: bytes)
        let typedCheck = kept.suffix(Self.checkCharacters).map { Fingerprint.alphabet[Int($0)] }
        guard buffer == 0, bytes.count == Self.seedCount, Array(Self.checksum(seed)) == typedCheck else { throw RecoveryKeyError.checksum }
        self.init(seed: seed)
    }

    /// 20 bits of SHA-256 over a label and the secret, as four base32 characters.
    static func checksum(_ seed: SecretBytes) -> [UInt8] {
        let digest = seed.withUnsafeBytes { SHA256.hash(Array("vfs recovery key checksum v1\0".utf8) + Array($0)) }
        return Fingerprint.base32(digest, count: checkCharacters)
    }
}

package enum RecoveryKeyError: Error, Equatable, CustomStringConvertible {
    case character(String)
    case length(Int, expected: Int)
    case checksum

    package var description: String {
        switch self {
        case .character(let c): return "not a recovery key: \"\(c)\" is not one of its letters (A to Z, 2 to 7)"
        case .length(let count, let expected): return "not a recovery key: \(count) characters, not \(expected) (14 groups of 4)"
        case .checksum: return "the recovery key's checksum does not match: a character is mistyped"
        }
    }
}
