/// The passphrase recipient type (scrypt). It must be the only stanza in a header.
public struct ScryptRecipient: Recipient {
    /// The stanza's type word; such a stanza must be the header's only one.
    public static let stanzaType = "scrypt"
    static let label = Array("age-encryption.org/v1/scrypt".utf8)
    /// age's default work factor: about a second on a modern machine.
    public static let defaultWorkFactor = 18
    /// The work factors (log2 of scrypt's N) this toolkit writes and reads: age's own
    /// bound, past which one unwrap would need more than 32 GiB of memory.
    public static let workFactorRange = 1...30

    /// Bytes of memory scrypt needs at `workFactor`.
    public static func memoryNeeded(workFactor: Int) -> UInt64 { Scrypt.memoryNeeded(logN: workFactor) }

    let passphrase: SecretBytes
    public let workFactor: Int

    public init(passphrase: SecretBytes, workFactor: Int = ScryptRecipient.defaultWorkFactor) {
        precondition(Self.workFactorRange.contains(workFactor))
        self.passphrase = passphrase
        self.workFactor = workFactor
    }

    public func wrap(fileKey: SecretBytes) throws -> [Stanza] {
        let salt = try SecureRandom.bytes(16)
        let key = try Scrypt.deriveKey(password: passphrase, salt: Self.label + salt, logN: workFactor)
        let body = try WrappedFileKey.seal(fileKey, key: key)
        return [Stanza(type: ScryptRecipient.stanzaType, arguments: [Base64.encode(salt), String(workFactor)], body: body)]
    }

    /// A label of its own each time, as age's: a passphrase shares a file with nothing.
    public func wrapWithLabels(fileKey: SecretBytes) throws -> (stanzas: [Stanza], labels: Set<String>) {
        (try wrap(fileKey: fileKey), [try RecipientLabel.alone()])
    }

    /// True for a passphrase-encrypted header (its first stanza is scrypt's).
    static func isPassphraseHeader(_ stanzas: [Stanza]) -> Bool { stanzas.first?.type == stanzaType }

    /// The reading side of the rule: an scrypt stanza is the header's only one.
    static func checkAlone(in stanzas: [Stanza]) throws {
        if stanzas.count != 1 && stanzas.contains(where: { $0.type == stanzaType }) {
            throw AgeError.header("an scrypt stanza must be the only stanza in the header")
        }
    }
}

/// Unwraps scrypt stanzas with a passphrase, refusing work factors above a maximum.
public struct ScryptIdentity: Identity {
    /// age's default maximum on decryption.
    public static let defaultMaxWorkFactor = 22

    let passphrase: SecretBytes
    public let maxWorkFactor: Int

    public init(passphrase: SecretBytes, maxWorkFactor: Int = ScryptIdentity.defaultMaxWorkFactor) {
        self.passphrase = passphrase
        self.maxWorkFactor = maxWorkFactor
    }

    public func unwrap(stanzas: [Stanza]) throws -> SecretBytes? {
        for stanza in stanzas where stanza.type == ScryptRecipient.stanzaType {
            guard stanza.arguments.count == 2 else { throw AgeError.header("scrypt stanza must have two arguments") }
            guard let salt = Base64.decode(Array(stanza.arguments[0].utf8)), salt.count == 16 else {
                throw AgeError.header("scrypt salt is not 16 bytes of canonical base64")
            }
            let factorText = Array(stanza.arguments[1].utf8)
            guard let first = factorText.first, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(first),
                  factorText.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  factorText.count <= 2, let workFactor = Int(stanza.arguments[1]) else {
                throw AgeError.header("scrypt work factor \(quoted(factorText)) is not a decimal number")
            }
            guard workFactor <= maxWorkFactor else {
                throw AgeError.workFactorTooLarge(workFactor, maximum: maxWorkFactor)
            }
            guard stanza.body.count == WrappedFileKey.bodyCount else {
                throw AgeError.header("scrypt stanza body is \(stanza.body.count) bytes, not \(WrappedFileKey.bodyCount)")
            }
            let key = try Scrypt.deriveKey(password: passphrase, salt: ScryptRecipient.label + salt, logN: workFactor)
            if let fileKey = try WrappedFileKey.open(stanza.body, key: key, stanzaType: ScryptRecipient.stanzaType) {
                return fileKey
            }
        }
        return nil
    }
}
