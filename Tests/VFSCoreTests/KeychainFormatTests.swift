import Foundation
import Testing
@testable import VFSCore

/// The keychain file format: slots, header MAC, body encoding, strict parsing.
@Suite("keychain format")
struct KeychainFormatTests {
    static let passcode = SecretBytes(copying: Array("pass word".utf8))

    static func entry(_ service: String, _ account: String, _ secret: [UInt8], label: String = "") -> KeychainEntry {
        KeychainEntry(kind: .secret, service: service, account: account, label: label, created: 1_700_000_000, modified: 1_700_000_100,
                      secret: SecretBytes(copying: secret))
    }

    /// A sealed keychain with a recovery slot and three entries, and its master key.
    static func sample() throws -> (bytes: [UInt8], key: SecretBytes) {
        let key = try KeychainFormat.newMasterKey()
        let header = try KeychainHeader.new(
            passcode: KeySlot.wrap(key, kind: .passcode, secret: passcode, workFactor: 4),
            recovery: KeySlot.recovery(key, questions: ["First pet?", "City of birth?"], answers: ["Rex", "New York"], workFactor: 4))
        let identity = try X25519Identity.generate()
        let entries = [entry("github.com", "alice", Array("hunter2".utf8), label: "work"),
                       entry("bank ✓", "", [0, 1, 2, 255, 10]),
                       KeychainEntry(identityNamed: "laptop", identity, created: 5)]
        return (try KeychainFormat.seal(header: header, masterKey: key, entries: entries), key)
    }

    @Test("round trip: the passcode and the recovery answers open the same entries")
    func roundTrip() throws {
        let (bytes, key) = try Self.sample()
        #expect(Array(bytes.prefix(10)) == Array("VFSKEYCH".utf8) + [0, 2])
        let sealed = try SealedKeychain(bytes: bytes, path: "k")
        #expect(try sealed.unlock(passcode: Self.passcode).isEqual(to: key))
        #expect(try sealed.unlock(answers: ["  rex", "NEW   york "]).isEqual(to: key))
        #expect(sealed.header.recoverySlot?.questions == ["First pet?", "City of birth?"])
        #expect(sealed.header.passcodeSlot.logN == 4)
        let entries = try sealed.open(masterKey: key)
        #expect(entries.map(\.service) == ["github.com", "bank ✓", "laptop"])
        #expect(entries[0].secret.bytes == Array("hunter2".utf8) && entries[0].label == "work" && entries[0].modified == 1_700_000_100)
        #expect(entries[1].secret.bytes == [0, 1, 2, 255, 10] && entries[1].account.isEmpty)
        #expect(entries[2].kind == .identity && entries[2].created == 5)
        #expect(try entries[2].identity().recipient.string.hasPrefix("age1"))
        // One entry looked up without decoding the others.
        #expect(try sealed.secret(masterKey: key, kind: .secret, service: "bank ✓", account: "")?.bytes == [0, 1, 2, 255, 10])
        #expect(try sealed.secret(masterKey: key, kind: .secret, service: "github.com", account: "alice")?.bytes == Array("hunter2".utf8))
        #expect(try sealed.secret(masterKey: key, kind: .secret, service: "laptop", account: "") == nil, "an identity is not a secret entry")
        #expect(try sealed.secret(masterKey: key, kind: .secret, service: "github.com", account: "alic") == nil)
        // Nothing of the names or secrets is in the file.
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("github") && !text.contains("hunter2") && !text.contains("laptop"))
        #expect(text.contains("First pet?"), "the questions are readable so recover can ask them")
    }

    @Test("the identities' recipients are readable without the passcode; names are not; the MAC covers them")
    func publicRecipients() throws {
        let (bytes, key) = try Self.sample()
        let sealed = try SealedKeychain(bytes: bytes, path: "k")
        let laptop = try sealed.open(masterKey: key)[2].ageIdentity().recipient
        #expect(try sealed.publicRecipients(named: ["laptop"]) == [laptop])
        #expect(try sealed.publicRecipients(named: ["all"]) == [laptop])
        #expect(try sealed.publicRecipients(named: ["laptop"], masterKey: key) == [laptop])
        #expect(throws: KeychainError.noSuchRecipient(name: "desktop", path: "k")) { try sealed.publicRecipients(named: ["desktop"]) }
        #expect(throws: KeychainError.self) { try sealed.publicRecipients(named: ["laptop"], masterKey: KeychainFormat.newMasterKey()) }
        #expect(!String(decoding: bytes, as: UTF8.self).contains("laptop"))
        // A keychain without identities has none; a format-1 header has no table.
        let plain = try KeychainFormat.seal(header: KeychainHeader.new(passcode: KeySlot.wrap(key, kind: .passcode, secret: Self.passcode, workFactor: 4)),
                                            masterKey: key, entries: [])
        #expect(throws: KeychainError.noIdentities(path: "p")) { try SealedKeychain(bytes: plain, path: "p").publicRecipients(named: ["all"]) }
        #expect(try SealedKeychain(bytes: Self.formatOne, path: "k").publicRecipients(named: ["work"]) == nil)
    }

    @Test("a wrong passcode, wrong answers and a wrong key are told apart")
    func wrongSecrets() throws {
        let (bytes, _) = try Self.sample()
        let sealed = try SealedKeychain(bytes: bytes, path: "k")
        #expect(throws: KeychainError.wrongPasscode) { try sealed.unlock(passcode: SecretBytes(copying: Array("pass  word".utf8))) }
        #expect(throws: KeychainError.wrongAnswers) { try sealed.unlock(answers: ["Rex", "Boston"]) }
        #expect(throws: KeychainError.wrongAnswers) { try sealed.unlock(answers: ["Rex"]) }
        #expect(throws: KeychainError.self) { try sealed.open(masterKey: KeychainFormat.newMasterKey()) }
        let plain = try KeychainFormat.seal(header: KeychainHeader.new(passcode: KeySlot.wrap(KeychainFormat.newMasterKey(), kind: .passcode, secret: Self.passcode, workFactor: 4)),
                                            masterKey: KeychainFormat.newMasterKey(), entries: [])
        #expect(throws: KeychainError.noRecovery(path: "p")) { try SealedKeychain(bytes: plain, path: "p").unlock(answers: ["x"]) }
    }

    @Test("answers: trimmed, case-folded, inner whitespace collapsed, NFC; joined without ambiguity")
    func normalisation() {
        #expect(RecoveryAnswers.normalise("  New   York \t") == "new york")
        #expect(RecoveryAnswers.normalise("Straße") == RecoveryAnswers.normalise("STRASSE"))
        #expect(RecoveryAnswers.normalise("Ame\u{301}lie") == RecoveryAnswers.normalise("AM\u{c9}LIE"))
        #expect(RecoveryAnswers.normalise("a\nb") == "a b")
        #expect(!RecoveryAnswers.secret(["ab", "c"]).isEqual(to: RecoveryAnswers.secret(["a", "bc"])))
        #expect(!RecoveryAnswers.secret(["a b"]).isEqual(to: RecoveryAnswers.secret(["a", "b"])))
        #expect(RecoveryAnswers.secret([" Rex "]).isEqual(to: RecoveryAnswers.secret(["rex"])))
    }

    @Test("every single-byte change is refused: 77 in the passcode slot, 65 everywhere else")
    func everyByteAuthenticated() throws {
        let (bytes, _) = try Self.sample()
        // The passcode slot is bytes 35..<103 (after magic, version, id, epoch and slot
        // count): kind and scrypt parameters, then salt and wrapped key, where a change
        // cannot be told from a wrong passcode (as in age).
        let parameters = 35..<39
        let saltAndKey = 39..<(39 + KeySlot.saltCount + KeySlot.wrappedCount)
        for offset in bytes.indices {
            var copy = bytes
            copy[offset] ^= 0x01
            do {
                let sealed = try SealedKeychain(bytes: copy, path: "k")
                let key = try sealed.unlock(passcode: Self.passcode)
                _ = try sealed.open(masterKey: key)
                Issue.record("a change at byte \(offset) went unnoticed")
            } catch let error as KeychainError {
                if saltAndKey.contains(offset) {
                    #expect(error == .wrongPasscode, "byte \(offset)")
                } else if parameters.contains(offset) {
                    #expect(error.isDamage || error == .wrongPasscode, "byte \(offset): \(error)")
                } else {
                    #expect(error.isDamage, "byte \(offset): \(error)")
                }
            }
        }
    }

    @Test("scrypt costs beyond the bound are refused as damaged before any work is done")
    func scryptBound() throws {
        let (bytes, _) = try Self.sample()
        // Byte 36 is the passcode slot's log2 N (after its kind byte at 35); then r and p.
        #expect(bytes[36] == 4 && bytes[37] == 8 && bytes[38] == 1)
        for (offset, value) in [(36, UInt8(KeySlot.maxWorkFactor + 1)), (36, 30), (37, 32), (38, 16)] {
            var copy = bytes
            copy[offset] = value
            #expect(throws: KeychainError.self, "byte \(offset) = \(value)") {
                _ = try SealedKeychain(bytes: copy, path: "k")
            }
            do { _ = try SealedKeychain(bytes: copy, path: "k") } catch let error as KeychainError {
                #expect(error.isDamage, "byte \(offset) = \(value): \(error)")
            }
        }
    }

    @Test("truncations and extra bytes are refused as damaged, never crash")
    func truncations() throws {
        let (bytes, key) = try Self.sample()
        for length in 0..<bytes.count {
            #expect(throws: KeychainError.self, "length \(length)") {
                let sealed = try SealedKeychain(bytes: Array(bytes.prefix(length)), path: "k")
                _ = try sealed.open(masterKey: key)
            }
        }
        let longer = try SealedKeychain.parseError(bytes + [0])
        #expect(longer?.isDamage == true && "\(longer!)".contains("unexpected bytes after the body"))
        let short = try SealedKeychain.parseError(Array(bytes.dropLast(3)))
        #expect("\(short!)".contains("truncated"))
        var version = bytes
        version[9] = 7
        #expect(try SealedKeychain.parseError(version) == .unsupportedVersion(path: "k", version: 7))
        #expect("\(try SealedKeychain.parseError(Array("hello".utf8))!)".contains("not a vfs keychain"))
        // scrypt parameters out of range are refused before any work is done.
        var huge = bytes
        huge[36] = 40
        #expect("\(try SealedKeychain.parseError(huge)!)".contains("scrypt parameters out of range"))
    }

    @Test("a new master key: the old passcode and an old header open nothing of the new file; the answers follow without being given")
    func rotation() throws {
        let (bytes, key) = try Self.sample()
        let sealed = try SealedKeychain(bytes: bytes, path: "k")
        let newKey = try KeychainFormat.newMasterKey()
        let newPasscode = SecretBytes(copying: Array("new".utf8))
        let (header, dropped) = try sealed.header.next.rekeyed(to: newKey, passcode: newPasscode, recovery: .keep)
        #expect(!dropped && header.epoch == sealed.header.epoch + 1)
        let rotated = try KeychainFormat.seal(header: header, masterKey: newKey, entries: sealed.open(masterKey: key))
        let reopened = try SealedKeychain(bytes: rotated, path: "k")
        #expect(throws: KeychainError.wrongPasscode) { try reopened.unlock(passcode: Self.passcode) }
        #expect(try reopened.unlock(passcode: newPasscode).isEqual(to: newKey))
        // The recovery slot was resealed to its public key: the answers open the new key.
        #expect(try reopened.unlock(answers: ["rex", "new york"]).isEqual(to: newKey))
        #expect(reopened.header.recoverySlot?.recipient == sealed.header.recoverySlot?.recipient)
        #expect(reopened.header.recoverySlot?.ephemeral != sealed.header.recoverySlot?.ephemeral)
        #expect(try reopened.open(masterKey: newKey).count == 3)
        // The old header spliced onto the new body: the old passcode opens the old key, which opens nothing.
        let oldHeader = Array(bytes.prefix(bytes.count - sealed.bodyByteCount))
        let spliced = try SealedKeychain(bytes: oldHeader + Array(rotated.suffix(reopened.bodyByteCount)), path: "k")
        let oldKey = try spliced.unlock(passcode: Self.passcode)
        #expect(throws: KeychainError.self) { try spliced.open(masterKey: oldKey) }
        // The new header onto an older body of the same key (another epoch) does not open either.
        let again = try KeychainFormat.seal(header: header.next, masterKey: newKey, entries: [])
        let older = try SealedKeychain(bytes: Array(again.prefix(again.count - (try SealedKeychain(bytes: again, path: "k")).bodyByteCount))
                                         + Array(rotated.suffix(reopened.bodyByteCount)), path: "k")
        #expect(throws: KeychainError.self) { try older.open(masterKey: newKey) }
        // Removing and setting questions.
        let removed = try reopened.header.rekeyed(to: key, passcode: newPasscode, recovery: .remove).header
        #expect(removed.recoverySlot == nil)
        let set = try reopened.header.rekeyed(to: key, passcode: newPasscode, recovery: .set(questions: ["Q?"], answers: ["A"], workFactor: 3)).header
        #expect(set.recoverySlot?.questions == ["Q?"] && set.recoverySlot?.logN == 3)
        #expect(try set.recoverySlot?.unwrap(answers: ["a"])?.isEqual(to: key) == true)
        #expect(try set.recoverySlot?.unwrap(answers: ["b"]) == nil)
    }

    /// Written by vfs-keychain before format 2 (`init --questions` with the answers Rex
    /// and Lyon, work factor 4, passcode "old passcode"; then `set github deploy`
    /// (s3cret) and `identity new work`).
    static let formatOne = Array(Data(base64Encoded: """
        VkZTS0VZQ0gAAaeX6WrrQTqTpP73xjjYiuECAQQIAa2rQvzShBdY0ENleTjcM3Seut/xZeJlYA6DqyF3D0tEERuzsEGGXjFFXi7TjS+SQG6Ipvo2V5KFrWhm        Vs3/vK0CBAgBZrY2sMqb9fk+aV3Z9Bck5rOnsMg9dGatcJe4Gzj2pqqZm4OIr7FARgDzPpdcI1BxvLnQDrq+CFizMl0UarSLbwIACkZpcnN0IHBldD8ADkNp        dHkgb2YgYmlydGg/ChCY9/Jp6xbH7eQjDlbYLcRhdOLOubQbBXFzshRsPLaiuwMwM2blRY8xyCoAAACAIFdmYOOHxXVKT/rvjHMuffLV7Hi+Rv24SQ8r/87E        6w89vz2tACdmo5mUGd3FqAj4JD3yixraMtJNlbphhwPNdBKt3HS0vpqMxSsqma3wpZwVFAYss5hKaCh23i3rcdB6Mvz5AUke4pTTJybe2Vt1rP17bq/n86hL        P1ryjJGxhmk=
        """, options: .ignoreUnknownCharacters)!)
    static let formatOnePasscode = SecretBytes(copying: Array("old passcode".utf8))

    @Test("a format-1 file written by the old code opens with its passcode and answers, and is written as format 2")
    func formatOneFile() throws {
        let sealed = try SealedKeychain(bytes: Self.formatOne, path: "k")
        #expect(sealed.header.version == 1 && sealed.header.epoch == 0 && sealed.header.recoverySlot?.kind == .legacyRecovery)
        let key = try sealed.unlock(passcode: Self.formatOnePasscode)
        #expect(try sealed.unlock(answers: ["rex", "LYON"]).isEqual(to: key))
        let entries = try sealed.open(masterKey: key)
        #expect(entries.count == 2 && entries[0].service == "github" && entries[0].secret.bytes == Array("s3cret".utf8))
        #expect(try entries[1].identity().recipient.string == "age1zhd5g6wz44g8e638gy7qkns94dq4a040k2l0pmflfhn4eqc8va7q03f56x")
        // An entry change keeps the key and the legacy slot, in format 2.
        let saved = try KeychainFormat.seal(header: sealed.header.next, masterKey: key, entries: entries)
        let migrated = try SealedKeychain(bytes: saved, path: "k")
        #expect(migrated.header.version == 2 && migrated.header.epoch == 1 && Array(saved[8..<10]) == [0, 2])
        #expect(try migrated.unlock(answers: ["Rex", "Lyon"]).isEqual(to: key))
        #expect(try migrated.open(masterKey: migrated.unlock(passcode: Self.formatOnePasscode)).count == 2)
        // A new master key cannot carry a legacy slot (it needs the answers): it is dropped and said so.
        let rekeyed = try migrated.header.next.rekeyed(to: KeychainFormat.newMasterKey(), passcode: Self.formatOnePasscode, recovery: .keep)
        #expect(rekeyed.droppedLegacyRecovery && rekeyed.header.recoverySlot == nil)
    }

    @Test("the body encoding round-trips empty, large and unusual entries")
    func bodyEncoding() throws {
        #expect(try KeychainBody.decode(KeychainBody.encode([])).isEmpty)
        let big = [UInt8](repeating: 7, count: 100_000)
        let entries = (0..<500).map { Self.entry("s\($0)", "ü\($0)", $0 == 3 ? big : Array("v\($0)".utf8)) }
        let decoded = try KeychainBody.decode(KeychainBody.encode(entries))
        #expect(decoded.count == 500 && decoded[3].secret.bytes == big && decoded[499].account == "ü499")
        // A body that ends early or runs on is refused.
        let encoded = KeychainBody.encode(entries).bytes
        #expect(throws: KeychainFormat.Problem.self) { try KeychainBody.decode(SecretBytes(copying: encoded.dropLast())) }
        #expect(throws: KeychainFormat.Problem.self) { try KeychainBody.decode(SecretBytes(copying: encoded + [0])) }
        #expect(throws: KeychainFormat.Problem.self) { try KeychainBody.decode(SecretBytes(copying: [0xff, 0xff, 0xff, 0xff])) }
    }
}

extension SealedKeychain {
    /// The KeychainError parsing `bytes` throws, nil if it parses.
    static func parseError(_ bytes: [UInt8]) throws -> KeychainError? {
        do { _ = try SealedKeychain(bytes: bytes, path: "k"); return nil } catch let error as KeychainError { return error }
    }
}

extension KeychainError {
    /// The file is damaged or not one this version reads (the tools report 65).
    var isDamage: Bool {
        switch self {
        case .corrupt, .unsupportedVersion: return true
        default: return false
        }
    }
}
