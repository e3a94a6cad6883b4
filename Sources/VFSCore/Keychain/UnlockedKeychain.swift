/// A keychain opened with its master key: the file as read, and its entries. The
/// operations on entries (set, delete, import, identities) live here, as the policy's
/// live in PolicyStore; each runs on the file as it is under the store's lock
/// (`KeychainStore.updateEntries`), so concurrent writers never lose an entry.
public struct UnlockedKeychain {
    public let store: KeychainStore
    public let sealed: SealedKeychain
    public let masterKey: SecretBytes
    public let entries: [KeychainEntry]

    public init(store: KeychainStore, sealed: SealedKeychain, masterKey: SecretBytes) throws {
        self.store = store
        self.sealed = sealed
        self.masterKey = masterKey
        self.entries = try sealed.open(masterKey: masterKey)
    }

    /// Changes the entries of the keychain as it is now (under its lock) and saves it.
    @discardableResult
    public func update<R>(_ change: (inout [KeychainEntry]) throws -> (result: R, changed: Bool)) throws -> R {
        try store.updateEntries(keychainID: sealed.header.id, masterKey: masterKey, change)
    }

    // MARK: Secrets

    /// Stores `secret` for `service` and `account`. An existing entry is replaced only
    /// when `replacing` (its label too when one is given), else `.secretExists`.
    public func setSecret(_ secret: SecretBytes, service: String, account: String, label: String?,
                          replacing: Bool, now: Int64) throws {
        try update { entries -> (Void, Bool) in
            if let index = entries.firstIndex(where: { $0.matches(.secret, service, account) }) {
                guard replacing else { throw KeychainError.secretExists(service: service, account: account) }
                entries[index].secret = secret
                entries[index].modified = now
                if let label { entries[index].label = label }
            } else {
                entries.append(KeychainEntry(kind: .secret, service: service, account: account, label: label ?? "",
                                             created: now, modified: now, secret: secret))
            }
            return ((), true)
        }
    }

    /// Removes the secret of `service` and `account`; false when there was none.
    public func deleteSecret(service: String, account: String) throws -> Bool {
        try update { entries -> (Bool, Bool) in
            guard let index = entries.firstIndex(where: { $0.matches(.secret, service, account) }) else { return (false, false) }
            entries.remove(at: index)
            return (true, true)
        }
    }

    /// One secret of an import.
    public struct ImportedSecret: Decodable, Sendable {
        public let service: String
        public let account: String
        public let secret: String
        public let label: String?
    }

    /// Adds every secret in one save, or none: an existing entry is `.importWouldReplace`
    /// unless `replacing`. Returns how many were imported.
    public func importSecrets(_ imported: [ImportedSecret], replacing: Bool, now: Int64) throws -> Int {
        try update { entries -> (Int, Bool) in
            // Entries by service and account; NUL can't occur in either (no control characters).
            var index: [String: Int] = [:]
            func key(_ service: String, _ account: String) -> String { service + "\u{0}" + account }
            for (i, entry) in entries.enumerated() where entry.kind == .secret { index[key(entry.service, entry.account)] = i }
            for item in imported {
                let secret = SecretBytes(copying: Array(item.secret.utf8))
                if let i = index[key(item.service, item.account)] {
                    guard replacing else { throw KeychainError.importWouldReplace(service: item.service, account: item.account) }
                    entries[i].secret = secret
                    entries[i].modified = now
                    if let label = item.label { entries[i].label = label }
                } else {
                    index[key(item.service, item.account)] = entries.count
                    entries.append(KeychainEntry(kind: .secret, service: item.service, account: item.account, label: item.label ?? "",
                                                 created: now, modified: now, secret: secret))
                }
            }
            return (imported.count, !imported.isEmpty)
        }
    }

    // MARK: Identities

    /// `-K all` means every identity, so no identity may be called that.
    public static let allIdentities = "all"

    public var identities: [KeychainEntry] { entries.filter { $0.kind == .identity } }

    /// The identity entries named (every one for `all`): `.noIdentities` or
    /// `.noSuchIdentity` (with the names there are) when one is missing.
    public func identityEntries(named names: [String]) throws -> [KeychainEntry] {
        let all = identities
        if names.contains(Self.allIdentities) {
            guard !all.isEmpty else { throw KeychainError.noIdentities(path: store.path) }
            return all
        }
        var out: [KeychainEntry] = []
        for name in names where !out.contains(where: { $0.service == name }) {
            guard let entry = all.first(where: { $0.service == name }) else {
                throw KeychainError.noSuchIdentity(name: name, path: store.path, known: all.map(\.service))
            }
            out.append(entry)
        }
        return out
    }

    /// Files `identity` as `name`; `.identityExists` if the name is taken.
    public func addIdentity(_ identity: X25519Identity, named name: String, now: Int64) throws {
        try addIdentity(AgeIdentity.x25519(identity), named: name, now: now)
    }

    /// Files `identity` (X25519, post-quantum, or a plugin's stub) as `name`;
    /// `.identityExists` if the name is taken.
    public func addIdentity(_ identity: AgeIdentity, named name: String, now: Int64) throws {
        switch identity {
        case .x25519, .hybrid, .plugin: break
        case .sshEd25519, .sshRSA:
            throw AgeError.invalidKey("an SSH key is not kept in the keychain; use it with -i FILE, or keep an age identity here (vfs-keychain identity new)")
        }
        try update { entries -> (Void, Bool) in
            guard !entries.contains(where: { $0.matches(.identity, name, "") }) else {
                throw KeychainError.identityExists(name: name)
            }
            entries.append(KeychainEntry(identityNamed: name, identity, created: now))
            return ((), true)
        }
    }

    /// Removes the identity `name`; `.noSuchIdentity` if there is none.
    public func removeIdentity(named name: String) throws {
        _ = try identityEntries(named: [name])
        try update { entries -> (Void, Bool) in
            let before = entries.count
            entries.removeAll { $0.matches(.identity, name, "") }
            return ((), entries.count != before)
        }
    }
}
