import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore

/// The keychain's operations on entries (UnlockedKeychain), as vfs-keychain uses them.
@Suite("keychain operations")
struct KeychainEditingTests: KeychainFixtureHelpers {
    @Test("set adds, refuses to replace without asking, replaces when asked (keeping the label unless given)")
    func setSecret() throws {
        let f = try Fixture()
        try unlocked(f).setSecret(secret("one"), service: "s", account: "a", label: "L", replacing: false, now: 10)
        #expect(throws: KeychainError.secretExists(service: "s", account: "a")) {
            try unlocked(f).setSecret(secret("two"), service: "s", account: "a", label: nil, replacing: false, now: 20)
        }
        #expect(try stored(f, "s", "a") == "one")
        try unlocked(f).setSecret(secret("two"), service: "s", account: "a", label: nil, replacing: true, now: 20)
        let entry = try #require(try f.entries().first)
        #expect(String(decoding: entry.secret.bytes, as: UTF8.self) == "two")
        #expect(entry.label == "L" && entry.created == 10 && entry.modified == 20)
        #expect(try f.entries().count == 1)
    }

    @Test("delete says whether there was an entry, and writes nothing when there was none")
    func deleteSecret() throws {
        let f = try Fixture()
        try f.add("s", "a")
        let before = try f.bytes()
        #expect(try unlocked(f).deleteSecret(service: "s", account: "b") == false)
        #expect(try f.bytes() == before)
        #expect(try unlocked(f).deleteSecret(service: "s", account: "a") == true)
        #expect(try f.entries().isEmpty)
    }

    @Test("import adds all or none: an existing entry stops it unless replacing")
    func importSecrets() throws {
        let f = try Fixture()
        try f.add("s", "a")
        let json = #"[{"service": "s", "account": "b", "secret": "x"}, {"service": "s", "account": "a", "secret": "y", "label": "new"}]"#
        let items = try JSONDecoder().decode([UnlockedKeychain.ImportedSecret].self, from: Data(json.utf8))
        #expect(throws: KeychainError.importWouldReplace(service: "s", account: "a")) {
            try unlocked(f).importSecrets(items, replacing: false, now: 5)
        }
        #expect(try f.entries().count == 1)
        #expect(try unlocked(f).importSecrets(items, replacing: true, now: 5) == 2)
        #expect(try stored(f, "s", "a") == "y" && stored(f, "s", "b") == "x")
        #expect(try f.entries().first { $0.account == "a" }?.label == "new")
    }

    @Test("identities: add refuses a taken name; lookup names what there is; remove needs one")
    func identities() throws {
        let f = try Fixture()
        let identity = try X25519Identity.generate()
        #expect(throws: KeychainError.noIdentities(path: f.store.path)) { try unlocked(f).identityEntries(named: ["all"]) }
        try unlocked(f).addIdentity(identity, named: "work", now: 1)
        #expect(throws: KeychainError.identityExists(name: "work")) { try unlocked(f).addIdentity(identity, named: "work", now: 2) }
        #expect(try unlocked(f).identityEntries(named: ["all"]).map(\.service) == ["work"])
        #expect(try unlocked(f).identityEntries(named: ["work"]).first?.identity().recipient == identity.recipient)
        #expect(throws: KeychainError.noSuchIdentity(name: "home", path: f.store.path, known: ["work"])) {
            try unlocked(f).identityEntries(named: ["home"])
        }
        #expect(throws: KeychainError.noSuchIdentity(name: "home", path: f.store.path, known: ["work"])) {
            try unlocked(f).removeIdentity(named: "home")
        }
        try unlocked(f).removeIdentity(named: "work")
        #expect(try unlocked(f).identities.isEmpty)
    }

    @Test("a new keychain opens with its passcode and, with questions, with the answers")
    func createWithRecovery() throws {
        let folder = try TestFolder("kc-new")
        let store = KeychainStore(path: folder.path + "/keychain")
        #expect(store.folder == folder.path)
        try store.create(passcode: secret("pass"), recovery: (["Pet?"], ["  Rex "]), workFactor: 2)
        let sealed = try store.read()
        let byPasscode = try sealed.unlock(passcode: secret("pass"))
        let byAnswers = try sealed.unlock(answers: ["rex"])
        #expect(byPasscode.bytes == byAnswers.bytes)
        #expect(sealed.header.recoverySlot?.questions == ["Pet?"])
        #expect(throws: KeychainError.exists(path: store.path)) { try store.create(passcode: secret("x"), recovery: nil, workFactor: 2) }
    }

    @Test("piped secrets lose one trailing newline (LF or CRLF) unless raw")
    func pipedSecret() {
        #expect(Array(PipedSecret.trimmed(Array("abc\n".utf8), raw: false)) == Array("abc".utf8))
        #expect(Array(PipedSecret.trimmed(Array("abc\r\n".utf8), raw: false)) == Array("abc".utf8))
        #expect(Array(PipedSecret.trimmed(Array("abc\n\n".utf8), raw: false)) == Array("abc\n".utf8))
        #expect(Array(PipedSecret.trimmed(Array("abc\n".utf8), raw: true)) == Array("abc\n".utf8))
        #expect(PipedSecret.trimmed(Array("\n".utf8), raw: false).isEmpty)
    }

    @Test("questions skip blanks and comments; answers keep their spaces, one a line")
    func recoveryText() {
        #expect(RecoveryText.questions(in: "# mine\n  Pet? \r\n\nCity?\n") == ["Pet?", "City?"])
        #expect(RecoveryText.answers(in: " rex \r\n\nparis\n") == [" rex ", "", "paris"])
    }
}
