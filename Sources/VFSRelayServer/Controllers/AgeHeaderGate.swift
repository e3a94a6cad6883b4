import Foundation
import NIOCore
import VFSRelayProtocol

/// What the relay checks of an age file sent in through a file request, as its header
/// streams in (docs/relay.md, "File requests"). An X25519 stanza holds an ephemeral share
/// and the file key wrapped under a key only the recipient's private key derives, and the
/// header's MAC is keyed by the file key: without keys, nothing ties a stanza to one
/// recipient. What can be checked is the shape: the age v1 header, binary (not armored),
/// at most `maxHeader` bytes, every stanza well formed, exactly one X25519 stanza per
/// recipient of the request, and no stanza of another kind (a passphrase's scrypt, a
/// plugin's) but rage's grease (a type ending in `-grease`), which carries no key. A body
/// that fails any of it is 415 before a byte of it is kept.
struct AgeHeaderCheck: Sendable {
    /// The longest header taken: a stanza is about 110 bytes, and a request names at most
    /// `FileRequestController.maxRecipients` recipients.
    static let maxHeader = 16 * 1024
    static let intro = Array("age-encryption.org/v1\n".utf8)

    /// The X25519 stanzas the header must hold.
    let recipients: Int

    static func refusal(_ why: String) -> RelayError {
        RelayError(.unsupportedMediaType, .unsupportedMediaType, "not an age file for this request's recipients: \(why)")
    }

    /// The header's length once `bytes` (the body's beginning) hold all of it and it
    /// passes; nil while more is needed. `ended`: the body has no more.
    func headerLength(_ bytes: [UInt8], ended: Bool) throws -> Int? {
        let prefix = min(bytes.count, Self.intro.count)
        guard bytes[..<prefix].elementsEqual(Self.intro[..<prefix]) else {
            if bytes.starts(with: Array("-----BEGIN AGE".utf8)) { throw Self.refusal("it is armored (age -a); send the binary file") }
            throw Self.refusal("it does not begin with the age v1 header (age-encryption.org/v1)")
        }
        var lines = [ArraySlice<UInt8>]()
        var start = 0
        var end: Int?
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            let line = bytes[start..<index]
            lines.append(line)
            start = index + 1
            if line.starts(with: Array("---".utf8)) {
                end = start
                break
            }
            if start > Self.maxHeader { break }
        }
        guard let end, end <= Self.maxHeader else {
            if bytes.count > Self.maxHeader { throw Self.refusal("its header is longer than \(Self.maxHeader) bytes") }
            if ended { throw Self.refusal("it ends inside its header") }
            return nil
        }
        try check(lines.map { String(decoding: $0, as: UTF8.self) })
        return end
    }

    /// The header's lines: the version line, the stanzas, the MAC line.
    func check(_ lines: [String]) throws {
        var x25519 = 0
        var index = 1
        let last = lines.count - 1
        while index < last {
            let line = lines[index]
            guard line.hasPrefix("-> ") else { throw Self.refusal("header line \(index + 1) is not a stanza") }
            let arguments = line.dropFirst(3).split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            var body = [String]()
            index += 1
            while true {
                guard index < last else { throw Self.refusal("a stanza's body does not end") }
                let bodyLine = lines[index]
                index += 1
                body.append(bodyLine)
                if bodyLine.utf8.count < 64 { break }
            }
            let type = arguments[0]
            switch type {
            case "X25519":
                guard arguments.count == 2, Self.isBase64(arguments[1], bytes: 32), body.count == 1, Self.isBase64(body[0], bytes: 32) else {
                    throw Self.refusal("an X25519 stanza is malformed")
                }
                x25519 += 1
            case "scrypt":
                throw Self.refusal("it is encrypted to a passphrase (an scrypt stanza); encrypt it with age -r to the request's recipients")
            default:
                guard type.hasSuffix("-grease"), body.allSatisfy({ Self.isBase64($0, bytes: nil) }) else {
                    throw Self.refusal("it has a stanza of type \"\(Validate.shown(type))\"; this request takes X25519 recipients only")
                }
            }
        }
        guard lines[last].hasPrefix("--- "), Self.isBase64(String(lines[last].dropFirst(4)), bytes: 32) else {
            throw Self.refusal("its header's MAC line is malformed")
        }
        guard x25519 == recipients else {
            throw Self.refusal("it is encrypted to \(x25519) X25519 recipient(s); this request has \(recipients)")
        }
    }

    /// age's base64: the standard alphabet without padding; `bytes` of them when given.
    static func isBase64(_ text: String, bytes: Int?) -> Bool {
        guard text.utf8.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0)
            || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") }) else {
            return false
        }
        let padded = text + String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: padded) else { return false }
        return bytes.map { data.count == $0 } ?? true
    }
}

/// A file request's body as the blob store reads it: held back until its age header is
/// whole and passes `AgeHeaderCheck` (415 otherwise), then passed on as it comes.
struct AgeHeaderGate<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    let base: Base
    let check: AgeHeaderCheck

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let check: AgeHeaderCheck
        var passed = false

        mutating func next() async throws -> ByteBuffer? {
            if passed { return try await base.next() }
            var held = [UInt8]()
            while true {
                let chunk = try await base.next()
                if let chunk { held += chunk.readableBytesView }
                if try check.headerLength(held, ended: chunk == nil) != nil {
                    passed = true
                    return ByteBuffer(bytes: held)
                }
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), check: check) }
}
