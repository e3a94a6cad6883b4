/// One way into a keychain: the master key wrapped under a key that scrypt derives
/// from a secret (the passcode, or the normalised answers to the recovery questions).
///
/// The wrap is ChaCha20-Poly1305 with a zero nonce, as age wraps file keys: every
/// wrap uses a fresh random salt, so a wrapping key is never used twice.
public struct KeySlot: Equatable, Sendable {
    public enum Kind: UInt8, Sendable {
        case passcode = 1
        case recovery = 2
    }

    public static let saltCount = 16
    public static let wrappedCount = KeychainFormat.masterKeyCount + ChaChaPoly.tagCount
    /// The most questions a recovery slot holds.
    public static let maxQuestions = 16

    public let kind: Kind
    /// scrypt's log2(N), r and p.
    public let logN: UInt8
    public let r: UInt8
    public let p: UInt8
    public let salt: [UInt8]
    public let wrappedKey: [UInt8]
    /// The recovery questions, in the clear so `recover` can ask them; empty for a passcode slot.
    public let questions: [String]

    init(kind: Kind, logN: UInt8, r: UInt8, p: UInt8, salt: [UInt8], wrappedKey: [UInt8], questions: [String]) {
        self.kind = kind
        self.logN = logN
        self.r = r
        self.p = p
        self.salt = salt
        self.wrappedKey = wrappedKey
        self.questions = questions
    }

    /// The largest scrypt work factor (log2 N) a key slot may have, as vfs-decrypt's default
    /// --max-work-factor: 2^22 iterations, about 4 GiB of memory.
    public static let maxWorkFactor = 22

    /// Wraps `masterKey` under `secret` with a new salt.
    public static func wrap(_ masterKey: SecretBytes, kind: Kind, secret: SecretBytes, workFactor: Int, questions: [String] = []) throws -> KeySlot {
        precondition((1...maxWorkFactor).contains(workFactor))
        precondition((kind == .recovery) == !questions.isEmpty)
        let salt = try SecureRandom.bytes(saltCount)
        let key = try Scrypt.deriveKey(password: secret, salt: salt, logN: workFactor, r: 8, p: 1)
        return KeySlot(kind: kind, logN: UInt8(workFactor), r: 8, p: 1, salt: salt,
                       wrappedKey: try ChaChaPoly.seal(key: key, plaintext: masterKey), questions: questions)
    }

    /// The master key, or nil when `secret` is not the one this slot was wrapped with.
    public func unwrap(secret: SecretBytes) throws -> SecretBytes? {
        let key = try Scrypt.deriveKey(password: secret, salt: salt, logN: Int(logN), r: Int(r), p: Int(p))
        return try ChaChaPoly.open(key: key, ciphertext: wrappedKey)
    }

    /// The same key under another secret (a new passcode): a new salt, the same work factor.
    public func rewrapped(_ masterKey: SecretBytes, secret: SecretBytes, workFactor: Int? = nil) throws -> KeySlot {
        try KeySlot.wrap(masterKey, kind: kind, secret: secret, workFactor: workFactor ?? Int(logN), questions: questions)
    }

    func encode(into writer: inout ByteWriter) {
        writer.u8(kind.rawValue)
        writer.u8(logN)
        writer.u8(r)
        writer.u8(p)
        writer.raw(salt)
        writer.raw(wrappedKey)
        if kind == .recovery {
            writer.u8(UInt8(questions.count))
            for question in questions { writer.string16(question) }
        }
    }

    static func decode(from reader: inout ByteReader) throws -> KeySlot {
        let rawKind = try reader.u8()
        guard let kind = Kind(rawValue: rawKind) else { throw KeychainFormat.Problem("unknown key slot kind \(rawKind)") }
        let logN = try reader.u8(), r = try reader.u8(), p = try reader.u8()
        // Bounded as vfs-decrypt's default --max-work-factor: a keychain edited to ask
        // for 2^30 iterations must not take a terabyte and hours to refuse.
        guard (1...Int(KeySlot.maxWorkFactor)).contains(Int(logN)), r == 8, p == 1 else {
            throw KeychainFormat.Problem("key slot scrypt parameters out of range (log2 N \(logN), r \(r), p \(p))")
        }
        let salt = try reader.bytes(saltCount)
        let wrapped = try reader.bytes(wrappedCount)
        var questions: [String] = []
        if kind == .recovery {
            let count = Int(try reader.u8())
            guard (1...maxQuestions).contains(count) else { throw KeychainFormat.Problem("recovery slot has \(count) questions") }
            for _ in 0..<count {
                guard let question = try reader.string16(), !question.isEmpty else {
                    throw KeychainFormat.Problem("a recovery question is empty or not UTF-8")
                }
                questions.append(question)
            }
        }
        return KeySlot(kind: kind, logN: logN, r: r, p: p, salt: salt, wrappedKey: wrapped, questions: questions)
    }
}
