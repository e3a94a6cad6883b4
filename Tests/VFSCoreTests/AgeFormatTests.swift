import Foundation
import Testing
@testable import VFSCore

@Suite("age format pieces")
struct AgeFormatTests {
    @Test("base64: unpadded canonical round trip; padding, bad characters and spare bits rejected")
    func base64() {
        for n in 0..<70 {
            let data = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Base64.encode(data)
            #expect(!text.contains("="))
            #expect(Base64.decode(Array(text.utf8)) == data)
            let padded = Base64.encode(data, padded: true)
            #expect(padded.count % 4 == 0)
            #expect(Base64.decode(Array(padded.utf8), padded: true) == data)
        }
        #expect(Base64.decode(Array("AA==".utf8)) == nil, "padding in the header")
        #expect(Base64.decode(Array("AB".utf8)) == nil, "non-zero spare bits")
        #expect(Base64.decode(Array("AA".utf8)) == [0])
        #expect(Base64.decode(Array("A".utf8)) == nil, "impossible length")
        #expect(Base64.decode(Array("A-A_".utf8)) == nil, "URL alphabet")
        #expect(Base64.decode(Array("AA".utf8), padded: true) == nil, "armor needs padding")
        #expect(Base64.decode(Array("AB==".utf8), padded: true) == nil)
        #expect(Base64.decode(Array("A===".utf8), padded: true) == nil)
    }

    @Test("bech32: round trip, case rules, checksum")
    func bech32() throws {
        let data = (0..<32).map { UInt8($0) }
        let lower = Bech32.encode(hrp: "age", data: data)
        #expect(Bech32.decode(lower)?.data == data)
        #expect(Bech32.decode(lower.uppercased())?.hrp == "age")
        var mixed = Array(lower)
        mixed[5] = Character(mixed[5].uppercased())
        #expect(Bech32.decode(String(mixed)) == nil, "mixed case")
        var flipped = Array(lower)
        flipped[10] = flipped[10] == "q" ? "p" : "q"
        #expect(Bech32.decode(String(flipped)) == nil, "checksum")
        let identity = try X25519Identity("AGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0")
        #expect(identity.string == "AGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0")
        #expect(try X25519Recipient(identity.recipient.string) == identity.recipient)
        #expect(throws: AgeError.self) { try X25519Recipient(identity.recipient.string.uppercased()) }
        #expect(throws: AgeError.self) { try X25519Recipient(Bech32.encode(hrp: "age", data: Array(data.prefix(31)))) }
    }

    @Test("stanza bodies wrap at 64 columns and always end with a short line")
    func stanzaEncoding() {
        for (count, lines) in [(0, 1), (32, 1), (47, 1), (48, 2), (49, 2), (96, 3)] {
            let stanza = Stanza(type: "t", arguments: ["a"], body: [UInt8](repeating: 7, count: count))
            let text = String(decoding: stanza.encoded, as: UTF8.self)
            let bodyLines = text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().dropLast()
            #expect(bodyLines.count == lines, "body of \(count) bytes")
            #expect(bodyLines.last!.count < 64)
        }
    }

    @Test("headers of the conformance vectors re-encode to the bytes the MAC covers")
    func headerRoundTrip() throws {
        var checked = 0
        for vector in ConformanceTests.vectors where vector.expect != "header failure" && !vector.armored {
            let source = BufferedSource(MemorySource(vector.body))
            let header = try Header.parse(from: source)
            #expect(Header.macInput(for: header.stanzas) == header.macInput, "\(vector.name)")
            checked += 1
        }
        #expect(checked > 30)
    }

    @Test("encrypt then decrypt round trips at chunk boundaries, in memory", arguments: [0, 1, 65535, 65536, 65537, 32 * 65536, 32 * 65536 + 1, 70 * 65536])
    func roundTrip(size: Int) throws {
        let identity = try X25519Identity.generate()
        let plain = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let sink = MemorySink()
        try AgeEncryptor.encrypt(to: [identity.recipient], from: MemorySource(plain), to: sink)
        let out = MemorySink()
        try AgeDecryptor(source: MemorySource(sink.bytes)).decrypt(identities: [identity], to: out)
        #expect(out.bytes == plain)
    }

    @Test("armor round trip through the encoder and decoder")
    func armorRoundTrip() throws {
        let identity = try X25519Identity.generate()
        for size in [0, 1, 47, 48, 100_000] {
            let plain = [UInt8](repeating: 0x41, count: size)
            let sink = MemorySink()
            try AgeEncryptor.encrypt(to: [identity.recipient], from: MemorySource(plain), to: sink, armor: true)
            let decryptor = try AgeDecryptor(source: MemorySource(sink.bytes))
            #expect(decryptor.isArmored)
            let out = MemorySink()
            try decryptor.decrypt(identities: [identity], to: out)
            #expect(out.bytes == plain)
        }
    }

    @Test("a passphrase stanza must be alone; scrypt round trip")
    func scrypt() throws {
        let pass = SecretBytes(copying: Array("pw".utf8))
        let sink = MemorySink()
        try AgeEncryptor.encrypt(to: [ScryptRecipient(passphrase: pass, workFactor: 10)], from: MemorySource([1, 2, 3]), to: sink)
        let decryptor = try AgeDecryptor(source: MemorySource(sink.bytes))
        #expect(decryptor.isPassphraseEncrypted)
        let out = MemorySink()
        try decryptor.decrypt(identities: [ScryptIdentity(passphrase: pass)], to: out)
        #expect(out.bytes == [1, 2, 3])
        let wrong = try AgeDecryptor(source: MemorySource(sink.bytes))
        #expect(throws: AgeError.self) { try wrong.fileKey(identities: [ScryptIdentity(passphrase: SecretBytes(copying: [0x78]))]) }
        let other = try X25519Identity.generate()
        #expect(throws: AgeError.invalidKey("a passphrase can't be combined with other recipients")) {
            try AgeEncryptor.encrypt(to: [ScryptRecipient(passphrase: pass, workFactor: 10), other.recipient], from: MemorySource([1]), to: MemorySink())
        }
    }

    @Test("secret bytes compare in constant time and know when they are zero")
    func secretBytes() {
        let a = SecretBytes(copying: [1, 2, 3]), b = SecretBytes(copying: [1, 2, 3]), c = SecretBytes(copying: [1, 2, 4])
        #expect(a.isEqual(to: b))
        #expect(!a.isEqual(to: c))
        let zeros = SecretBytes(count: 4) { _ in }
        #expect(zeros.isAllZero)
        #expect(!a.isAllZero)
    }

    @Test("HKDF, HMAC and SHA-256 match independent values (Python cryptography, RFC 4231, FIPS 180)")
    func kdfVectors() throws {
        let ikm = SecretBytes(copying: [UInt8](repeating: 0x0b, count: 22))
        let derived = try HKDF.deriveKey(inputKey: ikm, salt: Array(0x00...0x0c), info: "payload")
        #expect(derived.bytes.hexString == "ab06eaff28963bf3dc225220ba106273bfb3f3bc0a6096851b6734eed62431a3")
        let noSalt = try HKDF.deriveKey(inputKey: ikm, salt: [], info: "header")
        #expect(noSalt.bytes.hexString == "024ad94f7b66468f65a7a97cfd80e44dd516d674cdf62c450e81c266117a89f2")
        let mac = try HMACSHA256.authenticate(key: SecretBytes(copying: [UInt8](repeating: 0x0b, count: 20)), message: Array("Hi There".utf8))
        #expect(mac.hexString == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(SHA256.hash(Array("abc".utf8)).hexString == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}

@Suite("STREAM pipeline")
struct PayloadPipelineTests {
    /// Small batches maximise hand-offs between the reader, worker and writer threads;
    /// an earlier version lost the last batch when a recycled batch was read after
    /// hand-off, and hung.
    @Test("many hand-offs: every chunk arrives, in order, in both directions")
    func manyHandOffs() throws {
        let key = try SecureRandom.secret(32)
        for round in 0..<60 {
            let size = 65536 * (1 + round % 7) + (round % 3 == 0 ? 0 : round * 101)
            let plain = (0..<size).map { UInt8(truncatingIfNeeded: $0 &+ round) }
            let sealed = MemorySink()
            try PayloadStream.encrypt(payloadKey: key, from: MemorySource(plain), to: sealed, chunksPerBatch: 1 + round % 2)
            let opened = MemorySink()
            try PayloadStream.decrypt(payloadKey: key, from: MemorySource(sealed.bytes), to: opened, chunksPerBatch: 1 + round % 3)
            #expect(opened.bytes == plain, "round \(round)")
        }
    }

    @Test("a failing chunk in a later batch: the earlier batches are released, then the error")
    func failureAcrossBatches() throws {
        let key = try SecureRandom.secret(32)
        let plain = [UInt8](repeating: 9, count: 10 * 65536)
        let sealed = MemorySink()
        try PayloadStream.encrypt(payloadKey: key, from: MemorySource(plain), to: sealed, chunksPerBatch: 3)
        var bytes = sealed.bytes
        bytes[7 * PayloadStream.sealedChunkSize + 5] ^= 0x80
        let opened = MemorySink()
        #expect(throws: AgeError.payload("chunk 7 failed to authenticate")) {
            try PayloadStream.decrypt(payloadKey: key, from: MemorySource(bytes), to: opened, chunksPerBatch: 3)
        }
        #expect(opened.bytes.count == 7 * 65536)
    }
}
