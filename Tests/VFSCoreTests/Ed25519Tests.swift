import Testing
import VFSTestSupport
@testable import VFSCore

@Suite("Ed25519")
struct Ed25519Tests {
    /// RFC 8032 section 7.1, TEST 1 to 3 (the empty, one-byte and two-byte messages).
    static let vectors: [(seed: String, publicKey: String, message: String, signature: String)] = [
        ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
         "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
        ("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
         "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
         "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
    ]

    @Test("RFC 8032 7.1: the seed gives the public key, signing gives the signature byte for byte, and it verifies",
          arguments: 0..<3)
    func rfc8032(_ n: Int) throws {
        let v = Self.vectors[n]
        let key = try Ed25519.SigningKey(seed: SecretBytes(copying: hexBytes(v.seed)))
        #expect(key.publicKey == hexBytes(v.publicKey))
        let signature = try key.sign(hexBytes(v.message))
        #expect(signature == hexBytes(v.signature))
        #expect(Ed25519.verify(signature: signature, of: hexBytes(v.message), publicKey: key.publicKey))
    }

    @Test("a changed message, a flipped signature bit, another key or wrong lengths do not verify")
    func forgeries() throws {
        let v = Self.vectors[2]
        let message = hexBytes(v.message), signature = hexBytes(v.signature), publicKey = hexBytes(v.publicKey)
        #expect(!Ed25519.verify(signature: signature, of: message + [0], publicKey: publicKey))
        for bit in [0, 255, 256, 511] {
            var flipped = signature
            flipped[bit / 8] ^= 1 << (bit % 8)
            #expect(!Ed25519.verify(signature: flipped, of: message, publicKey: publicKey))
        }
        #expect(!Ed25519.verify(signature: signature, of: message, publicKey: hexBytes(Self.vectors[0].publicKey)))
        #expect(!Ed25519.verify(signature: Array(signature.dropLast()), of: message, publicKey: publicKey))
        #expect(!Ed25519.verify(signature: signature, of: message, publicKey: Array(publicKey.dropLast())))
        #expect(throws: Ed25519Error.badLength(what: "seed", count: 31, expected: 32)) {
            try Ed25519.SigningKey(seed: SecretBytes(copying: [UInt8](repeating: 1, count: 31)))
        }
    }

    @Test("generated keys differ, round-trip through their raw seed, and sign what verifies")
    func generated() throws {
        let a = try Ed25519.SigningKey(), b = try Ed25519.SigningKey()
        #expect(a.publicKey != b.publicKey)
        #expect(a.seed.count == 32 && a.publicKey.count == 32)
        let again = try Ed25519.SigningKey(seed: SecretBytes(copying: a.seed.bytes))
        #expect(again.publicKey == a.publicKey)
        let message = Array("hello".utf8)
        let signature = try a.sign(message)
        #expect(try again.sign(message) == signature)
        #expect(Ed25519.verify(signature: signature, of: message, publicKey: a.publicKey))
        #expect(!Ed25519.verify(signature: signature, of: message, publicKey: b.publicKey))
    }
}
