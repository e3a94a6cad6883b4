import Foundation
import Testing
@testable import VFSCore

@Suite("age header rewrap (rekey)")
struct HeaderRewrapTests {
    func encrypt(_ plaintext: [UInt8], to recipients: [Recipient]) throws -> [UInt8] {
        let sink = MemorySink()
        try AgeEncryptor.encrypt(to: recipients, from: MemorySource(plaintext), to: sink)
        return sink.bytes
    }

    func decrypt(_ file: [UInt8], _ identity: Identity) throws -> [UInt8] {
        let sink = MemorySink()
        try AgeDecryptor(source: MemorySource(file)).decrypt(identities: [identity], to: sink)
        return sink.bytes
    }

    @Test("a reader writes a header for new recipients; the same payload then opens for them, not for a dropped one")
    func rewrap() throws {
        let a = try X25519Identity.generate(), b = try X25519Identity.generate(), c = try X25519Identity.generate()
        let plaintext = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let file = try encrypt(plaintext, to: [a.recipient, c.recipient])
        let decryptor = try AgeDecryptor(source: MemorySource(file))
        let length = decryptor.headerLength
        #expect(String(decoding: file[(length - 49)..<length], as: UTF8.self).hasPrefix("\n--- "))
        let header = try decryptor.rewrappedHeader(fileKey: decryptor.fileKey(identities: [a]), recipients: [a.recipient, b.recipient])
        let rekeyed = header + file[length...]
        #expect(try decrypt(rekeyed, b) == plaintext)
        #expect(try decrypt(rekeyed, a) == plaintext)
        #expect(throws: AgeError.self) { try decrypt(rekeyed, c) }
        // c could open the old file, but cannot rekey the new one.
        #expect(try decrypt(file, c) == plaintext)
        #expect(throws: AgeError.self) { try AgeDecryptor(source: MemorySource(rekeyed)).fileKey(identities: [c]) }
        // A header with another file key does not fit the payload.
        let stranger = try encrypt([1, 2, 3], to: [b.recipient])
        let strangerLength = try AgeDecryptor(source: MemorySource(stranger)).headerLength
        #expect(throws: AgeError.self) { try decrypt(Array(stranger[..<strangerLength]) + file[length...], b) }
    }
}
