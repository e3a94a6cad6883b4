#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The parsers that read untrusted bytes, one entry each, for the libFuzzer harness
/// (`Fuzz/fuzz-harness`, built by `make fuzz`) and for the regression tests that replay
/// what the fuzzers found. Each entry feeds its bytes to the parser and ignores the
/// errors it throws: a thrown error is a refusal, which is fine; a crash, a trap or a
/// sanitizer report is the bug.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// The age header and its stanzas, then the payload if the CCTV test identity
    /// opens it (binary and armored files, as vfs-decrypt reads them).
    case header
    /// ASCII armor on its own: the decoding source read to the end.
    case armor
    /// Bech32 strings, and the recipient and identity parsers built on them.
    case bech32
    /// Identity files and recipients files (one key a line, comments).
    case keyfile
    /// The keychain file: magic, header, key slots, recipients table, and the body's
    /// entry list as if it had been decrypted.
    case keychain
    /// A bundle's manifest JSON and its path rules.
    case manifest
    /// The policy file's JSON, and one line of its log.
    case policy

    /// The identities of most CCTV vectors (X25519, and the hybrid vectors'), so that
    /// a mutated vector still reaches the stanza unwrap and the payload.
    static let cctvIdentities = [
        "AGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0",
        "AGE-SECRET-KEY-PQ-1HZLGZUPT4ETPKDEV8HSGFDCYZ4E522W0A7PU2LHT8EH9W6YLNC3SW78XKG",
    ]
    static let identities: [Identity] = cctvIdentities.compactMap { try? AgeIdentity($0) }

    /// Runs one input through this target's parser.
    package func run(_ bytes: [UInt8]) {
        switch self {
        case .header: Self.feedHeader(bytes)
        case .armor: Self.feedArmor(bytes)
        case .bech32: Self.feedBech32(bytes)
        case .keyfile: Self.feedKeyfile(bytes)
        case .keychain: Self.feedKeychain(bytes)
        case .manifest: _ = try? BundleManifest.decode(bytes)
        case .policy: Self.feedPolicy(bytes)
        }
    }

    private static func feedHeader(_ bytes: [UInt8]) {
        guard let decryptor = try? AgeDecryptor(source: MemorySource(bytes)) else { return }
        _ = decryptor.isPassphraseEncrypted
        // Bounded: the output is at most the input, and the payload reader refuses
        // anything after its last chunk.
        _ = try? decryptor.decrypt(identities: identities, to: MemorySink())
    }

    private static func feedArmor(_ bytes: [UInt8]) {
        let source = ArmorDecodingSource(BufferedSource(MemorySource(bytes)))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while let count = try? buffer.withUnsafeMutableBytes({ try source.read(into: $0) }), count > 0 {}
    }

    private static func feedBech32(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let decoded = Bech32.decode(text) {
            // What decodes must encode back to the same string, modulo case.
            let again = Bech32.encode(hrp: decoded.hrp, data: decoded.data)
            precondition(again == text.lowercased(), "bech32 round trip changed \(text) into \(again)")
        }
        _ = try? AgeRecipient(text)
        _ = try? AgeIdentity(text)
    }

    private static func feedKeyfile(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = try? KeyFile.identities(in: text, source: "fuzz")
        _ = try? KeyFile.recipients(in: text, source: "fuzz")
    }

    private static func feedKeychain(_ bytes: [UInt8]) {
        if let sealed = try? SealedKeychain(bytes: bytes, path: "fuzz") {
            _ = try? sealed.publicRecipients(named: ["all"])
            _ = sealed.headerAndMAC
        }
        // The body's plaintext layout, as if the input had decrypted to it.
        let plaintext = SecretBytes(copying: bytes)
        _ = try? KeychainBody.decode(plaintext)
        _ = try? KeychainBody.secret(in: plaintext, kind: .secret, service: "s", account: "a")
    }

    /// The fast reader must read as the decoder does, or decline: what it reads, the
    /// decoder reads to the same document (to the byte and the bit) and origin. (What it
    /// declines goes to the decoder itself, so there is nothing to compare.)
    private static func feedPolicy(_ bytes: [UInt8]) {
        if let fast = PolicyFastReader.document(bytes) {
            let reference: PolicyDocument? = try? PolicyCodec.decodeValue(bytes, source: "fuzz")
            precondition(reference.map { PolicyFastReader.identical(fast, $0) } == true,
                         "the fast policy reader disagrees with the decoder")
        }
        if let fast = PolicyFastReader.relayCopy(bytes) {
            let reference: RelayPolicyCache.CacheFile? = try? PolicyCodec.decodeValue(bytes, source: "fuzz")
            precondition(reference.map {
                PolicyFastReader.identical(PolicyDocument(items: fast.items), PolicyDocument(items: $0.items)) && fast.relay == $0.relay
            } == true, "the fast relay copy reader disagrees with the decoder")
        }
        _ = try? PolicyCodec.decode(bytes, source: "fuzz")
        _ = try? RelayPolicyCache.decode(bytes, source: "fuzz")
        let _: PolicyLogEntry? = try? PolicyCodec.decodeValue(bytes, source: "fuzz")
    }
}
