/// One share of an escrowed secret, as `vfs-keychain escrow split` writes it (inside an
/// age file for one officer) and `escrow join` reads it:
///
///     vfs-escrow-share v1
///     split: 32 hex digits (random, the same in every share of one split)
///     share: I of N
///     threshold: K
///     value: base64 of the share's bytes
///
/// What is shared is the secret followed by the first 16 bytes of its SHA-256: join
/// checks that checksum, so a share that was altered, or forged under another split's
/// name, is refused rather than turned into a wrong secret. The checksum is inside the
/// shared bytes, not in the header, because a checksum in the clear would let one
/// officer test guesses of a guessable secret; the split's id in the header is random
/// and says only which shares belong together.
package struct EscrowShare: Equatable, Sendable {
    package static let magic = "vfs-escrow-share v1"
    package static let splitIDCount = 16
    package static let checksumCount = 16
    /// A recovery key, a passphrase, a small key file: a share is meant for paper too.
    package static let maxSecretCount = 4096

    package let splitID: [UInt8]
    package let index: Int
    package let count: Int
    package let threshold: Int
    package let value: [UInt8]

    package init(splitID: [UInt8], index: Int, count: Int, threshold: Int, value: [UInt8]) {
        self.splitID = splitID
        self.index = index
        self.count = count
        self.threshold = threshold
        self.value = value
    }

    /// Splits `secret` into `count` shares, any `threshold` of which rebuild it.
    package static func split(_ secret: [UInt8], count: Int, threshold: Int) throws -> [EscrowShare] {
        try check(secretCount: secret.count, count: count, threshold: threshold)
        var payload = secret + SHA256.hash(secret).prefix(checksumCount)
        defer { payload.wipe() }
        return make(splitID: try SecureRandom.bytes(splitIDCount), threshold: threshold,
                    values: try Shamir.split(payload, count: count, threshold: threshold))
    }

    /// `split` with a given split id and coefficients (threshold-1 rows of secret.count+16
    /// bytes): the test vectors' way in.
    package static func split(_ secret: [UInt8], count: Int, splitID: [UInt8], coefficients: [[UInt8]]) throws -> [EscrowShare] {
        try check(secretCount: secret.count, count: count, threshold: coefficients.count + 1)
        let payload = secret + SHA256.hash(secret).prefix(checksumCount)
        return make(splitID: splitID, threshold: coefficients.count + 1, values: Shamir.split(payload, count: count, coefficients: coefficients))
    }

    private static func make(splitID: [UInt8], threshold: Int, values: [[UInt8]]) -> [EscrowShare] {
        values.enumerated().map { EscrowShare(splitID: splitID, index: $0.offset + 1, count: values.count, threshold: threshold, value: $0.element) }
    }

    private static func check(secretCount: Int, count: Int, threshold: Int) throws {
        guard secretCount > 0 else { throw EscrowError.emptySecret }
        guard secretCount <= maxSecretCount else { throw EscrowError.secretTooLarge(secretCount) }
        guard (2...Shamir.maxShares).contains(count) else { throw EscrowError.badCounts("--shares must be from 2 to \(Shamir.maxShares), not \(count)") }
        guard (2...count).contains(threshold) else { throw EscrowError.badCounts("--threshold must be from 2 to the number of shares (\(count)), not \(threshold)") }
    }

    /// Rebuilds the secret from shares of one split, at least its threshold of them
    /// (in any order; the first `threshold` distinct ones are used, the others must agree
    /// on the split). Throws `EscrowError` for too few, mixed or altered shares.
    package static func join(_ shares: [EscrowShare]) throws -> [UInt8] {
        guard let first = shares.first else { throw EscrowError.tooFew(given: 0, needed: 2) }
        for share in shares.dropFirst() {
            guard share.splitID == first.splitID else { throw EscrowError.mixedSplits }
            guard share.threshold == first.threshold, share.count == first.count, share.value.count == first.value.count else {
                throw EscrowError.inconsistent(index: share.index)
            }
        }
        var seen = Set<Int>()
        for share in shares where !seen.insert(share.index).inserted { throw EscrowError.duplicate(index: share.index) }
        guard shares.count >= first.threshold else { throw EscrowError.tooFew(given: shares.count, needed: first.threshold) }
        var payload = Shamir.combine(shares.prefix(first.threshold).map { (UInt8($0.index), $0.value) })
        defer { payload.wipe() }
        let secret = Array(payload.dropLast(checksumCount))
        guard HMACSHA256.equal(Array(SHA256.hash(secret).prefix(checksumCount)), Array(payload.suffix(checksumCount))) else {
            throw EscrowError.checksum
        }
        return secret
    }

    /// The share as text (what is encrypted for its officer).
    package var text: String {
        """
        \(Self.magic)
        split: \(splitID.hexString)
        share: \(index) of \(count)
        threshold: \(threshold)
        value: \(Base64.encode(value, padded: true))

        """
    }

    /// Whether `bytes` look like a share's text (rather than an age file holding one).
    package static func isShareText(_ bytes: [UInt8]) -> Bool { bytes.starts(with: Array((magic + "\n").utf8)) }

    /// Parses a share's text strictly: the five lines in order, nothing else.
    package init(text bytes: [UInt8], source: String) throws {
        func invalid(_ reason: String) -> EscrowError { .invalidShare(source: source, reason: reason) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw invalid("not UTF-8 text") }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 6, lines[5].isEmpty, lines[0] == Self.magic else { throw invalid("not a vfs-escrow-share v1 text of five lines") }
        func field(_ line: Int, _ name: String) throws -> Substring {
            let prefix = name + ": "
            guard lines[line].hasPrefix(prefix) else { throw invalid("line \(line + 1) is not \"\(name): …\"") }
            return lines[line].dropFirst(prefix.count)
        }
        guard let id = KeychainEpochs.bytes(hex: try field(1, "split")), id.count == Self.splitIDCount else {
            throw invalid("the split id is not \(Self.splitIDCount * 2) lowercase hex digits")
        }
        let position = try field(2, "share").split(separator: " ", omittingEmptySubsequences: false)
        guard position.count == 3, position[1] == "of", let index = Self.number(position[0]), let count = Self.number(position[2]),
              (2...Shamir.maxShares).contains(count), (1...count).contains(index) else {
            throw invalid("\"share:\" is not I of N with 1 ≤ I ≤ N ≤ \(Shamir.maxShares)")
        }
        guard let threshold = Self.number(try field(3, "threshold")), (2...count).contains(threshold) else {
            throw invalid("the threshold is not from 2 to \(count)")
        }
        guard let value = Base64.decode(Array(try field(4, "value").utf8), padded: true),
              (Self.checksumCount + 1...Self.maxSecretCount + Self.checksumCount).contains(value.count) else {
            throw invalid("the value is not base64 of \(Self.checksumCount + 1) to \(Self.maxSecretCount + Self.checksumCount) bytes")
        }
        self.init(splitID: id, index: index, count: count, threshold: threshold, value: value)
    }

    /// A decimal number without sign or leading zeros.
    private static func number(_ text: Substring) -> Int? {
        guard let first = text.first, first != "0" || text.count == 1, text.count <= 3, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}

/// Why a split or a join was refused.
package enum EscrowError: Error, Equatable, CustomStringConvertible {
    case emptySecret
    case secretTooLarge(Int)
    case badCounts(String)
    case invalidShare(source: String, reason: String)
    case mixedSplits
    case inconsistent(index: Int)
    case duplicate(index: Int)
    case tooFew(given: Int, needed: Int)
    case checksum

    package var description: String {
        switch self {
        case .emptySecret: return "the secret is empty"
        case .secretTooLarge(let count): return "the secret is \(count) bytes; escrow splits at most \(EscrowShare.maxSecretCount)"
        case .badCounts(let message): return message
        case .invalidShare(let source, let reason): return "\(source) is not an escrow share: \(reason)"
        case .mixedSplits: return "the shares come from different splits"
        case .inconsistent(let index): return "share \(index) disagrees with the others on the split's size or threshold"
        case .duplicate(let index): return "share \(index) was given twice"
        case .tooFew(let given, let needed): return "\(given) share\(given == 1 ? "" : "s") given; this split needs \(needed)"
        case .checksum: return "the shares do not rebuild the secret: its checksum does not match (a share was altered or forged)"
        }
    }
}

extension EscrowShare {
    /// The share's text as an age file for its officer.
    package func sealed(to recipient: Recipient, armor: Bool) throws -> [UInt8] {
        let sink = MemorySink()
        var plaintext = Array(text.utf8)
        defer { plaintext.wipe() }
        try AgeEncryptor.encrypt(to: [recipient], from: MemorySource(plaintext), to: sink, armor: armor)
        return sink.bytes
    }

    /// A share from a file: its text as it is, or an age file holding it that one of
    /// `identities` opens (AgeError.noMatch when none does).
    package static func read(_ bytes: [UInt8], identities: [Identity], source: String) throws -> EscrowShare {
        if isShareText(bytes) { return try EscrowShare(text: bytes, source: source) }
        let sink = MemorySink()
        try AgeDecryptor(source: MemorySource(bytes)).decrypt(identities: identities, to: sink)
        var plaintext = sink.bytes
        defer { plaintext.wipe() }
        return try EscrowShare(text: plaintext, source: source)
    }
}
