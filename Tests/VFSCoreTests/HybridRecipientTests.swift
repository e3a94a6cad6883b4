import Testing
@testable import VFSCore

@Suite("hybrid post-quantum recipients")
struct HybridRecipientTests {
    /// The spec's example identity and the start and end of its recipient (C2SP age.md).
    static let specIdentity = "AGE-SECRET-KEY-PQ-1XX76JRALNLXDMEW0CRK45QMCCH4X06SE84UN3VPM33W6HWDX0H3SK3ZQFR"

    @Test("the spec's example identity gives the spec's recipient; strings round trip")
    func specExample() throws {
        let identity = try HybridIdentity(Self.specIdentity)
        #expect(identity.string == Self.specIdentity)
        let recipient = identity.recipient.string
        #expect(recipient.hasPrefix("age1pq1x34nzsvr0rxjsgdn8zgyhfe8j7ceq5r9rdelkjuh3y235jzxshfg87pzf5zrqtzdxz95paef6caq5aapdmwjjq"))
        #expect(recipient.hasSuffix("yzk3tlhl53k2ykx3qheyty7saeq0d3fzv49zc0k"))
        #expect(try HybridRecipient(recipient) == identity.recipient)
        #expect(try AgeRecipient(recipient) == .hybrid(identity.recipient))
        #expect(throws: AgeError.self) { try HybridRecipient(recipient.uppercased()) }
        #expect(throws: AgeError.self) { try AgeRecipient(String(recipient.dropLast())) }
        #expect(throws: AgeError.self) { try HybridIdentity("AGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0") }
    }

    @Test("encrypt to several post-quantum recipients; each identity opens it; a stranger does not")
    func roundTrip() throws {
        let a = try HybridIdentity.generate(), b = try HybridIdentity.generate(), stranger = try HybridIdentity.generate()
        let plain = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let sink = MemorySink()
        try AgeEncryptor.encrypt(to: [a.recipient, b.recipient], from: MemorySource(plain), to: sink)
        let decryptor = try AgeDecryptor(source: MemorySource(sink.bytes))
        #expect(decryptor.stanzaTypes == ["mlkem768x25519", "mlkem768x25519"])
        for identity in [a, b] {
            let out = MemorySink()
            try AgeDecryptor(source: MemorySource(sink.bytes)).decrypt(identities: [identity], to: out)
            #expect(out.bytes == plain)
        }
        #expect(throws: AgeError.self) { try AgeDecryptor(source: MemorySource(sink.bytes)).fileKey(identities: [stranger]) }
    }

    @Test("post-quantum and classic recipients are not mixed in one file")
    func noMixing() throws {
        let pq = try HybridIdentity.generate(), classic = try X25519Identity.generate()
        #expect(throws: AgeError.invalidKey("post-quantum (age1pq1…) and classic recipients can't be mixed in one file")) {
            try AgeEncryptor.encrypt(to: [AgeRecipient.hybrid(pq.recipient), AgeRecipient.x25519(classic.recipient)],
                                     from: MemorySource([1]), to: MemorySink())
        }
    }

    @Test("identity and recipient files hold both kinds")
    func keyFiles() throws {
        let pq = try HybridIdentity.generate(), classic = try X25519Identity.generate()
        let text = "# pq\n\(pq.string)\n\n\(classic.string)\n"
        let identities = try KeyFile.identities(in: text, source: "test")
        #expect(identities.map(\.recipient) == [.hybrid(pq.recipient), .x25519(classic.recipient)])
        let recipients = try KeyFile.recipients(in: "\(pq.recipient.string)\n\(classic.recipient.string)\n", source: "test")
        #expect(recipients == [.hybrid(pq.recipient), .x25519(classic.recipient)])
        let file = KeyFile.identityFileText(.hybrid(pq), created: "now")
        #expect(file.contains("# public key: \(pq.recipient.string)\n"))
        #expect(try KeyFile.identities(in: file, source: "test").map(\.string) == [pq.string])
    }

    @Test("a malformed stanza for this type is a header failure; other types are ignored")
    func malformedStanzas() throws {
        let identity = try HybridIdentity.generate()
        let good = try identity.recipient.wrap(fileKey: SecretBytes(copying: [UInt8](repeating: 1, count: 16)))[0]
        var extraArgument = good; extraArgument.arguments.append("x")
        var shortShare = good; shortShare.arguments[0] = Base64.encode([UInt8](repeating: 1, count: 1119))
        var longBody = good; longBody.body.append(0)
        for stanza in [extraArgument, shortShare, longBody] {
            #expect(throws: AgeError.self) { try identity.unwrap(stanzas: [stanza]) }
        }
        var other = good; other.type = "MLKEM768X25519"
        #expect(try identity.unwrap(stanzas: [other]) == nil)
        #expect(try identity.unwrap(stanzas: [good])?.bytes == [UInt8](repeating: 1, count: 16))
    }
}
