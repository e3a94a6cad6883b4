import Foundation
import Testing
@testable import VFSBundle
@testable import VFSCore

/// What the libFuzzer targets (`make fuzz`) start from and what they found: every
/// committed seed and crasher runs through its target in the normal suite, and each
/// crasher also has a test of its own below that says what the parser must answer.
@Suite("fuzz seeds and crashers")
struct FuzzRegressionTests {
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    /// The files under Fuzz/FOLDER/TARGET/, by target.
    static func inputs(_ folder: String) throws -> [(target: FuzzTarget, name: String, bytes: [UInt8])] {
        let base = root.appendingPathComponent(folder)
        var out: [(FuzzTarget, String, [UInt8])] = []
        for target in FuzzTarget.allCases {
            let dir = base.appendingPathComponent(target.rawValue)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            for name in names.sorted() {
                out.append((target, name, Array(try Data(contentsOf: dir.appendingPathComponent(name)))))
            }
        }
        return out
    }

    @Test("every seed and every kept crasher runs through its target without a trap")
    func replay() throws {
        let all = try Self.inputs("seeds") + Self.inputs("crashers")
        #expect(all.count >= 8)
        for input in all { input.target.run(input.bytes) }
    }

    @Test("the seeds are inputs the parsers accept, so fuzzing starts from the valid formats")
    func seedsAreValid() throws {
        for seed in try Self.inputs("seeds") {
            let text = String(decoding: seed.bytes, as: UTF8.self)
            switch seed.target {
            case .keychain: #expect(throws: Never.self, "\(seed.name)") { try SealedKeychain(bytes: seed.bytes, path: "seed") }
            case .manifest: #expect(throws: Never.self, "\(seed.name)") { try BundleManifest.decode(seed.bytes) }
            case .policy:
                let document = try? PolicyCodec.decode(seed.bytes, source: "seed")
                let line: PolicyLogEntry? = try? PolicyCodec.decodeValue(seed.bytes, source: "seed")
                #expect(document != nil || line != nil, "\(seed.name)")
            case .bech32: #expect(throws: Never.self, "\(seed.name)") { try AgeRecipient(text.trimmingCharacters(in: .whitespacesAndNewlines)) }
            case .keyfile:
                let identities = try? KeyFile.identities(in: text, source: "seed")
                let recipients = try? KeyFile.recipients(in: text, source: "seed")
                #expect(identities != nil || recipients != nil, "\(seed.name)")
            case .header, .armor: #expect(throws: Never.self) { try AgeDecryptor(source: MemorySource(seed.bytes)) }
            }
        }
    }
}
