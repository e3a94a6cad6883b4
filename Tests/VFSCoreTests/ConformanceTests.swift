import CZlib
import Foundation
import Testing
@testable import VFSCore

/// The CCTV age conformance suite, read in place from ../shared/testdata/cctv-age.
struct ConformanceVector: CustomTestStringConvertible, Sendable {
    let name: String
    let expect: String
    let payloadHash: String?
    let identities: [String]
    let passphrases: [String]
    let armored: Bool
    let body: [UInt8]

    var testDescription: String { name }

    static let folder: URL = {
        // Tests/VFSCoreTests/ConformanceTests.swift → project root → ../shared
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.deletingLastPathComponent().appendingPathComponent("shared/testdata/cctv-age")
    }()

    static func all() -> [ConformanceVector] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().compactMap { try? load($0) }
    }

    static func load(_ name: String) throws -> ConformanceVector {
        let data = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
        var index = 0
        var fields: [(String, String)] = []
        while true {
            let lf = data[index...].firstIndex(of: 0x0A)!
            let line = String(decoding: data[index..<lf], as: UTF8.self)
            index = lf + 1
            if line.isEmpty { break }
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            fields.append((parts[0], parts.count > 1 ? parts[1] : ""))
        }
        var body = Array(data[index...])
        if fields.contains(where: { $0 == ("compressed", "zlib") }) { body = try inflate(body) }
        return ConformanceVector(
            name: name,
            expect: fields.first { $0.0 == "expect" }!.1,
            payloadHash: fields.first { $0.0 == "payload" }?.1,
            identities: fields.filter { $0.0 == "identity" }.map(\.1),
            passphrases: fields.filter { $0.0 == "passphrase" }.map(\.1),
            armored: fields.contains { $0 == ("armored", "yes") },
            body: body)
    }

    static func inflate(_ input: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { throw CocoaError(.fileReadCorruptFile) }
        defer { inflateEnd(&stream) }
        var output = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var input = input
        let status: Int32 = input.withUnsafeMutableBufferPointer { inBuf in
            stream.next_in = inBuf.baseAddress
            stream.avail_in = UInt32(inBuf.count)
            var rc: Int32 = Z_OK
            repeat {
                rc = chunk.withUnsafeMutableBufferPointer { outBuf in
                    stream.next_out = outBuf.baseAddress
                    stream.avail_out = UInt32(outBuf.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                output += chunk[0..<(chunk.count - Int(stream.avail_out))]
            } while rc == Z_OK
            return rc
        }
        guard status == Z_STREAM_END else { throw CocoaError(.fileReadCorruptFile) }
        return output
    }

    /// Decrypts as the reference harness does; returns the outcome class and the
    /// plaintext released before any error.
    func run() -> (outcome: String, released: [UInt8], error: String?) {
        let sink = MemorySink()
        do {
            var identities: [Identity] = try identities.map { try AgeIdentity($0) }
            identities += passphrases.map { ScryptIdentity(passphrase: SecretBytes(copying: Array($0.utf8))) }
            let decryptor = try AgeDecryptor(source: MemorySource(body), armored: armored)
            let fileKey = try decryptor.fileKey(identities: identities)
            try decryptor.decrypt(fileKey: fileKey, to: sink)
            return ("success", sink.bytes, nil)
        } catch let error as AgeError {
            let outcome: String
            switch error {
            case .header, .workFactorTooLarge: outcome = "header failure"
            case .noMatch: outcome = "no match"
            case .headerMAC: outcome = "HMAC failure"
            case .payload: outcome = "payload failure"
            case .armor: outcome = "armor failure"
            case .invalidKey, .encryptedSSHKey: outcome = "invalid key"
            }
            return (outcome, sink.bytes, error.description)
        } catch {
            return ("unexpected \(type(of: error))", sink.bytes, "\(error)")
        }
    }
}

@Suite("CCTV age conformance")
struct ConformanceTests {
    static let vectors = ConformanceVector.all()

    @Test("the suite is present and complete, post-quantum vectors included")
    func suitePresent() {
        #expect(Self.vectors.count == 143, "expected 143 vectors in \(ConformanceVector.folder.path)")
        #expect(Self.vectors.filter { $0.identities.contains { $0.hasPrefix("AGE-SECRET-KEY-PQ-") } }.count == 19)
    }

    @Test("vector", arguments: ConformanceTests.vectors)
    func vector(_ vector: ConformanceVector) {
        let result = vector.run()
        #expect(result.outcome == vector.expect, "\(vector.name): \(result.error ?? "succeeded")")
        if let hash = vector.payloadHash, vector.expect == "success" || vector.expect == "payload failure" {
            #expect(SHA256.hash(result.released).hexString == hash, "\(vector.name): released plaintext hash")
        } else {
            #expect(result.released.isEmpty, "\(vector.name): released plaintext on \(vector.expect)")
        }
    }
}
