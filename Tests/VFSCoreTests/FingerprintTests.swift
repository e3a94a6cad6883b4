import Testing
@testable import VFSCore

@Suite("fingerprints and safety codes")
struct FingerprintTests {
    let keyA = [UInt8](repeating: 1, count: 32), keyB = [UInt8](repeating: 2, count: 32)

    @Test("a device fingerprint is five groups of five base32 characters of SHA-256 over key and recipient")
    func deviceFingerprint() throws {
        let fingerprint = Fingerprint.device(signingKey: keyA, recipient: "age1a")
        #expect(fingerprint.count == 29)
        #expect(fingerprint.split(separator: "-").map(\.count) == [5, 5, 5, 5, 5])
        #expect(fingerprint.allSatisfy { $0 == "-" || "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".contains($0) })
        // The derivation, written out: the first 125 bits of the digest in base32.
        let input = Array("vfs device fingerprint v1\0".utf8) + [0, 0, 0, 0, 0, 0, 0, 32] + keyA + [0, 0, 0, 0, 0, 0, 0, 5] + Array("age1a".utf8)
        let digest = SHA256.hash(input)
        let bits = digest.flatMap { byte in (0..<8).map { (byte >> (7 - $0)) & 1 } }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        let characters = (0..<25).map { i in alphabet[Int(bits[i * 5..<i * 5 + 5].reduce(0) { $0 << 1 | $1 })] }
        #expect(fingerprint.replacingOccurrences(of: "-", with: "") == String(characters))
        // Stable, and changed by either input.
        #expect(Fingerprint.device(signingKey: keyA, recipient: "age1a") == fingerprint)
        #expect(Fingerprint.device(signingKey: keyB, recipient: "age1a") != fingerprint)
        #expect(Fingerprint.device(signingKey: keyA, recipient: "age1b") != fingerprint)
    }

    @Test("a typed fingerprint matches whatever its case, spaces and dashes; anything else does not")
    func matching() {
        let fingerprint = Fingerprint.device(signingKey: keyA, recipient: "age1a")
        let plain = fingerprint.replacingOccurrences(of: "-", with: "")
        #expect(Fingerprint.matches(fingerprint.lowercased(), fingerprint))
        #expect(Fingerprint.matches(plain, fingerprint))
        #expect(Fingerprint.matches(fingerprint.replacingOccurrences(of: "-", with: " "), fingerprint))
        var wrong = Array(plain)
        wrong[24] = wrong[24] == "A" ? "B" : "A"
        #expect(!Fingerprint.matches(String(wrong), fingerprint))
        #expect(!Fingerprint.matches(String(plain.dropLast()), fingerprint))
        #expect(!Fingerprint.matches(plain + "A", fingerprint))
        #expect(!Fingerprint.matches(String(plain.dropLast()) + "1", fingerprint))  // 1 is not base32
        #expect(Fingerprint.normalised("") == nil)
    }

    @Test("a safety code is 60 digits in twelve groups, the same whichever side computes it")
    func safetyCode() {
        let alice = (user: "alice@example.com", rootKey: keyA), bob = (user: "bob@example.com", rootKey: keyB)
        let code = Fingerprint.safetyCode(alice, bob)
        #expect(code == Fingerprint.safetyCode(bob, alice))
        #expect(code.split(separator: " ").map(\.count) == Array(repeating: 5, count: 12))
        #expect(code.allSatisfy { $0 == " " || $0.isNumber })
        #expect([Fingerprint.safetyShare(user: alice.user, rootKey: alice.rootKey), Fingerprint.safetyShare(user: bob.user, rootKey: bob.rootKey)]
            .allSatisfy { $0.count == 32 })
    }

    @Test("a one-sided substitution changes every group: no half of the code is one user's alone (issue 43, item 7)")
    func safetyCodeSubstitution() {
        let alice = (user: "alice@example.com", rootKey: keyA), bob = (user: "bob@example.com", rootKey: keyB)
        let real = Fingerprint.safetyCode(alice, bob).split(separator: " ")
        for fill in UInt8(3)...UInt8(10) {
            // The relay's root for bob, on alice's screen; bob's screen shows the real code.
            let forged = Fingerprint.safetyCode(alice, (user: bob.user, rootKey: [UInt8](repeating: fill, count: 32))).split(separator: " ")
            #expect(zip(real, forged).allSatisfy { $0 != $1 }, "root \(fill): \(real) \(forged)")
            // Nor does the code of either user with a third hold a run of groups of this one.
            let third = Fingerprint.safetyCode(alice, (user: "carol@example.com", rootKey: [UInt8](repeating: fill, count: 32))).split(separator: " ")
            #expect(zip(real, third).allSatisfy { $0 != $1 })
        }
    }

    @Test("a swapped root key or another user id changes the safety code")
    func safetyCodeChanges() {
        let alice = (user: "alice@example.com", rootKey: keyA), bob = (user: "bob@example.com", rootKey: keyB)
        let code = Fingerprint.safetyCode(alice, bob)
        #expect(Fingerprint.safetyCode(alice, (user: bob.user, rootKey: [UInt8](repeating: 3, count: 32))) != code)
        #expect(Fingerprint.safetyCode(alice, (user: "carol@example.com", rootKey: keyB)) != code)
        #expect(Fingerprint.safetyShare(user: alice.user, rootKey: keyA) != Fingerprint.safetyShare(user: alice.user, rootKey: keyB))
    }
}
