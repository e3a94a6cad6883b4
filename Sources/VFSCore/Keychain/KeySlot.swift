/// One way into a keychain.
///
/// - A passcode slot (kind 1) wraps the master key under a key that scrypt derives
///   from the passcode: ChaCha20-Poly1305 with a zero nonce, as age wraps file keys;
///   every wrap uses a fresh random salt, so a wrapping key is never used twice.
/// - A recovery slot (kind 3, format 2) is a public-key envelope, so that the master
///   key can be replaced (on `passcode`, `recover`, `questions`) without the answers:
///   scrypt derives a seed from the normalised answers and the slot's salt, HKDF turns
///   it into an X25519 scalar, and only its public half is stored. The master key is
///   sealed to that public key with a new ephemeral key at every rotation
///   (ChaCha20-Poly1305, zero nonce, under HKDF(shared secret, salt: ephemeral ‖
///   recipient, info: "vfs-keychain recovery wrap")). `recover` derives the scalar
///   again, checks it against the stored public key, and opens the envelope.
/// - A legacy recovery slot (kind 2) is what format 1 wrote: the master key wrapped
///   under scrypt(answers) like a passcode slot. It still opens, but cannot follow a
///   new master key; a rotation drops it (the caller says so).
public struct KeySlot: Equatable, Sendable {
    public enum Kind: UInt8, Sendable {
        case passcode = 1
        case legacyRecovery = 2
        case recovery = 3

        var isRecovery: Bool { self != .passcode }
    }

    static let saltCount = 16
    static let wrappedCount = KeychainFormat.masterKeyCount + ChaChaPoly.tagCount
    /// The most questions a recovery slot holds.
    public static let maxQuestions = 16
    /// The largest scrypt work factor (log2 N) a key slot may have, as vfs-decrypt's default
    /// --max-work-factor: 2^22 iterations, about 4 GiB of memory.
    public static let maxWorkFactor = 22

    public let kind: Kind
    /// scrypt's log2(N), r and p.
    public let logN: UInt8
    public let r: UInt8
    public let p: UInt8
    let salt: [UInt8]
    /// A recovery slot's public key (the X25519 public half of the answers' key); empty otherwise.
    public let recipient: [UInt8]
    /// A recovery slot's ephemeral public key of the current envelope; empty otherwise.
    let ephemeral: [UInt8]
    let wrappedKey: [UInt8]
    /// The recovery questions, in the clear so `recover` can ask them; empty for a passcode slot.
    public let questions: [String]

    init(kind: Kind, logN: UInt8, r: UInt8, p: UInt8, salt: [UInt8], recipient: [UInt8] = [], ephemeral: [UInt8] = [],
         wrappedKey: [UInt8], questions: [String]) {
        self.kind = kind
        self.logN = logN
        self.r = r
        self.p = p
        self.salt = salt
        self.recipient = recipient
        self.ephemeral = ephemeral
        self.wrappedKey = wrappedKey
        self.questions = questions
    }

    /// A passcode slot (or, for tests of old files, a legacy recovery slot): `masterKey`
    /// wrapped under `secret` with a new salt.
    public static func wrap(_ masterKey: SecretBytes, kind: Kind, secret: SecretBytes, workFactor: Int, questions: [String] = []) throws -> KeySlot {
        precondition((1...maxWorkFactor).contains(workFactor))
        precondition(kind != .recovery, "a recovery slot is made with KeySlot.recovery")
        precondition((kind == .legacyRecovery) == !questions.isEmpty)
        let salt = try SecureRandom.bytes(saltCount)
        let key = try Scrypt.deriveKey(password: secret, salt: salt, logN: workFactor, r: 8, p: 1)
        return KeySlot(kind: kind, logN: UInt8(workFactor), r: 8, p: 1, salt: salt,
                       wrappedKey: try wrapKey(masterKey, under: key), questions: questions)
    }

    /// A recovery slot for `questions`: the key pair derived from `answers` with a new
    /// salt, `masterKey` sealed to its public half.
    public static func recovery(_ masterKey: SecretBytes, questions: [String], answers: [String], workFactor: Int) throws -> KeySlot {
        precondition((1...maxWorkFactor).contains(workFactor) && !questions.isEmpty && questions.count == answers.count)
        let salt = try SecureRandom.bytes(saltCount)
        let scalar = try recoveryScalar(answers: answers, salt: salt, logN: workFactor)
        let empty = KeySlot(kind: .recovery, logN: UInt8(workFactor), r: 8, p: 1, salt: salt,
                            recipient: try X25519.publicKey(of: scalar), wrappedKey: [], questions: questions)
        return try empty.resealed(masterKey)
    }

    static func recoveryScalar(answers: [String], salt: [UInt8], logN: Int) throws -> SecretBytes {
        let seed = try Scrypt.deriveKey(password: RecoveryAnswers.secret(answers), salt: salt, logN: logN, r: 8, p: 1)
        return try HKDF.deriveKey(inputKey: seed, salt: salt, info: "vfs-keychain recovery x25519")
    }

    static func envelopeKey(shared: SecretBytes, ephemeral: [UInt8], recipient: [UInt8]) throws -> SecretBytes {
        try HKDF.deriveKey(inputKey: shared, salt: ephemeral + recipient, info: "vfs-keychain recovery wrap")
    }

    /// This recovery slot with `masterKey` sealed to its public key under a new
    /// ephemeral key: no answers needed.
    func resealed(_ masterKey: SecretBytes) throws -> KeySlot {
        precondition(kind == .recovery)
        let ephemeralScalar = try X25519.generatePrivateKey()
        let ephemeral = try X25519.publicKey(of: ephemeralScalar)
        guard let shared = try X25519.sharedSecret(privateKey: ephemeralScalar, publicKey: recipient) else {
            throw KeychainFormat.Problem("the recovery slot's public key is not usable")
        }
        let key = try KeySlot.envelopeKey(shared: shared, ephemeral: ephemeral, recipient: recipient)
        return KeySlot(kind: .recovery, logN: logN, r: r, p: p, salt: salt, recipient: recipient, ephemeral: ephemeral,
                       wrappedKey: try KeySlot.wrapKey(masterKey, under: key), questions: questions)
    }

    /// The master key from a passcode or legacy recovery slot, or nil when `secret` is
    /// not the one this slot was wrapped with.
    public func unwrap(secret: SecretBytes) throws -> SecretBytes? {
        precondition(kind != .recovery)
        let key = try Scrypt.deriveKey(password: secret, salt: salt, logN: Int(logN), r: Int(r), p: Int(p))
        return try KeySlot.unwrapKey(wrappedKey, under: key)
    }

    /// The master key from a recovery slot (either kind), or nil when the answers are wrong.
    public func unwrap(answers: [String]) throws -> SecretBytes? {
        guard answers.count == questions.count else { return nil }
        if kind == .legacyRecovery { return try unwrap(secret: RecoveryAnswers.secret(answers)) }
        precondition(kind == .recovery)
        let scalar = try KeySlot.recoveryScalar(answers: answers, salt: salt, logN: Int(logN))
        guard HMACSHA256.equal(try X25519.publicKey(of: scalar), recipient),
              let shared = try X25519.sharedSecret(privateKey: scalar, publicKey: ephemeral) else { return nil }
        return try KeySlot.unwrapKey(wrappedKey, under: KeySlot.envelopeKey(shared: shared, ephemeral: ephemeral, recipient: recipient))
    }

    /// The same key under another secret (a new passcode): a new salt, the same work factor.
    func rewrapped(_ masterKey: SecretBytes, secret: SecretBytes, workFactor: Int? = nil) throws -> KeySlot {
        try KeySlot.wrap(masterKey, kind: kind, secret: secret, workFactor: workFactor ?? Int(logN), questions: questions)
    }

    func encode(into writer: inout ByteWriter) {
        writer.u8(kind.rawValue)
        writer.u8(logN)
        writer.u8(r)
        writer.u8(p)
        writer.raw(salt)
        if kind == .recovery {
            writer.raw(recipient)
            writer.raw(ephemeral)
        }
        writer.raw(wrappedKey)
        if kind.isRecovery {
            writer.u8(UInt8(questions.count))
            for question in questions { writer.string16(question) }
        }
    }

    /// A slot as format `version` writes it (format 1 knows kinds 1 and 2 only).
    static func decode(from reader: inout ByteReader, version: UInt16) throws -> KeySlot {
        let rawKind = try reader.u8()
        guard let kind = Kind(rawValue: rawKind), version >= 2 || kind != .recovery else {
            throw KeychainFormat.Problem("unknown key slot kind \(rawKind)")
        }
        let logN = try reader.u8(), r = try reader.u8(), p = try reader.u8()
        // Bounded as vfs-decrypt's default --max-work-factor: a keychain edited to ask
        // for 2^30 iterations must not take a terabyte and hours to refuse.
        guard (1...Int(KeySlot.maxWorkFactor)).contains(Int(logN)), r == 8, p == 1 else {
            throw KeychainFormat.Problem("key slot scrypt parameters out of range (log2 N \(logN), r \(r), p \(p))")
        }
        let salt = try reader.bytes(saltCount)
        var recipient: [UInt8] = [], ephemeral: [UInt8] = []
        if kind == .recovery {
            recipient = try reader.bytes(X25519.keyCount)
            ephemeral = try reader.bytes(X25519.keyCount)
        }
        let wrapped = try reader.bytes(wrappedCount)
        var questions: [String] = []
        if kind.isRecovery {
            let count = Int(try reader.u8())
            guard (1...maxQuestions).contains(count) else { throw KeychainFormat.Problem("recovery slot has \(count) questions") }
            for _ in 0..<count {
                guard let question = try reader.string16(), !question.isEmpty else {
                    throw KeychainFormat.Problem("a recovery question is empty or not UTF-8")
                }
                questions.append(question)
            }
        }
        return KeySlot(kind: kind, logN: logN, r: r, p: p, salt: salt, recipient: recipient, ephemeral: ephemeral,
                       wrappedKey: wrapped, questions: questions)
    }
}

private extension KeySlot {
    // The nonce is fixed (all zeros), as age does for file keys: every wrapping key is
    // derived afresh (a new scrypt salt, or a new ephemeral share) and seals one master
    // key only, so a key and nonce pair never meets a second message.
    static let zeroNonce = [UInt8](repeating: 0, count: ChaChaPoly.nonceCount)

    static func wrapKey(_ masterKey: SecretBytes, under key: SecretBytes) throws -> [UInt8] {
        try ChaChaPoly.seal(key: key, nonce: zeroNonce, plaintext: masterKey)
    }

    /// nil when `key` is not the one `wrapped` was sealed under.
    static func unwrapKey(_ wrapped: [UInt8], under key: SecretBytes) throws -> SecretBytes? {
        try ChaChaPoly.open(key: key, nonce: zeroNonce, ciphertext: wrapped)
    }
}
