import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore

/// The pass-like operations of the keychain store (generate, edit, mv, cp, find,
/// export), the secret generator, and the private scratch file edit uses.
@Suite("keychain pass operations")
struct PassOperationsTests: KeychainFixtureHelpers {
    @Test("writeSecret: create refuses an existing entry, replace a missing one, createOrReplace does both; the old file is kept as .prev")
    func writeModes() throws {
        let f = try Fixture()
        try unlocked(f).writeSecret(secret("one"), service: "s", account: "a", label: "L", mode: .create, now: 10)
        #expect(throws: KeychainError.secretExists(service: "s", account: "a")) {
            try unlocked(f).writeSecret(secret("two"), service: "s", account: "a", mode: .create, now: 20)
        }
        #expect(throws: KeychainError.noSuchSecret(service: "s", account: "b")) {
            try unlocked(f).writeSecret(secret("two"), service: "s", account: "b", mode: .replace, now: 20)
        }
        let before = try f.bytes()
        try unlocked(f).writeSecret(secret("two"), service: "s", account: "a", mode: .replace, now: 20)
        #expect(try f.bytes(f.store.backupPath) == before)
        try unlocked(f).writeSecret(secret("new"), service: "s", account: "c", mode: .createOrReplace, now: 30)
        #expect(try stored(f, "s", "a") == "two" && stored(f, "s", "c") == "new")
        let entry = try #require(try f.entries().first { $0.account == "a" })
        #expect(entry.label == "L" && entry.created == 10 && entry.modified == 20)
    }

    @Test("writeSecret with expected: an entry changed meanwhile is not overwritten")
    func writeExpected() throws {
        let f = try Fixture()
        try f.add("s", "a")
        let opened = try unlocked(f)
        try unlocked(f).writeSecret(secret("changed elsewhere"), service: "s", account: "a", mode: .replace, now: 5)
        #expect(throws: KeychainError.changedMeanwhile(service: "s", account: "a")) {
            try opened.writeSecret(secret("edited"), service: "s", account: "a", mode: .replace, expected: secret("s/a"), now: 6)
        }
        #expect(try stored(f, "s", "a") == "changed elsewhere")
        try opened.writeSecret(secret("edited"), service: "s", account: "a", mode: .replace, expected: secret("changed elsewhere"), now: 7)
        #expect(try stored(f, "s", "a") == "edited")
    }

    @Test("copySecret: a copy is new, a move keeps the dates; 66 and 73 cases change nothing")
    func copyAndMove() throws {
        let f = try Fixture()
        try f.add("s", "a")
        try f.add("t", "b")
        try unlocked(f).copySecret(from: ("s", "a"), to: ("u", "c"), overwriting: false, move: false, now: 50)
        #expect(try stored(f, "u", "c") == "s/a" && stored(f, "s", "a") == "s/a")
        #expect(try f.entries().first { $0.service == "u" }?.created == 50)
        let before = try f.bytes()
        #expect(throws: KeychainError.secretExists(service: "t", account: "b")) {
            try unlocked(f).copySecret(from: ("s", "a"), to: ("t", "b"), overwriting: false, move: true, now: 60)
        }
        #expect(throws: KeychainError.noSuchSecret(service: "x", account: "y")) {
            try unlocked(f).copySecret(from: ("x", "y"), to: ("z", "z"), overwriting: true, move: true, now: 60)
        }
        #expect(try f.bytes() == before)
        try unlocked(f).copySecret(from: ("s", "a"), to: ("t", "b"), overwriting: true, move: true, now: 60)
        let entries = try f.entries()
        #expect(entries.count == 2 && !entries.contains { $0.service == "s" })
        let moved = try #require(entries.first { $0.service == "t" })
        #expect(String(decoding: moved.secret.bytes, as: UTF8.self) == "s/a" && moved.created == 0 && moved.modified == 0)
    }

    @Test("secrets(matching:) looks in service, account and label without regard to case; identities are not secrets")
    func matching() throws {
        let f = try Fixture()
        try f.add("GitHub.com", "deploy")
        try f.add("gitlab.com", "Bot")
        try unlocked(f).writeSecret(secret("x"), service: "mail", account: "me", label: "Personal GIT notes", mode: .create, now: 1)
        try unlocked(f).addIdentity(X25519Identity.generate(), named: "github", now: 1)
        let k = try unlocked(f)
        #expect(k.secrets(matching: ["github"]).map(\.service) == ["GitHub.com"])
        #expect(k.secrets(matching: ["BOT", "notes"]).map(\.service) == ["gitlab.com", "mail"])
        #expect(k.secrets(matching: ["git"]).count == 3)
        #expect(k.secrets(matching: ["nothing"]).isEmpty)
    }

    @Test("exportedSecrets: sorted, labels included; a secret that is not UTF-8 stops the export")
    func exported() throws {
        let f = try Fixture()
        try f.add("z", "a")
        try unlocked(f).writeSecret(secret("é\n"), service: "a", account: "b", label: "L", mode: .create, now: 1)
        let out = try unlocked(f).exportedSecrets()
        #expect(out.map(\.service) == ["a", "z"] && out[0].secret == "é\n" && out[0].label == "L" && out[1].label == "")
        try unlocked(f).writeSecret(SecretBytes(copying: [0xFF, 0x00]), service: "bin", account: "x", mode: .create, now: 1)
        #expect(throws: KeychainError.secretNotText(service: "bin", account: "x")) { try unlocked(f).exportedSecrets() }
    }

    @Test("generator: length, alphabets, and every character of the alphabet occurs")
    func generatorClasses() throws {
        for length in [1, 25, 4096] {
            #expect(try SecretGenerator.generate(length: length, symbols: true).count == length)
        }
        let plain = try (0..<200).map { _ in try SecretGenerator.generate(length: 50, symbols: false).bytes }.joined()
        #expect(Set(plain) == Set(SecretGenerator.letters + SecretGenerator.digits))
        let full = try (0..<200).map { _ in try SecretGenerator.generate(length: 50, symbols: true).bytes }.joined()
        #expect(Set(full) == Set(SecretGenerator.alphabet(symbols: true)))
        #expect(SecretGenerator.alphabet(symbols: true).count == 94 && SecretGenerator.symbols.count == 32)
    }

    @Test("generator: bytes at or above the largest multiple of the alphabet size are drawn again (no modulo bias)")
    func generatorRejects() throws {
        let alphabet = Array("abc".utf8)  // 256 % 3 == 1: byte 255 must be rejected
        var feeds: [[UInt8]] = [[255, 255, 0, 255, 4], [2, 254, 7, 7, 7, 7, 7, 7, 7, 7]]
        let made = try SecretGenerator.generate(length: 4, alphabet: alphabet, random: { _ in feeds.removeFirst() })
        #expect(String(decoding: made.bytes, as: UTF8.self) == "abcc")
        // With 94 characters, 188...255 are rejected: only 0...187 map, each index twice.
        var counts = [Int](repeating: 0, count: 94)
        let all = try SecretGenerator.generate(length: 188, alphabet: SecretGenerator.alphabet(symbols: true),
                                               random: { _ in Array(0...255) })
        for byte in all.bytes { counts[SecretGenerator.alphabet(symbols: true).firstIndex(of: byte)!] += 1 }
        #expect(counts.allSatisfy { $0 == 2 })
    }

    @Test("scratch file: 0600 in a 0700 folder, read back, overwritten and removed; no memory file system is refused")
    func scratchFile() throws {
        let disk = try TestFolder()
        #expect(!PrivateScratchFile.isMemoryFolder(disk.path))
        #expect(throws: PrivateScratchFile.Failure.noMemoryFileSystem(tried: [disk.path("run"), disk.path])) {
            try PrivateScratchFile.memoryFolder(environment: ["XDG_RUNTIME_DIR": disk.path("run")], shm: disk.path)
        }
        // The file itself, made on disk here so the test runs anywhere.
        let scratch = try PrivateScratchFile(holding: Array("hunter2".utf8), name: "secret", in: disk.path)
        var info = stat()
        #expect(stat(scratch.folder, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat(scratch.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try scratch.read() == Array("hunter2".utf8))
        try Data("other".utf8).write(to: URL(fileURLWithPath: scratch.folder + "/secret~"))
        scratch.destroy()
        #expect(access(scratch.folder, F_OK) != 0)
        #expect(try disk.listing().isEmpty)
    }

    @Test("editor command: VISUAL, else EDITOR, else vi")
    func editorCommand() {
        #expect(ExternalEditor.command(environment: ["VISUAL": "code -w", "EDITOR": "nano"]) == "code -w")
        #expect(ExternalEditor.command(environment: ["EDITOR": "nano", "VISUAL": ""]) == "nano")
        #expect(ExternalEditor.command(environment: [:]) == "vi")
    }
}
