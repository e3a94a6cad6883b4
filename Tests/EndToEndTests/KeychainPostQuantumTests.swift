import Foundation
import Testing
import VFSTestSupport
import VFSCore

/// Post-quantum (ML-KEM-768 + X25519) identities kept in the keychain: made with
/// `identity new --pq` or imported from an identity file, and used by vfs-encrypt -K
/// (without the passcode) and vfs-decrypt -K.
@Suite("post-quantum identities in the keychain")
struct KeychainPostQuantumTests {
    /// The keychain file's format version (bytes 8 and 9).
    func version(_ kc: KeychainFixture) throws -> Int {
        let bytes = Array(try kc.bytes())
        return Int(bytes[8]) << 8 | Int(bytes[9])
    }

    @Test("identity new --pq: age1pq1 recipient; encrypt -K needs no passcode; decrypt -K opens it; format 3 while it is there")
    func newPostQuantum() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        #expect(try version(kc) == 2)
        let classic = try kc.run(["identity", "new", "laptop"], passcode: true)
        #expect(classic.status == 0)
        let made = try kc.run(["identity", "new", "--pq", "vault"], passcode: true)
        #expect(made.status == 0, "\(made.stderr)")
        let recipient = made.out.trimmingCharacters(in: .newlines)
        #expect(recipient.hasPrefix("age1pq1") && recipient.count > 1900)
        #expect(try version(kc) == 3)
        // The recipient from the header's table, without the passcode.
        #expect(try kc.run(["identity", "recipient", "vault"]).out == recipient + "\n")
        let listed = try kc.run(["identity", "list"], passcode: true)
        #expect(listed.out.contains("vault\t\(recipient)\n") && listed.out.contains("laptop\tage1"))

        let plain = testBytes(100_000, seed: 9)
        let input = try kc.scratch.write("plain", plain)
        let sealed = kc.scratch.path("plain.age")
        let encrypt = try kc.runTool("vfs-encrypt", ["-K", "vault", "-o", sealed, input])
        #expect(encrypt.status == 0, "\(encrypt.stderr)")
        #expect(try kc.scratch.read("plain.age").prefix(4000).range(of: Data("-> mlkem768x25519 ".utf8)) != nil)
        let decrypt = try kc.runTool("vfs-decrypt", ["-K", "vault", sealed], passcode: true)
        #expect(decrypt.status == 0, "\(decrypt.stderr)")
        #expect(decrypt.stdout == plain)
        // -K all tries both; the classic identity alone does not match.
        #expect(try kc.runTool("vfs-decrypt", ["-K", "all", sealed], passcode: true).stdout == plain)
        #expect(try kc.runTool("vfs-decrypt", ["-K", "laptop", sealed], passcode: true).status == 77)
        // Mixing a post-quantum and a classic recipient is refused, as with -r.
        #expect(try kc.runTool("vfs-encrypt", ["-K", "vault", "-K", "laptop", "-o", kc.scratch.path("mixed.age"), input]).status != 0)
        #expect(!kc.scratch.exists("mixed.age"))

        // In process: the entry and the header's table agree.
        let entries = try kc.openInProcess()
        let vault = try #require(entries.first { $0.service == "vault" })
        #expect(try vault.ageIdentity().recipient.string == recipient)
        // Without post-quantum identities the file goes back to format 2.
        #expect(try kc.run(["identity", "delete", "vault"], passcode: true).status == 0)
        #expect(try version(kc) == 2)
        #expect(try kc.run(["identity", "recipient", "laptop"]).status == 0)
    }

    @Test("identity import takes an AGE-SECRET-KEY-PQ-1 file and decrypts what age-style -r age1pq1 encrypted")
    func importPostQuantum() throws {
        let kc = try KeychainFixture()
        try kc.initialise()
        let file = kc.scratch.path("pq.txt")
        let keygen = try Tools.run("vfs-keygen", ["--pq", "-o", file])
        #expect(keygen.status == 0, "\(keygen.stderr)")
        let recipient = try Tools.run("vfs-keygen", ["-y", file]).out
        let imported = try kc.run(["identity", "import", "archive", file], passcode: true)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.out == recipient)
        let input = try kc.scratch.write("plain", Data("post-quantum\n".utf8))
        #expect(try Tools.run("vfs-encrypt", ["-r", recipient.trimmingCharacters(in: .newlines), "-o", kc.scratch.path("c.age"), input]).status == 0)
        let decrypt = try kc.runTool("vfs-decrypt", ["-K", "archive", kc.scratch.path("c.age")], passcode: true)
        #expect(decrypt.status == 0, "\(decrypt.stderr)")
        #expect(decrypt.out == "post-quantum\n")
        // The keychain keeps working across a passcode change (the body is sealed again).
        let changed = try kc.run(["passcode"], environment: ["VFS_PASSCODE": kc.passcode, "VFS_NEW_PASSCODE": "another one"])
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(try kc.runTool("vfs-decrypt", ["-K", "archive", kc.scratch.path("c.age")],
                               environment: ["VFS_PASSCODE": "another one"]).out == "post-quantum\n")
        #expect(try version(kc) == 3)
    }

    @Test("format 3 round-trips in VFSCore: typed recipients table; a bad type or length is damage")
    func formatThree() throws {
        let key = try KeychainFormat.newMasterKey()
        let header = try KeychainHeader.new(passcode: KeySlot.wrap(key, kind: .passcode, secret: SecretBytes(copying: Array("pw".utf8)), workFactor: 1))
        let pq = try HybridIdentity.generate(), classic = try X25519Identity.generate()
        let entries = [KeychainEntry(identityNamed: "pq", AgeIdentity.hybrid(pq), created: 1),
                       KeychainEntry(identityNamed: "classic", classic, created: 1)]
        let bytes = try KeychainFormat.seal(header: header, masterKey: key, entries: entries)
        #expect(bytes[8] == 0 && bytes[9] == 3)
        let sealed = try SealedKeychain(bytes: bytes, path: "k")
        #expect(try sealed.publicRecipients(named: ["pq"]) == [.hybrid(pq.recipient)])
        #expect(try sealed.publicRecipients(named: ["all"], masterKey: key) == [.hybrid(pq.recipient), .x25519(classic.recipient)])
        #expect(try sealed.open(masterKey: key).map { try $0.ageIdentity().recipient } == [.hybrid(pq.recipient), .x25519(classic.recipient)])
        // The type byte of the first recipient: after the header's fixed part and the tag.
        var damaged = bytes
        let typeOffset = bytes.count - sealed.bodyByteCount - 32 - (16 + 1 + 2 + 1216) - (16 + 1 + 2 + 32) + 16
        #expect(damaged[typeOffset] == 2)
        damaged[typeOffset] = 7
        #expect(throws: KeychainError.self) { try SealedKeychain(bytes: damaged, path: "k") }
    }
}
