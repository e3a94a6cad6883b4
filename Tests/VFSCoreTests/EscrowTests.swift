import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore

/// Issue 49: Shamir's secret sharing over GF(2^8) (the AES field) and the escrow share
/// format of `vfs-keychain escrow`, checked against vectors computed by hand and by an
/// independent Python implementation (Tests/tools/shamir-reference.py, which multiplies
/// with log tables where the Swift code multiplies bit by bit).
@Suite("escrow: Shamir over GF(2^8)")
struct EscrowTests {
    static let reference = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools/shamir-reference.py").path

    static func python(_ arguments: [String]) throws -> String {
        let run = try Tools.run("python3", [reference] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
        return run.out
    }

    static func hex(_ text: String) -> [UInt8] { KeychainEpochs.bytes(hex: Substring(text))! }

    /// Every subset of `0..<n` with `k` members.
    static func subsets(_ n: Int, _ k: Int) -> [[Int]] {
        guard k > 0 else { return [[]] }
        guard n >= k else { return [] }
        return subsets(n - 1, k) + subsets(n - 1, k - 1).map { $0 + [n - 1] }
    }

    @Test("the field is AES's: FIPS-197's products {57}·{83} = {c1} and {57}·{13} = {fe}, the inverse of {53} is {ca}, and a·a⁻¹ = 1 for every a ≠ 0")
    func field() {
        #expect(Shamir.multiply(0x57, 0x83) == 0xC1)
        #expect(Shamir.multiply(0x57, 0x13) == 0xFE)
        #expect(Shamir.inverse(0x53) == 0xCA)
        for a in 1...255 { #expect(Shamir.multiply(UInt8(a), Shamir.inverse(UInt8(a))) == 1) }
    }

    @Test("fixed vectors: secret 42 with coefficient 03 (by hand: 42⊕03, 42⊕06, 42⊕05), and an 8-byte secret at threshold 4 (from the Python reference)")
    func vectors() {
        #expect(Shamir.split([0x42], count: 3, coefficients: [[0x03]]) == [[0x41], [0x44], [0x47]])
        let secret = Self.hex("5365637265742100")
        let rows = ["0102030405060708", "f0e1d2c3b4a59687", "1122334455667788"].map(Self.hex)
        let expected = ["b3a481f181b1c707", "34c3834d17c7d416", "b2cecb4d164d1b0c", "e2a79456583a5af3", "4df8a7f2d4464aba"].map(Self.hex)
        #expect(Shamir.split(secret, count: 5, coefficients: rows) == expected)
        for subset in Self.subsets(5, 4) {
            #expect(Shamir.combine(subset.map { (UInt8($0 + 1), expected[$0]) }) == secret)
        }
    }

    @Test("the share texts of a fixed split are the Python reference's, byte for byte, and join rebuilds the secret from any two")
    func shareVector() throws {
        let secret = Array("vfs escrow".utf8)
        let id = Array(0..<16).map(UInt8.init)
        let shares = try EscrowShare.split(secret, count: 3, splitID: id, coefficients: [Array(0..<26).map(UInt8.init)])
        #expect(shares.map(\.text).joined() == """
            vfs-escrow-share v1
            split: 000102030405060708090a0b0c0d0e0f
            share: 1 of 3
            threshold: 2
            value: dmdxI2F2ZXVnfpY00Oge0z44RjXnCLadEvE=
            vfs-escrow-share v1
            split: 000102030405060708090a0b0c0d0e0f
            share: 2 of 3
            threshold: 2
            value: dmR3Jm15b3x/ZYgpxP8Mwg4LcADbN4ykOto=
            vfs-escrow-share v1
            split: 000102030405060708090a0b0c0d0e0f
            share: 3 of 3
            threshold: 2
            value: dmV1JWl8aXt3bIIiyPICzR4aYhPPIpqzIsM=

            """)
        for pair in Self.subsets(3, 2) { #expect(try EscrowShare.join(pair.map { shares[$0] }) == secret) }
    }

    @Test("random secrets and coefficients: Swift's shares are the Python reference's, and each side combines the other's")
    func pythonAgrees() throws {
        for (count, threshold, length) in [(3, 2, 1), (5, 3, 33), (7, 7, 64), (255, 2, 3)] {
            let secret = try SecureRandom.bytes(length)
            let rows = try (1..<threshold).map { _ in try SecureRandom.bytes(length) }
            let values = Shamir.split(secret, count: count, coefficients: rows)
            let theirs = try Self.python(["split", secret.hexString, String(count)] + rows.map(\.hexString))
            #expect(theirs == values.map { $0.hexString + "\n" }.joined())
            let chosen = Array(values.indices.shuffled().prefix(threshold))
            #expect(try Self.python(["combine"] + chosen.map { "\($0 + 1):\(values[$0].hexString)" }) == secret.hexString + "\n")
            let id = try SecureRandom.bytes(16)
            let payloadRows = try (1..<threshold).map { _ in try SecureRandom.bytes(length + 16) }
            let texts = try EscrowShare.split(secret, count: count, splitID: id, coefficients: payloadRows).map(\.text).joined()
            #expect(try Self.python(["shares", secret.hexString, id.hexString, String(count)] + payloadRows.map(\.hexString)) == texts)
        }
    }

    @Test("every K-subset of the shares (and every larger one) rebuilds the secret exactly; every smaller one is refused as too few")
    func everySubset() throws {
        for (count, threshold) in [(3, 2), (4, 3), (5, 3), (4, 4)] {
            let secret = try SecureRandom.bytes(Int.random(in: 1...200))
            let shares = try EscrowShare.split(secret, count: count, threshold: threshold)
            #expect(Set(shares.map(\.splitID)).count == 1 && shares.map(\.index) == Array(1...count))
            for size in 1...count {
                for subset in Self.subsets(count, size) {
                    let given = subset.shuffled().map { shares[$0] }
                    if size >= threshold {
                        #expect(try EscrowShare.join(given) == secret)
                    } else {
                        #expect(throws: EscrowError.tooFew(given: size, needed: threshold)) { try EscrowShare.join(given) }
                    }
                }
            }
        }
    }

    @Test("threshold 2: a single share is the same for any secret, given the coefficient that compensates (a' = a ⊕ (s⊕s')/x), so it says nothing of the secret")
    func singleShareRevealsNothing() {
        let secret: UInt8 = 0x9C, coefficient: UInt8 = 0x5A
        let shares = Shamir.split([secret], count: 3, coefficients: [[coefficient]])
        for x in 1...3 {
            for other in 0...255 {
                let compensating = coefficient ^ Shamir.multiply(secret ^ UInt8(other), Shamir.inverse(UInt8(x)))
                let theirs = Shamir.split([UInt8(other)], count: 3, coefficients: [[compensating]])
                #expect(theirs[x - 1] == shares[x - 1])
                if UInt8(other) != secret { #expect(theirs != shares) }
            }
        }
    }

    @Test("threshold 3: every pair of shares fits every possible secret byte with exactly one pair of coefficients, so any two shares reveal nothing")
    func pairsRevealNothing() {
        let shares = Shamir.split([0x27], count: 4, coefficients: [[0xB1], [0x6E]])
        for pair in Self.subsets(4, 2) {
            let (x1, x2) = (UInt8(pair[0] + 1), UInt8(pair[1] + 1))
            let (y1, y2) = (shares[pair[0]][0], shares[pair[1]][0])
            var fits = [Int](repeating: 0, count: 256)
            for candidate in 0...255 {
                for a1 in 0...255 {
                    // a2 from the first share: y1 = s + a1·x1 + a2·x1², then check the second.
                    let s = UInt8(candidate), one = UInt8(a1)
                    let a2 = Shamir.multiply(y1 ^ s ^ Shamir.multiply(one, x1), Shamir.inverse(Shamir.multiply(x1, x1)))
                    if Shamir.evaluate([s, one, a2], at: x2) == y2 { fits[candidate] += 1 }
                }
            }
            #expect(fits.allSatisfy { $0 == 1 }, "shares \(x1), \(x2)")
        }
    }

    @Test("join refuses a share of another split, two splits' shares under one id (the checksum), a share given twice, and shares that disagree on the threshold")
    func wrongShares() throws {
        let secret = Array("the recovery key".utf8)
        let shares = try EscrowShare.split(secret, count: 3, threshold: 2)
        let other = try EscrowShare.split(secret, count: 3, threshold: 2)
        #expect(throws: EscrowError.mixedSplits) { try EscrowShare.join([shares[0], other[1]]) }
        let forged = EscrowShare(splitID: shares[0].splitID, index: 2, count: 3, threshold: 2, value: other[1].value)
        #expect(throws: EscrowError.checksum) { try EscrowShare.join([shares[0], forged]) }
        var flipped = shares[1].value
        flipped[0] ^= 1
        #expect(throws: EscrowError.checksum) {
            try EscrowShare.join([shares[0], EscrowShare(splitID: shares[1].splitID, index: 2, count: 3, threshold: 2, value: flipped)])
        }
        #expect(throws: EscrowError.duplicate(index: 1)) { try EscrowShare.join([shares[0], shares[0]]) }
        let raised = EscrowShare(splitID: shares[1].splitID, index: 2, count: 3, threshold: 3, value: shares[1].value)
        #expect(throws: EscrowError.inconsistent(index: 2)) { try EscrowShare.join([shares[0], raised]) }
        #expect(throws: EscrowError.emptySecret) { try EscrowShare.split([], count: 3, threshold: 2) }
        #expect(throws: EscrowError.secretTooLarge(4097)) { try EscrowShare.split([UInt8](repeating: 1, count: 4097), count: 3, threshold: 2) }
        #expect(throws: EscrowError.self) { try EscrowShare.split(secret, count: 3, threshold: 4) }
        #expect(throws: EscrowError.self) { try EscrowShare.split(secret, count: 3, threshold: 1) }
    }

    @Test("a share's text parses back to itself, inside an age file too, and each malformed line is refused")
    func text() throws {
        let share = try EscrowShare.split(Array("secret".utf8), count: 3, threshold: 2)[1]
        #expect(try EscrowShare(text: Array(share.text.utf8), source: "s") == share)
        let identity = try X25519Identity.generate()
        let sealed = try share.sealed(to: AgeRecipient.x25519(identity.recipient), armor: true)
        #expect(String(decoding: sealed, as: UTF8.self).hasPrefix("-----BEGIN AGE ENCRYPTED FILE-----"))
        #expect(try EscrowShare.read(sealed, identities: [AgeIdentity.x25519(identity)], source: "s") == share)
        #expect(throws: AgeError.self) { try EscrowShare.read(sealed, identities: [AgeIdentity.x25519(try X25519Identity.generate())], source: "s") }
        let lines = share.text.split(separator: "\n").map(String.init)
        let broken: [[String]] = [
            ["vfs-escrow-share v2"] + lines.dropFirst(),
            lines.dropLast(),
            [lines[0], "split: 00"] + lines[2...],
            [lines[0], lines[1], "share: 4 of 3"] + lines[3...],
            [lines[0], lines[1], "share: 02 of 3"] + lines[3...],
            [lines[0], lines[1], "share: 0 of 3"] + lines[3...],
            Array(lines[0...2]) + ["threshold: 4", lines[4]],
            Array(lines[0...2]) + ["threshold: 1", lines[4]],
            Array(lines[0...3]) + ["value: not base64!"],
            Array(lines[0...3]) + ["value: AAAA"],
            lines + ["extra: line"],
        ]
        for text in broken {
            #expect(throws: EscrowError.self, "\(text)") { try EscrowShare(text: Array((text.joined(separator: "\n") + "\n").utf8), source: "s") }
        }
    }
}
