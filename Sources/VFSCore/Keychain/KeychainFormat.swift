/// The keychain file, format version 2. All integers are big-endian.
///
/// ```
/// magic        8 bytes   "VFSKEYCH"
/// version      u16       2
/// keychain id  16 bytes  random, fixed for the keychain's life (the agent keys on it)
/// epoch        u64       1 more at every save; remembered beside the keychain to detect rollback
/// slot count   u8        1 (passcode) or 2 (passcode, recovery)
/// per slot     kind u8 (1 passcode, 3 recovery; 2 a format-1 recovery slot),
///              scrypt log2 N u8, r u8, p u8, salt 16 bytes, then
///              passcode (and kind 2): wrapped master key 48 bytes (ChaCha20-Poly1305 of
///                the 32-byte master key under scrypt(secret, salt), zero nonce);
///              recovery: public key 32 bytes, ephemeral public key 32 bytes, the master
///                key sealed to the public key 48 bytes (see `KeySlot`);
///              a recovery slot then has a question count u8 (1-16) and each
///              question as u16 length + UTF-8, in the clear so `recover` can ask them
/// recipients   u16 count, then per identity in the body: a 16-byte name tag
///              (SHA-256(id ‖ name), cut) and its 32-byte X25519 public key, so that
///              encrypting to `-K NAME` needs no passcode (names stay in the body);
///              format 3: the tag, a type u8 (1 X25519, 2 ML-KEM-768 + X25519 hybrid),
///              a u16 length and the public key (32 or 1,216 bytes)
/// header MAC   32 bytes  HMAC-SHA-256 over every byte above, keyed by
///              HKDF-SHA-256(master key, salt: id, info: "vfs-keychain v1 header")
/// body nonce   12 bytes  random, new at every save
/// body length  u32       the sealed body's length, which runs to the end of the file
/// body         ChaCha20-Poly1305 under HKDF-SHA-256(master key, salt: id ‖ epoch (u64),
///              info: "vfs-keychain v2 body") of the entries: a u32 count, then per
///              entry kind u8 (1 secret, 2 identity), service, account and label
///              (u16 length + UTF-8 each), created and modified (i64 seconds since
///              1970), the secret (u32 length + bytes; an identity's 32-byte X25519
///              scalar, or for a post-quantum identity its AGE-SECRET-KEY-PQ-1… text)
///              — see `KeychainBody`
/// ```
///
/// The master key is 32 random bytes, replaced at every change of a key slot
/// (`passcode`, `recover`, `questions`): the body is sealed again under the new key, so
/// a header kept from before the change (a backup, a synced copy) opens nothing of
/// today's file. The recovery slot is a public-key envelope, so it follows a new
/// master key without the answers. The header MAC binds the header to the master key;
/// the body key binds the body to the epoch, so a header cannot be paired with an older
/// body of the same key either. Names and secrets alike are only in the sealed body. A
/// file that is shorter or longer than its lengths say is refused.
///
/// Format 3 is format 2 with typed recipients (above): it is written only while the
/// keychain holds a post-quantum identity, so that a keychain without one stays
/// readable by the vfs releases that read format 2.
///
/// Format 1 (read, and migrated to format 2 at the next save) had no epoch, sealed the
/// body under info "vfs-keychain v1 body" with salt id, and wrapped the recovery slot
/// under scrypt(answers) (kind 2).
public enum KeychainFormat {
    public static let magic = Array("VFSKEYCH".utf8)
    /// The version written; versions 1 to 3 are read.
    public static let version: UInt16 = 2
    /// The version written while the keychain holds a post-quantum identity.
    static let postQuantumVersion: UInt16 = 3
    /// Recipient types in a format-3 recipients table.
    static let x25519RecipientType: UInt8 = 1
    static let hybridRecipientType: UInt8 = 2
    static let masterKeyCount = 32
    static let idCount = 16
    static let macCount = 32
    static let nonceCount = ChaChaPoly.nonceCount

    /// A parse or authentication failure, turned into `KeychainError.corrupt` with the path.
    struct Problem: Error {
        let why: String
        init(_ why: String) { self.why = why }
    }

    /// A new random master key.
    public static func newMasterKey() throws -> SecretBytes { try SecureRandom.secret(masterKeyCount) }

    static func macKey(_ masterKey: SecretBytes, id: [UInt8]) throws -> SecretBytes {
        try HKDF.deriveKey(inputKey: masterKey, salt: id, info: "vfs-keychain v1 header")
    }

    static func bodyKey(_ masterKey: SecretBytes, header: KeychainHeader) throws -> SecretBytes {
        if header.version == 1 { return try HKDF.deriveKey(inputKey: masterKey, salt: header.id, info: "vfs-keychain v1 body") }
        var salt = ByteWriter(capacity: idCount + 8)
        salt.raw(header.id)
        salt.u64(header.epoch)
        return try HKDF.deriveKey(inputKey: masterKey, salt: salt.bytes, info: "vfs-keychain v2 body")
    }

    /// The whole file for `header` and `entries`, the body sealed with a new nonce.
    /// Always the current format (a header read from a format-1 file is written as format 2).
    public static func seal(header: KeychainHeader, masterKey: SecretBytes, entries: [KeychainEntry]) throws -> [UInt8] {
        var header = header.current
        try KeychainBody.checkSizes(entries)
        guard entries.filter({ $0.kind == .identity }).count <= Int(UInt16.max) else {
            throw KeychainError.entryTooLarge(what: "list of identities", count: entries.count, limit: Int(UInt16.max))
        }
        // A plugin's identity has no public recipient to list: encrypting to it asks its
        // plugin, with the stub from the body (so the keychain is unlocked for it).
        let recipients = try entries.filter { $0.kind == .identity }.compactMap { entry -> KeychainHeader.PublicIdentity? in
            let recipient = try entry.ageIdentity().recipient
            if case .plugin = recipient { return nil }
            return KeychainHeader.PublicIdentity(tag: KeychainHeader.PublicIdentity.tag(name: entry.service, id: header.id), recipient: recipient)
        }
        if recipients.contains(where: { $0.recipient.isPostQuantum }) { header = header.inVersion(postQuantumVersion) }
        header.recipients = recipients
        let nonce = try SecureRandom.bytes(nonceCount)
        let body = try ChaChaPoly.seal(key: bodyKey(masterKey, header: header), nonce: nonce, plaintext: KeychainBody.encode(entries))
        return try assemble(header: header, masterKey: masterKey, nonce: nonce, body: body)
    }

    static func assemble(header: KeychainHeader, masterKey: SecretBytes, nonce: [UInt8], body: [UInt8]) throws -> [UInt8] {
        var writer = ByteWriter(capacity: 256 + body.count)
        writer.raw(header.encoded())
        writer.raw(try HMACSHA256.authenticate(key: macKey(masterKey, id: header.id), message: writer.bytes))
        writer.raw(nonce)
        writer.u32(UInt32(body.count))
        writer.raw(body)
        return writer.bytes
    }
}

/// The clear part of a keychain file: its id and key slots.
public struct KeychainHeader: Equatable, Sendable {
    /// An identity's public half, readable without the passcode.
    public struct PublicIdentity: Equatable, Sendable {
        static let tagCount = 16
        public let tag: [UInt8]
        public let recipient: AgeRecipient

        /// The tag of identity `name` in the keychain `id`.
        public static func tag(name: String, id: [UInt8]) -> [UInt8] { Array(SHA256.hash(id + Array(name.utf8)).prefix(tagCount)) }
    }

    public let id: [UInt8]
    /// The identities' recipients (format 2; empty in a format-1 header), kept in step
    /// with the body at every save.
    public internal(set) var recipients: [PublicIdentity] = []
    /// How many times the file was saved (0 for a format-1 file).
    public let epoch: UInt64
    /// The format the header was read in (or is written in).
    public let version: UInt16
    private(set) var slots: [KeySlot]

    public init(id: [UInt8], epoch: UInt64 = 1, version: UInt16 = KeychainFormat.version, passcode: KeySlot, recovery: KeySlot? = nil) {
        precondition(id.count == KeychainFormat.idCount && passcode.kind == .passcode && recovery.map { $0.kind.isRecovery } ?? true)
        self.id = id
        self.epoch = epoch
        self.version = version
        slots = [passcode] + (recovery.map { [$0] } ?? [])
    }

    /// The header of the next save: the current format, the epoch one more.
    public var next: KeychainHeader {
        KeychainHeader(id: id, epoch: epoch + 1, version: KeychainFormat.version, passcode: passcodeSlot, recovery: recoverySlot)
    }

    /// In the current format (what `seal` writes).
    var current: KeychainHeader {
        version == KeychainFormat.version ? self
            : KeychainHeader(id: id, epoch: epoch, version: KeychainFormat.version, passcode: passcodeSlot, recovery: recoverySlot)
    }

    /// The same header written as format `version`.
    func inVersion(_ version: UInt16) -> KeychainHeader {
        var header = KeychainHeader(id: id, epoch: epoch, version: version, passcode: passcodeSlot, recovery: recoverySlot)
        header.recipients = recipients
        return header
    }

    /// A header for a new keychain, with a new random id.
    public static func new(passcode: KeySlot, recovery: KeySlot? = nil) throws -> KeychainHeader {
        KeychainHeader(id: try SecureRandom.bytes(KeychainFormat.idCount), passcode: passcode, recovery: recovery)
    }

    public var passcodeSlot: KeySlot { slots[0] }
    public var recoverySlot: KeySlot? { slots.count > 1 ? slots[1] : nil }

    /// The same header with `slot` in place of the slot of its kind.
    public func replacing(_ slot: KeySlot) -> KeychainHeader {
        slot.kind == .passcode ? KeychainHeader(id: id, epoch: epoch, version: version, passcode: slot, recovery: recoverySlot)
                               : KeychainHeader(id: id, epoch: epoch, version: version, passcode: passcodeSlot, recovery: slot)
    }

    /// What happens to the recovery slot when the master key is replaced.
    public enum RecoveryChange {
        /// Keep the questions: reseal the envelope to the new key (a format-1 slot cannot follow and is dropped).
        case keep
        case remove
        /// New questions (or the same ones with a new-style slot).
        case set(questions: [String], answers: [String], workFactor: Int)
    }

    /// The slots for a new master key `newKey`: the passcode slot wrapped under
    /// `passcode` (same work factor), the recovery slot as `recovery` says.
    /// `droppedLegacyRecovery` is true when a format-1 recovery slot had to go.
    public func rekeyed(to newKey: SecretBytes, passcode: SecretBytes, recovery: RecoveryChange) throws
        -> (header: KeychainHeader, droppedLegacyRecovery: Bool) {
        let passcodeSlot = try KeySlot.wrap(newKey, kind: .passcode, secret: passcode, workFactor: Int(self.passcodeSlot.logN))
        var recoverySlot: KeySlot?
        var dropped = false
        switch recovery {
        case .keep:
            if let old = self.recoverySlot {
                if old.kind == .recovery { recoverySlot = try old.resealed(newKey) } else { dropped = true }
            }
        case .remove:
            recoverySlot = nil
        case let .set(questions, answers, workFactor):
            recoverySlot = try KeySlot.recovery(newKey, questions: questions, answers: answers, workFactor: workFactor)
        }
        return (KeychainHeader(id: id, epoch: epoch, version: KeychainFormat.version, passcode: passcodeSlot, recovery: recoverySlot), dropped)
    }

    /// Without the recovery slot.
    func removingRecovery() -> KeychainHeader { KeychainHeader(id: id, epoch: epoch, version: version, passcode: passcodeSlot) }

    func encoded() -> [UInt8] {
        precondition(version == KeychainFormat.version || version == KeychainFormat.postQuantumVersion, "only the current formats are written")
        var writer = ByteWriter(capacity: 256)
        writer.raw(KeychainFormat.magic)
        writer.u16(version)
        writer.raw(id)
        writer.u64(epoch)
        writer.u8(UInt8(slots.count))
        for slot in slots { slot.encode(into: &writer) }
        writer.u16(UInt16(recipients.count))
        for identity in recipients {
            writer.raw(identity.tag)
            switch identity.recipient {
            case .x25519(let recipient):
                if version >= KeychainFormat.postQuantumVersion {
                    writer.u8(KeychainFormat.x25519RecipientType)
                    writer.u16(UInt16(recipient.publicKey.count))
                }
                writer.raw(recipient.publicKey)
            case .hybrid(let recipient):
                precondition(version >= KeychainFormat.postQuantumVersion, "a post-quantum recipient needs format 3")
                writer.u8(KeychainFormat.hybridRecipientType)
                writer.u16(UInt16(recipient.publicKey.count))
                writer.raw(recipient.publicKey)
            case .sshEd25519, .sshRSA, .plugin:
                preconditionFailure("the recipients table holds no SSH keys (UnlockedKeychain.addIdentity refuses them) and no plugin stubs")
            }
        }
        return writer.bytes
    }
}

/// A keychain file as read from disk: header parsed, body still sealed.
public struct SealedKeychain: Sendable {
    public let header: KeychainHeader
    /// Where it was read from, and its previous good copy if there is one (for messages).
    public let path: String
    public let backup: String?
    /// The rollback record as it was when the file was read (under the same lock), so
    /// that a save by another process between the read and the opening of the body is
    /// not taken for a rollback; nil to read it when the body is opened.
    let epochRecord: KeychainEpochs.Record??
    let headerBytes: [UInt8]
    let mac: [UInt8]
    let bodyNonce: [UInt8]
    let sealedBody: [UInt8]

    /// Parses `bytes`; a file that is not a version-1 keychain, or whose lengths do
    /// not add up, is `KeychainError.corrupt` (or `.unsupportedVersion`).
    public init(bytes: [UInt8], path: String, backup: String? = nil) throws {
        try self.init(bytes: bytes, path: path, backup: backup, epochRecord: nil)
    }

    init(bytes: [UInt8], path: String, backup: String?, epochRecord: KeychainEpochs.Record??) throws {
        self.path = path
        self.backup = backup
        self.epochRecord = epochRecord
        func corrupt(_ why: String) -> KeychainError { .corrupt(path: path, why: why, backup: backup) }
        guard bytes.count >= KeychainFormat.magic.count, Array(bytes.prefix(KeychainFormat.magic.count)) == KeychainFormat.magic else {
            throw corrupt(bytes.isEmpty ? "the file is empty" : "it is not a vfs keychain (no VFSKEYCH magic)")
        }
        do {
            var parsed: (KeychainHeader, Int, [UInt8], [UInt8], [UInt8])!
            try bytes.withUnsafeBytes { buffer in
                var reader = ByteReader(buffer)
                _ = try reader.take(KeychainFormat.magic.count)
                let version = try reader.u16()
                guard (1...KeychainFormat.postQuantumVersion).contains(version) else {
                    throw KeychainError.unsupportedVersion(path: path, version: Int(version))
                }
                let id = try reader.bytes(KeychainFormat.idCount)
                let epoch = version >= 2 ? try reader.u64() : 0
                let slotCount = try reader.u8()
                guard slotCount == 1 || slotCount == 2 else { throw KeychainFormat.Problem("\(slotCount) key slots") }
                let passcode = try KeySlot.decode(from: &reader, version: version)
                guard passcode.kind == .passcode else { throw KeychainFormat.Problem("the first key slot is not the passcode slot") }
                var recovery: KeySlot?
                if slotCount == 2 {
                    recovery = try KeySlot.decode(from: &reader, version: version)
                    guard recovery?.kind.isRecovery == true else { throw KeychainFormat.Problem("the second key slot is not a recovery slot") }
                }
                var recipients: [KeychainHeader.PublicIdentity] = []
                if version >= 2 {
                    let count = Int(try reader.u16())
                    guard count * (KeychainHeader.PublicIdentity.tagCount + X25519.keyCount) <= reader.remaining else {
                        throw KeychainFormat.Problem("the header claims \(count) recipients")
                    }
                    for _ in 0..<count {
                        let tag = try reader.bytes(KeychainHeader.PublicIdentity.tagCount)
                        guard version >= KeychainFormat.postQuantumVersion else {
                            recipients.append(.init(tag: tag, recipient: .x25519(X25519Recipient(publicKey: try reader.bytes(X25519.keyCount)))))
                            continue
                        }
                        let type = try reader.u8()
                        let key = try reader.bytes(Int(try reader.u16()))
                        switch (type, key.count) {
                        case (KeychainFormat.x25519RecipientType, X25519.keyCount):
                            recipients.append(.init(tag: tag, recipient: .x25519(X25519Recipient(publicKey: key))))
                        case (KeychainFormat.hybridRecipientType, HybridRecipient.publicKeyCount):
                            recipients.append(.init(tag: tag, recipient: .hybrid(HybridRecipient(publicKey: key))))
                        default:
                            throw KeychainFormat.Problem("a recipient of type \(type) with a \(key.count)-byte key")
                        }
                    }
                }
                let headerEnd = reader.offset
                let mac = try reader.bytes(KeychainFormat.macCount)
                let nonce = try reader.bytes(KeychainFormat.nonceCount)
                let length = Int(try reader.u32())
                guard length >= ChaChaPoly.tagCount else { throw KeychainFormat.Problem("the body is too short") }
                guard length == reader.remaining else {
                    throw KeychainFormat.Problem(length > reader.remaining ? "the file is truncated (\(reader.remaining) of \(length) body bytes)"
                                                                           : "\(reader.remaining - length) unexpected bytes after the body")
                }
                let body = try reader.bytes(length)
                var header = KeychainHeader(id: id, epoch: epoch, version: version, passcode: passcode, recovery: recovery)
                header.recipients = recipients
                parsed = (header, headerEnd, mac, nonce, body)
            }
            header = parsed.0
            headerBytes = Array(bytes[0..<parsed.1])
            mac = parsed.2
            bodyNonce = parsed.3
            sealedBody = parsed.4
        } catch let problem as KeychainFormat.Problem {
            throw corrupt(problem.why)
        } catch is ByteReader.Truncated {
            throw corrupt("the file is truncated inside the header")
        }
    }

    /// The recipients of the identities `names` (every one for `all`) from the header,
    /// without the passcode. Not authenticated: pass the master key when there is one
    /// (an agent's) to check the header MAC first. nil for a format-1 header, which has
    /// no recipients table (unlock it instead). `.noIdentities`, or `.noSuchRecipient`
    /// for a name that is not there.
    public func publicRecipients(named names: [String], masterKey: SecretBytes? = nil) throws -> [AgeRecipient]? {
        guard header.version >= 2 else { return nil }
        if let masterKey, try !authenticates(masterKey: masterKey) { throw corrupt("the header failed to authenticate") }
        if names.contains("all") {
            guard !header.recipients.isEmpty else { throw KeychainError.noIdentities(path: path) }
            return header.recipients.map(\.recipient)
        }
        var out: [AgeRecipient] = []
        for name in names {
            let tag = KeychainHeader.PublicIdentity.tag(name: name, id: header.id)
            guard let found = header.recipients.first(where: { $0.tag == tag }) else {
                throw KeychainError.noSuchRecipient(name: name, path: path)
            }
            if !out.contains(found.recipient) { out.append(found.recipient) }
        }
        return out
    }

    /// The header and its MAC as read: the file up to the body nonce.
    public var headerAndMAC: [UInt8] { headerBytes + mac }

    /// The length of the file's tail from the body nonce to the end.
    public var bodyByteCount: Int { KeychainFormat.nonceCount + 4 + sealedBody.count }

    /// The master key from the passcode slot; `.wrongPasscode` if it does not open.
    public func unlock(passcode: SecretBytes) throws -> SecretBytes {
        guard let key = try header.passcodeSlot.unwrap(secret: passcode) else { throw KeychainError.wrongPasscode }
        return key
    }

    /// The master key from the recovery slot; `.wrongAnswers` if they do not open it.
    public func unlock(answers: [String]) throws -> SecretBytes {
        guard let slot = header.recoverySlot else { throw KeychainError.noRecovery(path: path) }
        guard let key = try slot.unwrap(answers: answers) else { throw KeychainError.wrongAnswers }
        return key
    }

    /// True if the header MAC checks out under `masterKey`.
    func authenticates(masterKey: SecretBytes) throws -> Bool {
        HMACSHA256.equal(try HMACSHA256.authenticate(key: KeychainFormat.macKey(masterKey, id: header.id), message: headerBytes), mac)
    }

    /// Checks the header MAC and opens the body.
    public func open(masterKey: SecretBytes) throws -> [KeychainEntry] {
        let plaintext = try openBody(masterKey: masterKey)
        do { return try KeychainBody.decode(plaintext) } catch let problem as KeychainFormat.Problem { throw corrupt(problem.why) }
    }

    /// The secret of one entry, found without decoding the others (what `get` needs);
    /// nil if there is no such entry. Checks the header MAC and the body like `open`.
    public func secret(masterKey: SecretBytes, kind: KeychainEntry.Kind, service: String, account: String) throws -> SecretBytes? {
        let plaintext = try openBody(masterKey: masterKey)
        do { return try KeychainBody.secret(in: plaintext, kind: kind, service: service, account: account) }
        catch let problem as KeychainFormat.Problem { throw corrupt(problem.why) }
    }

    private func corrupt(_ why: String) -> KeychainError { .corrupt(path: path, why: why, backup: backup) }

    /// The body's plaintext, once the header MAC and the body authenticate.
    private func openBody(masterKey: SecretBytes) throws -> SecretBytes {
        guard try authenticates(masterKey: masterKey) else { throw corrupt("the header failed to authenticate") }
        guard let plaintext = try ChaChaPoly.open(key: KeychainFormat.bodyKey(masterKey, header: header), nonce: bodyNonce, ciphertext: sealedBody) else {
            throw corrupt("the body failed to authenticate")
        }
        // The epoch is authentic now: an older file than this machine saw is a rollback.
        try KeychainEpochs(keychainPath: path).check(id: header.id, epoch: header.epoch, recorded: epochRecord)
        return plaintext
    }
}
