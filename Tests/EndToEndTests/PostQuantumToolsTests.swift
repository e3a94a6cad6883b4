import Foundation
import Testing
import VFSTestSupport

/// Hybrid post-quantum keys through vfs-keygen, vfs-encrypt and vfs-decrypt, and the
/// header limits as the tools meet them.
@Suite("post-quantum keys and header limits, end to end")
struct PostQuantumToolsTests {
    /// A new post-quantum identity file in `scratch`, and its recipient.
    func pqKeypair(_ scratch: TestFolder, _ name: String = "pq.txt") throws -> (path: String, recipient: String) {
        let path = scratch.path(name)
        let run = try Tools.run("vfs-keygen", ["--pq", "-o", path])
        #expect(run.status == 0, "\(run.stderr)")
        let recipient = run.stderr.replacingOccurrences(of: "Public key: ", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
        return (path, recipient)
    }

    @Test("vfs-keygen --pq writes an AGE-SECRET-KEY-PQ-1 identity, 0600; -y prints its age1pq1 recipient")
    func keygen() throws {
        let scratch = try TestFolder()
        let (path, recipient) = try pqKeypair(scratch)
        let lines = String(decoding: try scratch.read("pq.txt"), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[1] == "# public key: \(recipient)")
        #expect(lines[2].hasPrefix("AGE-SECRET-KEY-PQ-1") && lines[2].count == 77)
        #expect(recipient.hasPrefix("age1pq1") && recipient.count > 1900)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        #expect(try Tools.run("vfs-keygen", ["-y", path]).out == recipient + "\n")
        let other = try pqKeypair(scratch, "other.txt")
        #expect(other.recipient != recipient)
        #expect(try Tools.run("vfs-keygen", ["--pq", "-y", path]).status == 64)
    }

    @Test("encrypt with -r age1pq1…, -R and -i; decrypt with -i; a classic identity does not match")
    func roundTrip() throws {
        let scratch = try TestFolder()
        let a = try pqKeypair(scratch, "a.txt"), b = try pqKeypair(scratch, "b.txt")
        let plain = testBytes(3 * 65536 + 5, seed: 11)
        let input = try scratch.write("plain", plain)
        try scratch.write("recipients.txt", Data("# team\n\(b.recipient)\n".utf8))
        let encrypt = try Tools.run("vfs-encrypt", ["-r", a.recipient, "-R", scratch.path("recipients.txt"), "-o", scratch.path("c.age"), input])
        #expect(encrypt.status == 0, "\(encrypt.stderr)")
        let header = try scratch.read("c.age").prefix(8000)
        #expect(header.firstRange(of: Data("-> mlkem768x25519 ".utf8)) != nil)
        for key in [a, b] {
            let run = try Tools.run("vfs-decrypt", ["-i", key.path, scratch.path("c.age")])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == plain)
        }
        // -i on encrypt: to the identity's own recipient.
        #expect(try Tools.run("vfs-encrypt", ["-i", a.path, "-o", scratch.path("self.age"), input]).status == 0)
        #expect(try Tools.run("vfs-decrypt", ["-i", a.path, scratch.path("self.age")]).stdout == plain)
        let classic = scratch.path("classic.txt")
        #expect(try Tools.run("vfs-keygen", ["-o", classic]).status == 0)
        let wrong = try Tools.run("vfs-decrypt", ["-i", classic, "-o", scratch.path("out"), scratch.path("c.age")])
        #expect(wrong.status == 77)
        #expect(wrong.stderr.contains("mlkem768x25519"))
        #expect(!scratch.exists("out"))
    }

    @Test("post-quantum and classic recipients together are refused (64); a bad age1pq1 is 64")
    func mixingRefused() throws {
        let scratch = try TestFolder()
        let pq = try pqKeypair(scratch)
        let classic = scratch.path("classic.txt")
        let keygen = try Tools.run("vfs-keygen", ["-o", classic])
        let classicRecipient = keygen.stderr.replacingOccurrences(of: "Public key: ", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
        let input = try scratch.write("plain", Data("x".utf8))
        let mixed = try Tools.run("vfs-encrypt", ["-r", pq.recipient, "-r", classicRecipient, "-o", scratch.path("c.age"), input])
        #expect(mixed.status == 64)
        #expect(mixed.stderr.contains("can't be mixed"))
        #expect(!scratch.exists("c.age"))
        let bad = try Tools.run("vfs-encrypt", ["-r", String(pq.recipient.dropLast(3)) + "qqq", input])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("invalid post-quantum recipient"))
    }

    @Test("a 200 MB header line is refused with 65 without reading it, from a file and from a pipe")
    func hugeHeaderLine() throws {
        let scratch = try TestFolder()
        let key = scratch.path("key.txt")
        #expect(try Tools.run("vfs-keygen", ["-o", key]).status == 0)
        let path = try scratch.write("huge.age", Data("age-encryption.org/v1\n-> X25519 ".utf8))
        // A sparse file: a 200 MB line of NULs costs no disk.
        #expect(truncate(path, 200_000_000) == 0)
        let run = try Tools.run("vfs-decrypt", ["-i", key, "-o", scratch.path("out"), path])
        #expect(run.status == 65)
        #expect(run.stderr.contains("a header line is longer than 16384 bytes"), "\(run.stderr)")
        #expect(!scratch.exists("out"))
        let piped = try Tools.run("bash", ["-c", "head -c 50000000 \"$1\" | \"$2\" -i \"$3\"", "-", path,
                                            Tools.binDir.appendingPathComponent("vfs-decrypt").path, key])
        #expect(piped.status == 65)
        #expect(piped.stderr.contains("longer than"))
    }
}
