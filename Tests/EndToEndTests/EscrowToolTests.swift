import Foundation
import Testing
import VFSTestSupport

/// `vfs-keychain escrow split` and `join` as an organisation uses them: three officers'
/// identities, shares written for them, any two rebuilding the secret (issue 49).
@Suite("vfs-keychain escrow")
struct EscrowToolTests {
    final class Officers {
        let scratch: TestFolder
        let keys: [String]
        let recipients: [String]

        init(_ count: Int = 3) throws {
            scratch = try TestFolder("escrow")
            var keys: [String] = [], recipients: [String] = []
            for n in 1...count {
                let key = scratch.path("officer\(n).key")
                let made = try Tools.run("vfs-keygen", ["-o", key])
                #expect(made.status == 0, "\(made.stderr)")
                keys.append(key)
                recipients.append(try Tools.run("vfs-keygen", ["-y", key]).out.trimmingCharacters(in: .newlines))
            }
            self.keys = keys
            self.recipients = recipients
        }

        func path(_ name: String) -> String { scratch.path(name) }

        @discardableResult
        func split(_ secret: Data, prefix: String = "share", shares: Int = 3, threshold: Int = 2, to: [String]? = nil, extra: [String] = []) throws -> Run {
            let arguments = ["escrow", "split", "--shares", String(shares), "--threshold", String(threshold), "-o", path(prefix)]
                + (to ?? recipients).flatMap { ["--to", $0] } + extra
            return try Tools.run("vfs-keychain", arguments, stdin: secret)
        }

        func join(_ shares: [String], identities: [String]? = nil) throws -> Run {
            try Tools.run("vfs-keychain", ["escrow", "join"] + (identities ?? keys).flatMap { ["-i", $0] } + shares.map(path))
        }
    }

    @Test("2 of 3: each share is an age file for its officer alone (one X25519 stanza); every pair rebuilds the secret byte for byte, each single share is refused (64)")
    func twoOfThree() throws {
        let officers = try Officers()
        let secret = Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let split = try officers.split(secret)
        #expect(split.status == 0, "\(split.stderr)")
        let names = (1...3).map { "share-\($0).age" }
        for (n, name) in names.enumerated() {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: officers.path(name)))
            let header = String(decoding: bytes.prefix(400), as: UTF8.self)
            #expect(header.components(separatedBy: "\n-> ").count - 1 == 1, "one stanza in \(name)")
            for (m, key) in officers.keys.enumerated() {
                let opened = try Tools.run("vfs-decrypt", ["-i", key, officers.path(name)])
                #expect((opened.status == 0) == (m == n), "\(name) with officer \(m + 1)'s key")
                if m == n { #expect(opened.out.hasPrefix("vfs-escrow-share v1\n") && opened.out.contains("share: \(n + 1) of 3\nthreshold: 2\n")) }
            }
            var info = stat()
            #expect(stat(officers.path(name), &info) == 0 && info.st_mode & 0o777 == 0o600)
        }
        for pair in [[0, 1], [0, 2], [1, 2], [2, 0]] {
            let joined = try officers.join(pair.map { names[$0] })
            #expect(joined.status == 0, "\(joined.stderr)")
            #expect(joined.stdout == secret)
        }
        for name in names {
            let alone = try officers.join([name])
            #expect(alone.status == 64)
            #expect(alone.stderr.contains("1 share given; this split needs 2"), "\(alone.stderr)")
            #expect(alone.stdout.isEmpty)
        }
    }

    @Test("join takes shares decrypted beforehand (vfs-decrypt by each officer), and needs no -i for them; an encrypted share without -i is 64, with another's key 77")
    func decryptedShares() throws {
        let officers = try Officers()
        let secret = Data("AAAA-BBBB-CCCC-DDDD\n".utf8)
        #expect(try officers.split(secret).status == 0)
        for n in [1, 3] {
            let opened = try Tools.run("vfs-decrypt", ["-i", officers.keys[n - 1], "-o", officers.path("plain-\(n)"), officers.path("share-\(n).age")])
            #expect(opened.status == 0, "\(opened.stderr)")
        }
        let joined = try officers.join(["plain-1", "plain-3"], identities: [])
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(joined.stdout == secret)
        let mixed = try officers.join(["plain-1", "share-2.age"], identities: [officers.keys[1]])
        #expect(mixed.stdout == secret)
        let noKey = try officers.join(["plain-1", "share-2.age"], identities: [])
        #expect(noKey.status == 64, "\(noKey.stderr)")
        let wrongKey = try officers.join(["plain-1", "share-2.age"], identities: [officers.keys[0]])
        #expect(wrongKey.status == 77, "\(wrongKey.stderr)")
        #expect(wrongKey.stdout.isEmpty)
    }

    @Test("a share of another split is refused (65) and nothing is printed; an altered share fails the checksum (65)")
    func wrongShare() throws {
        let officers = try Officers()
        #expect(try officers.split(Data("first secret".utf8), prefix: "a").status == 0)
        #expect(try officers.split(Data("first secret".utf8), prefix: "b").status == 0)
        let mixed = try officers.join(["a-1.age", "b-2.age"])
        #expect(mixed.status == 65 && mixed.stderr.contains("different splits"), "\(mixed.stderr)")
        #expect(mixed.stdout.isEmpty)
        // The second split's share 2, relabelled with the first split's id: only the checksum tells.
        let one = try Tools.run("vfs-decrypt", ["-i", officers.keys[0], officers.path("a-1.age")]).out
        let two = try Tools.run("vfs-decrypt", ["-i", officers.keys[1], officers.path("b-2.age")]).out
        let splitLine = one.split(separator: "\n")[1]
        let forged = two.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { $0.offset == 1 ? splitLine : $0.element }.joined(separator: "\n")
        try Data(one.utf8).write(to: URL(fileURLWithPath: officers.path("one")))
        try Data(forged.utf8).write(to: URL(fileURLWithPath: officers.path("forged")))
        let checked = try officers.join(["one", "forged"], identities: [])
        #expect(checked.status == 65 && checked.stderr.contains("checksum"), "\(checked.stderr)")
        #expect(checked.stdout.isEmpty)
        try Data("not a share\n".utf8).write(to: URL(fileURLWithPath: officers.path("junk")))
        #expect(try officers.join(["one", "junk"]).status == 65)
    }

    @Test("the shares of the Python reference's fixed split join through the tool to its secret")
    func referenceShares() throws {
        let officers = try Officers()
        let reference = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("tools/shamir-reference.py").path
        let secret = Array("break glass".utf8)
        let rows = [Array(repeating: UInt8(0xA5), count: secret.count + 16), Array(0..<UInt8(secret.count + 16))]
        let texts = try Tools.run("python3", [reference, "shares", Data(secret).map { String(format: "%02x", $0) }.joined(),
                                              String(repeating: "ab", count: 16), "4"] + rows.map { $0.map { String(format: "%02x", $0) }.joined() })
        #expect(texts.status == 0, "\(texts.stderr)")
        let shares = texts.out.components(separatedBy: "vfs-escrow-share v1\n").dropFirst().map { "vfs-escrow-share v1\n" + $0 }
        #expect(shares.count == 4)
        for (n, text) in shares.enumerated() { try Data(text.utf8).write(to: URL(fileURLWithPath: officers.path("ref-\(n + 1)"))) }
        let joined = try officers.join(["ref-4", "ref-2", "ref-1"], identities: [])
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(Array(joined.stdout) == secret)
        #expect(try officers.join(["ref-4", "ref-2"], identities: []).status == 64)
    }

    @Test("split's usage errors write no share: not one --to per share, one officer twice, a threshold out of range, an empty secret (64), a share file that exists (73)")
    func usage() throws {
        let officers = try Officers()
        let secret = Data("s".utf8)
        let cases: [(Run, Int32)] = [
            (try officers.split(secret, to: Array(officers.recipients.prefix(2))), 64),
            (try officers.split(secret, to: [officers.recipients[0], officers.recipients[1], officers.recipients[0]]), 64),
            (try officers.split(secret, threshold: 4), 64),
            (try officers.split(secret, threshold: 1), 64),
            (try officers.split(Data()), 64),
            (try officers.split(secret, to: officers.recipients.map { _ in "age1notarecipient" }), 64),
        ]
        for (run, status) in cases { #expect(run.status == status, "\(run.stderr)") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: officers.scratch.path).filter { $0.hasPrefix("share") }.isEmpty)
        try Data("taken".utf8).write(to: URL(fileURLWithPath: officers.path("share-3.age")))
        let taken = try officers.split(secret)
        #expect(taken.status == 73, "\(taken.stderr)")
        #expect(!FileManager.default.fileExists(atPath: officers.path("share-1.age")))
    }
}
