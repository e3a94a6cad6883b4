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
            recovery: KeySlot.wrap(key, kind: .recovery, secret: RecoveryAnswers.secret(["Rex", "New York"]), workFactor: 4,
                                   questions: ["First pet?", "City of birth?"]))
        let identity = try X25519Identity.generate()
        let entries = [entry("github.com", "alice", Array("hunter2".utf8), label: "work"),
                       entry("bank ✓", "", [0, 1, 2, 255, 10]),
                       KeychainEntry(identityNamed: "laptop", identity, created: 5)]
        return (try KeychainFormat.seal(header: header, masterKey: key, entries: entries), key)
    }

    @Test("round trip: the passcode and the recovery answers open the same entries")
    func roundTrip() throws {
        let (bytes, key) = try Self.sample()
        #expect(Array(bytes.prefix(10)) == Array("VFSKEYCH".utf8) + [0, 1])
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
        // The passcode slot is bytes 27..<95: kind and scrypt parameters, then salt and
        // wrapped key, where a change cannot be told from a wrong passcode (as in age).
        let parameters = 27..<31
        let saltAndKey = 31..<(31 + KeySlot.saltCount + KeySlot.wrappedCount)
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
        // Byte 28 is the passcode slot's log2 N (after its kind byte at 27); then r and p.
        #expect(bytes[28] == 4 && bytes[29] == 8 && bytes[30] == 1)
        for (offset, value) in [(28, UInt8(KeySlot.maxWorkFactor + 1)), (28, 30), (29, 32), (30, 16)] {
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
        huge[28] = 40
        #expect("\(try SealedKeychain.parseError(huge)!)".contains("scrypt parameters out of range"))
    }

    @Test("rewrapping the passcode slot keeps the sealed body byte for byte")
    func rewrap() throws {
        let (bytes, key) = try Self.sample()
        let sealed = try SealedKeychain(bytes: bytes, path: "k")
        let newPasscode = SecretBytes(copying: Array("new".utf8))
        let header = sealed.header.replacing(try sealed.header.passcodeSlot.rewrapped(key, secret: newPasscode))
        let rewritten = try KeychainFormat.seal(header: header, masterKey: key, keepingBodyOf: sealed)
        #expect(Array(rewritten.suffix(sealed.bodyByteCount)) == Array(bytes.suffix(sealed.bodyByteCount)))
        let reopened = try SealedKeychain(bytes: rewritten, path: "k")
        #expect(throws: KeychainError.wrongPasscode) { try reopened.unlock(passcode: Self.passcode) }
        #expect(try reopened.open(masterKey: reopened.unlock(passcode: newPasscode)).count == 3)
        #expect(try reopened.unlock(answers: ["rex", "new york"]).isEqual(to: key))
        #expect(reopened.header.passcodeSlot.salt != sealed.header.passcodeSlot.salt)
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
