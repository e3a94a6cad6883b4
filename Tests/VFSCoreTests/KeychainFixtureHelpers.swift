import Foundation
@testable import VFSCore

/// What the suites on the keychain's entry operations share: the fixture's keychain
/// opened, a secret from text, and the stored secret of an entry as text.
protocol KeychainFixtureHelpers {}

extension KeychainFixtureHelpers {
    typealias Fixture = KeychainStoreTests.Fixture

    func unlocked(_ f: Fixture) throws -> UnlockedKeychain {
        try UnlockedKeychain(store: f.store, sealed: f.store.read(), masterKey: f.key)
    }

    func secret(_ text: String) -> SecretBytes { SecretBytes(copying: Array(text.utf8)) }

    func stored(_ f: Fixture, _ service: String, _ account: String) throws -> String? {
        try f.entries().first { $0.matches(.secret, service, account) }.map { String(decoding: $0.secret.bytes, as: UTF8.self) }
    }
}
