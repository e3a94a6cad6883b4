import Crypto
import Foundation
import VFSPolicyModel

/// Random tokens, codes and ids, and the hashes the database keeps instead of them.
enum Secrets {
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.hexString }

    /// A 256-bit device token.
    static func token() -> String { hex(randomBytes(32)) }

    /// A 128-bit id for devices, uploads, transfers, blobs and cloud entries.
    static func id() -> String { hex(randomBytes(16)) }

    /// A short id for policy items (as vfs-policy's: 8 hex digits).
    static func itemID() -> String { hex(randomBytes(4)) }

    /// An enrolment code people can type: 4 groups of 4 from an alphabet without
    /// look-alikes (about 80 bits), such as `K7QM-2WXD-PA9F-H3TN`.
    static func enrolmentCode() -> String {
        let alphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")
        let bytes = randomBytes(16)
        let chars = bytes.map { alphabet[Int($0) % alphabet.count] }
        return stride(from: 0, to: 16, by: 4).map { String(chars[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// Codes are compared without case, dashes or blanks.
    static func normalisedCode(_ code: String) -> String {
        code.uppercased().filter { $0 != "-" && !$0.isWhitespace }
    }

    static func hash(_ secret: String) -> String {
        hex(SHA256.hash(data: Array(secret.utf8)))
    }
}
