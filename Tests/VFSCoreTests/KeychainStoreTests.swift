import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore

/// Saving a keychain: locking, re-reading, the previous good copy, refusing damage.
@Suite("keychain store")
struct KeychainStoreTests {
    /// A folder with a new keychain in it, and what opens it.
    final class Fixture {
        let scratch: TestFolder
        var folder: String { scratch.path }
        let store: KeychainStore
        let key: SecretBytes
        let id: [UInt8]

        init() throws {
            scratch = try TestFolder("kc")
            store = KeychainStore(path: scratch.path("keychain"))
            key = try KeychainFormat.newMasterKey()
            let header = try KeychainHeader.new(passcode: KeySlot.wrap(key, kind: .passcode, secret: SecretBytes(copying: [1]), workFactor: 2))
            id = header.id
            try store.create(header: header, masterKey: key)
        }

        func add(_ service: String, _ account: String) throws {
            try store.updateEntries(keychainID: id, masterKey: key) { entries -> (Void, Bool) in
                entries.append(KeychainEntry(kind: .secret, service: service, account: account, created: 0, modified: 0,
                                             secret: SecretBytes(copying: Array("\(service)/\(account)".utf8))))
                return ((), true)
            }
        }

        func entries() throws -> [KeychainEntry] { try store.read().open(masterKey: key) }
        func bytes(_ path: String? = nil) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path ?? store.path)) }
    }

    @Test("create: mode 0600, never over an existing file")
    func create() throws {
        let f = try Fixture()
        #expect((try FileManager.default.attributesOfItem(atPath: f.store.path)[.posixPermissions] as? Int) == 0o600)
        let before = try f.bytes()
        let header = try KeychainHeader.new(passcode: KeySlot.wrap(f.key, kind: .passcode, secret: SecretBytes(copying: [2]), workFactor: 2))
        #expect(throws: KeychainError.exists(path: f.store.path)) { try f.store.create(header: header, masterKey: f.key) }
        #expect(try f.bytes() == before)
        #expect(throws: KeychainError.notFound(path: f.folder + "/none")) { try KeychainStore(path: f.folder + "/none").read() }
    }

    @Test("each save keeps the file before it as PATH.prev; no temporary files are left")
    func backup() throws {
        let f = try Fixture()
        let first = try f.bytes()
        try f.add("a", "1")
        #expect(try f.bytes(f.store.backupPath) == first)
        let second = try f.bytes()
        try f.add("b", "2")
        #expect(try f.bytes(f.store.backupPath) == second)
        #expect(try f.entries().map(\.service) == ["a", "b"])
        // A change that changes nothing writes nothing.
        let third = try f.bytes()
        try f.store.updateEntries(keychainID: f.id, masterKey: f.key) { _ in ((), false) }
        #expect(try f.bytes() == third && (try f.bytes(f.store.backupPath)) == second)
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.folder).sorted() == ["keychain", "keychain.lock", "keychain.prev"])
    }

    @Test("a damaged keychain is never overwritten, and its backup is kept")
    func damagedNotOverwritten() throws {
        let f = try Fixture()
        try f.add("a", "1")
        try f.add("b", "2")
        let backup = try f.bytes(f.store.backupPath)
        var damaged = try f.bytes()
        damaged[damaged.count - 5] ^= 1
        try damaged.write(to: URL(fileURLWithPath: f.store.path))
        do {
            try f.add("c", "3")
            Issue.record("a save over a damaged keychain succeeded")
        } catch let error as KeychainError {
            #expect(error == .corrupt(path: f.store.path, why: error.corruptReason ?? "", backup: f.store.backupPath))
        }
        #expect(try f.bytes() == damaged)
        #expect(try f.bytes(f.store.backupPath) == backup)
        #expect(try SealedKeychain(bytes: Array(backup), path: "b").open(masterKey: f.key).map(\.service) == ["a"])
    }

    @Test("a keychain replaced by another (new init) is not written with the old key")
    func replaced() throws {
        let f = try Fixture()
        let other = try Fixture()
        try FileManager.default.removeItem(atPath: f.store.path)
        try FileManager.default.copyItem(atPath: other.store.path, toPath: f.store.path)
        #expect(throws: KeychainStoreError.self) { try f.add("a", "1") }
        #expect(try f.bytes() == other.bytes())
    }

    @Test("ten threads saving 100 entries each, one save per entry, end with all 1000")
    func concurrentSaves() async throws {
        let f = try Fixture()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<10 {
                group.addTask {
                    // Each save takes the lock on its own file descriptor, as another process would.
                    for i in 0..<100 { try f.add("writer-\(writer)", "\(i)") }
                }
            }
            try await group.waitForAll()
        }
        let entries = try f.entries()
        #expect(entries.count == 1000)
        #expect(Set(entries.map { "\($0.service)/\($0.account)" }).count == 1000)
        #expect(entries.allSatisfy { String(decoding: $0.secret.bytes, as: UTF8.self) == "\($0.service)/\($0.account)" })
    }
}

extension KeychainStoreTests.Fixture: @unchecked Sendable {}

extension KeychainError {
    var corruptReason: String? {
        if case .corrupt(_, let why, _) = self { return why }
        return nil
    }
}
