/// The pass-like operations on secrets (generate, edit, mv, cp, find, export): each
/// change runs, as set does, on the file as it is under the store's lock.
extension UnlockedKeychain {
    /// How `writeSecret` treats an entry that exists, or does not.
    public enum WriteMode: Sendable {
        /// A new entry only: `.secretExists` if there is one.
        case create
        /// An existing entry only: `.noSuchSecret` if there is none.
        case replace
        /// Either.
        case createOrReplace
    }

    /// The secret of `service` and `account`, from the entries as opened.
    public func secret(service: String, account: String) -> KeychainEntry? {
        entries.first { $0.matches(.secret, service, account) }
    }

    /// Stores `secret` for `service` and `account` as `mode` allows. With `expected`,
    /// an existing entry is replaced only while it still holds that secret (an edit
    /// started from it): else `.changedMeanwhile`, and nothing is saved.
    public func writeSecret(_ secret: SecretBytes, service: String, account: String, label: String? = nil,
                            mode: WriteMode, expected: SecretBytes? = nil, now: Int64) throws {
        try update { entries -> (Void, Bool) in
            if let index = entries.firstIndex(where: { $0.matches(.secret, service, account) }) {
                guard mode != .create else { throw KeychainError.secretExists(service: service, account: account) }
                if let expected, !entries[index].secret.isEqual(to: expected) {
                    throw KeychainError.changedMeanwhile(service: service, account: account)
                }
                entries[index].secret = secret
                entries[index].modified = now
                if let label { entries[index].label = label }
            } else {
                guard mode != .replace else { throw KeychainError.noSuchSecret(service: service, account: account) }
                entries.append(KeychainEntry(kind: .secret, service: service, account: account, label: label ?? "",
                                             created: now, modified: now, secret: secret))
            }
            return ((), true)
        }
    }

    /// Copies (or with `move`, renames) the secret of `from` to `to`, label included: `.noSuchSecret`
    /// if `from` is missing, `.secretExists` if `to` exists and not `overwriting`. A copy is
    /// a new entry (created now); a moved entry keeps its dates.
    public func copySecret(from: (service: String, account: String), to: (service: String, account: String),
                           overwriting: Bool, move: Bool, now: Int64) throws {
        try update { entries -> (Void, Bool) in
            guard let source = entries.firstIndex(where: { $0.matches(.secret, from.service, from.account) }) else {
                throw KeychainError.noSuchSecret(service: from.service, account: from.account)
            }
            let old = entries[source]
            guard !(old.service == to.service && old.account == to.account) else { return ((), false) }
            if let target = entries.firstIndex(where: { $0.matches(.secret, to.service, to.account) }) {
                guard overwriting else { throw KeychainError.secretExists(service: to.service, account: to.account) }
                entries.remove(at: target)
            }
            let copy = KeychainEntry(kind: .secret, service: to.service, account: to.account, label: old.label,
                                     created: move ? old.created : now, modified: move ? old.modified : now,
                                     secret: SecretBytes(copying: old.secret.bytes))
            if move { entries.removeAll { $0.matches(.secret, from.service, from.account) } }
            entries.append(copy)
            return ((), true)
        }
    }

    /// The secrets whose service, account or label contains any of `terms`, compared
    /// case-insensitively (as pass find matches names), sorted by service and account.
    public func secrets(matching terms: [String]) -> [KeychainEntry] {
        let folded = terms.map { $0.lowercased() }
        return entries.filter { entry in
            entry.kind == .secret && folded.contains { term in
                [entry.service, entry.account, entry.label].contains { $0.lowercased().contains(term) }
            }
        }.sorted { ($0.service, $0.account) < ($1.service, $1.account) }
    }

    /// One secret as `export` writes it and `import` reads it.
    public struct ExportedSecret: Encodable, Sendable {
        public let service: String
        public let account: String
        public let secret: String
        public let label: String
    }

    /// Every secret, sorted, in the form `import` reads. A secret that is not UTF-8 text
    /// cannot be a JSON string as it is: `.secretNotText`, and nothing is exported.
    public func exportedSecrets() throws -> [ExportedSecret] {
        try entries.filter { $0.kind == .secret }.sorted { ($0.service, $0.account) < ($1.service, $1.account) }.map { entry in
            let bytes = entry.secret.bytes
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw KeychainError.secretNotText(service: entry.service, account: entry.account)
            }
            return ExportedSecret(service: entry.service, account: entry.account, secret: text, label: entry.label)
        }
    }
}
