#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Where a device's relay token and age identity live: entries of the vfs-keychain
/// (the identity `vfs-device`, the secret `vfs-relay`/`token`), or two files on a
/// machine without a keychain (`--token-file`, `--identity-file`).
public struct CredentialPlace: Sendable {
    public var tokenFile: String?
    public var identityFile: String?
    public var keychainPath: String
    /// The keychain passcode, asked only when no unlock agent holds the key.
    public var passcode: @Sendable () throws -> SecretBytes

    public init(tokenFile: String?, identityFile: String?, keychainPath: String, passcode: @escaping @Sendable () throws -> SecretBytes) {
        self.tokenFile = tokenFile
        self.identityFile = identityFile
        self.keychainPath = keychainPath
        self.passcode = passcode
    }

    static let identityName = "vfs-device"
    static let tokenService = "vfs-relay"
    static let tokenAccount = "token"
    /// The keychain secret holding the device's Ed25519 signing key (its 32-byte seed).
    static let signingKeyAccount = "signing-key"

    /// Beside `--identity-file PATH`, the signing key is kept in `PATH.ed25519`.
    var signingKeyFile: String? { identityFile.map { $0 + ".ed25519" } }

    var usesKeychain: Bool { tokenFile == nil || identityFile == nil }
}

/// A device's token and identity as read; keeps the keychain's key so that a watcher
/// told to log out can erase them without asking again.
public final class DeviceCredentials: @unchecked Sendable {
    // Sendable: immutable after init.
    public let token: String
    /// X25519, or a plugin's stub (`AGE-PLUGIN-NAME-1…` in `--identity-file`): the
    /// key is then in hardware, its recipient in relay.json (`DeviceConfig.recipient`).
    public let identity: AgeIdentity?
    /// The device's Ed25519 signing key, when asked for (`load(signingKey: true)`).
    package let signingKey: Ed25519.SigningKey?
    let place: CredentialPlace
    let keychain: (store: KeychainStore, id: [UInt8], key: SecretBytes)?

    init(token: String, identity: AgeIdentity?, signingKey: Ed25519.SigningKey? = nil, place: CredentialPlace,
         keychain: (KeychainStore, [UInt8], SecretBytes)?) {
        self.token = token
        self.identity = identity
        self.signingKey = signingKey
        self.place = place
        self.keychain = keychain
    }

    /// This device's own recipient (what the relay lists and the fingerprint covers):
    /// its identity's, or for a plugin's stub the one kept in relay.json at enrolment.
    public func recipient(config: DeviceConfig?) throws -> String {
        switch identity {
        case .plugin(let stub)?:
            guard let recipient = config?.recipient else {
                throw RelayClientError.missingCredential(what: "recipient of the plugin identity \(AgePlugin.programName(stub.name))",
                                                         place: "relay.json (enrol with --identity-file and --recipient)")
            }
            return recipient
        case let identity?: return identity.recipient.string
        case nil: throw RelayClientError.missingCredential(what: "identity", place: "this run")
        }
    }

    /// Opens the keychain: with its agent's key, else the passcode.
    static func unlock(_ place: CredentialPlace) throws -> (KeychainStore, SealedKeychain, SecretBytes) {
        let store = KeychainStore(path: place.keychainPath)
        let sealed = try store.read()
        if let key = AgentClient(keychainPath: store.path).masterKey(keychainID: sealed.header.id) {
            return (store, sealed, key)
        }
        return (store, sealed, try sealed.unlock(passcode: place.passcode()))
    }

    /// Opens the keychain (when the place uses it) and nothing else: a wrong passcode or a
    /// missing keychain fails here, before a one-time enrolment code is spent.
    public static func checkKeychain(_ place: CredentialPlace) throws {
        if place.usesKeychain { _ = try unlock(place) }
    }

    /// Reads the token (and the identity when `identity` is true).
    public static func load(_ place: CredentialPlace, identity needIdentity: Bool) throws -> DeviceCredentials {
        try load(place, identity: needIdentity, signingKey: false)
    }

    /// Reads the token, the identity when `identity` is true, and the signing key when
    /// `signingKey` is true: a device enrolled before signing keys gets one now, kept
    /// where its identity is (docs/device-chain.md).
    package static func load(_ place: CredentialPlace, identity needIdentity: Bool, signingKey needKey: Bool) throws -> DeviceCredentials {
        var token: String?
        var identity: AgeIdentity?
        var keychain: (KeychainStore, [UInt8], SecretBytes)?
        if let file = place.tokenFile {
            token = try readText(file, what: "token").trimmingUnicodeWhitespace()
        }
        if let file = place.identityFile, needIdentity {
            // An X25519 identity (age1…), or a plugin's stub (its key in hardware).
            switch try KeyFile.identities(in: try readText(file, what: "identity"), source: file).first {
            case let found? where found.isDeviceKey: identity = found
            default: throw RelayClientError.missingCredential(what: "X25519 identity or plugin identity stub", place: "\"\(file)\"")
            }
        }
        if token == nil || (needIdentity && identity == nil) {
            let (store, sealed, key) = try unlock(place)
            let entries = try sealed.open(masterKey: key)
            keychain = (store, sealed.header.id, key)
            if token == nil {
                guard let entry = entries.first(where: { $0.matches(.secret, CredentialPlace.tokenService, CredentialPlace.tokenAccount) }) else {
                    throw RelayClientError.missingCredential(what: "relay token", place: "the keychain \"\(store.path)\"")
                }
                token = String(decoding: entry.secret.bytes, as: UTF8.self)
            }
            if needIdentity && identity == nil {
                guard let entry = entries.first(where: { $0.matches(.identity, CredentialPlace.identityName, "") }) else {
                    throw RelayClientError.missingCredential(what: "identity \"\(CredentialPlace.identityName)\"", place: "the keychain \"\(store.path)\"")
                }
                // The keychain holds the identity vfs-device made; a plugin's stub is given in --identity-file.
                guard case .x25519(let found) = try entry.ageIdentity() else {
                    throw RelayClientError.missingCredential(
                        what: "X25519 identity \"\(CredentialPlace.identityName)\" (a plugin's stub is a device key only in --identity-file)",
                        place: "the keychain \"\(store.path)\"")
                }
                identity = .x25519(found)
            }
        }
        var signingKey: Ed25519.SigningKey?
        if needKey {
            if let file = place.signingKeyFile {
                signingKey = try readSigningKey(file)
                if signingKey == nil {
                    let key = try Ed25519.SigningKey()
                    try writeSigningKey(key, to: file)
                    signingKey = key
                }
            } else {
                let (store, id, masterKey) = try keychain ?? {
                    let (store, sealed, key) = try unlock(place)
                    return (store, sealed.header.id, key)
                }()
                keychain = (store, id, masterKey)
                // Read and, when missing, made and kept in one update of the keychain.
                signingKey = try store.updateEntries(keychainID: id, masterKey: masterKey) { entries -> (Ed25519.SigningKey, Bool) in
                    if let entry = entries.first(where: { $0.matches(.secret, CredentialPlace.identityName, CredentialPlace.signingKeyAccount) }) {
                        return (try Ed25519.SigningKey(seed: entry.secret), false)
                    }
                    let key = try Ed25519.SigningKey()
                    entries.append(signingKeyEntry(key))
                    return (key, true)
                }
            }
        }
        return DeviceCredentials(token: token!, identity: identity, signingKey: signingKey, place: place, keychain: keychain)
    }

    static func signingKeyEntry(_ key: Ed25519.SigningKey) -> KeychainEntry {
        let now = Int64(Date().timeIntervalSince1970)
        return KeychainEntry(kind: .secret, service: CredentialPlace.identityName, account: CredentialPlace.signingKeyAccount,
                             label: "Ed25519 signing key of this device", created: now, modified: now, secret: key.seed)
    }

    /// The key in a signing key file; nil if there is no file.
    static func readSigningKey(_ path: String) throws -> Ed25519.SigningKey? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let text = try readText(path, what: "signing key")
        let line = text.split(whereSeparator: \.isNewline).map { String($0).trimmingUnicodeWhitespace() }.first { !$0.isEmpty && !$0.hasPrefix("#") }
        guard let line, let seed = Data(base64Encoded: String(line)), seed.count == Ed25519.seedCount else {
            throw RelayClientError.badAnswer(url: path, reason: "not a signing key file (one line: the base64 of a 32-byte Ed25519 seed)")
        }
        return try Ed25519.SigningKey(seed: SecretBytes(copying: Array(seed)))
    }

    static func writeSigningKey(_ key: Ed25519.SigningKey, to path: String) throws {
        let seed = key.seed.withUnsafeBytes { Data($0).base64EncodedString() }
        let text = "# vfs device signing key (Ed25519 seed, base64): keep it private\n"
            + "# public key: \(Data(key.publicKey).base64EncodedString())\n" + seed + "\n"
        try AtomicOutputFile.write(Array(text.utf8), to: path, mode: 0o600)
    }

    static func readText(_ path: String, what: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RelayClientError.missingCredential(what: what, place: "\"\(path)\" (cannot read it)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Keeps a new enrolment's token, identity and signing key (replacing an earlier enrolment's).
    /// A plugin's stub in `--identity-file` is the user's file: it is left as it is.
    package static func save(_ place: CredentialPlace, token: String, identity: AgeIdentity, signingKey: Ed25519.SigningKey) throws {
        if let file = place.signingKeyFile { try writeSigningKey(signingKey, to: file) }
        if let file = place.tokenFile {
            try AtomicOutputFile.write(Array((token + "\n").utf8), to: file, mode: 0o600)
        }
        if let file = place.identityFile, case .x25519(let identity) = identity {
            let created = DateText.iso8601(Date())
            try AtomicOutputFile.write(Array(KeyFile.identityFileText(.x25519(identity), created: created).utf8), to: file, mode: 0o600)
        }
        guard place.usesKeychain else { return }
        let (store, sealed, key) = try unlock(place)
        let now = Int64(Date().timeIntervalSince1970)
        try store.updateEntries(keychainID: sealed.header.id, masterKey: key) { entries in
            if place.tokenFile == nil {
                entries.removeAll { $0.matches(.secret, CredentialPlace.tokenService, CredentialPlace.tokenAccount) }
                entries.append(KeychainEntry(kind: .secret, service: CredentialPlace.tokenService, account: CredentialPlace.tokenAccount,
                                             label: "relay token of this device", created: now, modified: now,
                                             secret: SecretBytes(copying: Array(token.utf8))))
            }
            if place.identityFile == nil, case .x25519(let identity) = identity {
                entries.removeAll { $0.matches(.identity, CredentialPlace.identityName, "") }
                entries.append(KeychainEntry(identityNamed: CredentialPlace.identityName, identity, created: now))
                entries.removeAll { $0.matches(.secret, CredentialPlace.identityName, CredentialPlace.signingKeyAccount) }
                entries.append(signingKeyEntry(signingKey))
            }
            return ((), true)
        }
    }

    /// Erases the token and the identity (a remote log-out): keychain entries removed,
    /// files overwritten and removed. A plugin's stub is left as it is: it holds no
    /// secret, and its key is in hardware that no erasing here reaches.
    package func erase() throws {
        let identityFile = place.identityFile.flatMap { Self.holdsPluginStub($0) ? nil : $0 }
        for file in [place.tokenFile, identityFile, place.signingKeyFile].compactMap({ $0 }) {
            Self.overwriteAndRemove(file)
        }
        guard place.usesKeychain else { return }
        let (store, id, key) = try keychain ?? {
            let (store, sealed, key) = try Self.unlock(place)
            return (store, sealed.header.id, key)
        }()
        try store.updateEntries(keychainID: id, masterKey: key) { entries in
            let before = entries.count
            entries.removeAll {
                (place.tokenFile == nil && $0.matches(.secret, CredentialPlace.tokenService, CredentialPlace.tokenAccount))
                    || (place.identityFile == nil && $0.matches(.identity, CredentialPlace.identityName, ""))
                    || (place.identityFile == nil && $0.matches(.secret, CredentialPlace.identityName, CredentialPlace.signingKeyAccount))
            }
            return ((), entries.count != before)
        }
    }

    /// True when `file` holds a plugin's identity stub (which `erase` leaves).
    static func holdsPluginStub(_ file: String) -> Bool {
        guard let text = try? readText(file, what: "identity") else { return false }
        return (try? KeyFile.identities(in: text, source: file).first?.isPlugin) == true
    }

    static func overwriteAndRemove(_ path: String) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        if fd >= 0 {
            var info = stat()
            if fstat(fd, &info) == 0, info.st_size > 0 {
                let zeros = [UInt8](repeating: 0, count: Int(info.st_size))
                _ = zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, 0) }
                fsync(fd)
            }
            close(fd)
        }
        unlink(path)
    }
}
