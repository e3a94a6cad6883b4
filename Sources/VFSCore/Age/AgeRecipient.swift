/// Any recipient a user can name: X25519 (`age1…`), hybrid post-quantum (`age1pq1…`),
/// an SSH public key line (`ssh-ed25519 AAAA…`, `ssh-rsa AAAA…`), or a plugin's
/// (`age1NAME1…`), as age takes them. Which kinds may share a file is each kind's
/// own say, through its labels (`Recipient.wrapWithLabels`).
public enum AgeRecipient: Recipient, Hashable {
    case x25519(X25519Recipient)
    case hybrid(HybridRecipient)
    case sshEd25519(SSHEd25519Recipient)
    case sshRSA(SSHRSARecipient)
    case plugin(PluginRecipient)

    /// Parses `age1pq1…`, `age1…`, `age1NAME1…`, or an SSH public key line.
    public init(_ text: String) throws {
        if text.hasPrefix("ssh-") {
            let (type, blob) = try SSHKeyText.publicKey(line: text)
            self = type == SSHRSARecipient.stanzaType ? .sshRSA(try SSHRSARecipient(publicBlob: blob))
                                                      : .sshEd25519(try SSHEd25519Recipient(publicBlob: blob))
        } else if text.lowercased().hasPrefix(HybridRecipient.hrp + "1") {
            self = .hybrid(try HybridRecipient(text))
        } else if let (hrp, _) = Bech32.decode(text), hrp.hasPrefix(AgePlugin.recipientPrefix) {
            self = .plugin(try PluginRecipient(text))
        } else {
            self = .x25519(try X25519Recipient(text))
        }
    }

    public var string: String {
        switch self {
        case .x25519(let r): return r.string
        case .hybrid(let r): return r.string
        case .sshEd25519(let r): return r.string
        case .sshRSA(let r): return r.string
        case .plugin(let r): return r.string
        }
    }

    var isPostQuantum: Bool { if case .hybrid = self { return true } else { return false } }

    /// The recipient of this kind.
    var recipient: Recipient {
        switch self {
        case .x25519(let r): return r
        case .hybrid(let r): return r
        case .sshEd25519(let r): return r
        case .sshRSA(let r): return r
        case .plugin(let r): return r
        }
    }

    public func wrap(fileKey: SecretBytes) throws -> [Stanza] { try recipient.wrap(fileKey: fileKey) }

    /// The kind's own labels (post-quantum: `postquantum`), which keep the mixing rules.
    public func wrapWithLabels(fileKey: SecretBytes) throws -> (stanzas: [Stanza], labels: Set<String>) {
        try recipient.wrapWithLabels(fileKey: fileKey)
    }
}

/// Any identity an identity file can hold: X25519 or hybrid post-quantum, an
/// unencrypted OpenSSH private key (ssh-ed25519, ssh-rsa), or a plugin's stub
/// (`AGE-PLUGIN-NAME-1…`), as age reads them.
public enum AgeIdentity: Identity {
    case x25519(X25519Identity)
    case hybrid(HybridIdentity)
    case sshEd25519(SSHEd25519Identity)
    case sshRSA(SSHRSAIdentity)
    case plugin(PluginIdentity)

    /// Parses `AGE-SECRET-KEY-PQ-1…`, `AGE-SECRET-KEY-1…` or `AGE-PLUGIN-NAME-1…`.
    public init(_ text: String) throws {
        if text.uppercased().hasPrefix(AgePlugin.identityPrefix) {
            self = .plugin(try PluginIdentity(text))
        } else if text.uppercased().hasPrefix(HybridIdentity.hrp + "1") {
            self = .hybrid(try HybridIdentity(text))
        } else {
            self = .x25519(try X25519Identity(text))
        }
    }

    /// The key of an OpenSSH private key file (`-----BEGIN OPENSSH PRIVATE KEY-----`).
    public init(openSSHPrivateKey text: String) throws {
        switch try SSHKeyText.privateKey(text) {
        case .ed25519(let seed, let publicBlob): self = .sshEd25519(try SSHEd25519Identity(seed: seed, publicBlob: publicBlob))
        case .rsa(let key, let publicBlob): self = .sshRSA(try SSHRSAIdentity(privateKey: key, publicBlob: publicBlob))
        }
    }

    /// The identity's line in an identity file. SSH keys have none (they live in their
    /// own key files); nothing writes one.
    public var string: String {
        switch self {
        case .x25519(let i): return i.string
        case .hybrid(let i): return i.string
        case .plugin(let i): return i.string
        case .sshEd25519, .sshRSA: preconditionFailure("an SSH private key is not written as an identity line")
        }
    }

    /// True for the age key types (X25519, post-quantum, a plugin's stub), which
    /// identity files and the keychain hold as lines; false for SSH keys.
    var isAgeKey: Bool {
        switch self {
        case .x25519, .hybrid, .plugin: return true
        case .sshEd25519, .sshRSA: return false
        }
    }

    public var isPlugin: Bool { if case .plugin = self { return true } else { return false } }

    /// True for the kinds a relay device's decryption key may be: X25519 (what
    /// vfs-device makes) or a plugin's stub (a key in hardware, `--identity-file`).
    public var isDeviceKey: Bool {
        switch self {
        case .x25519, .plugin: return true
        case .hybrid, .sshEd25519, .sshRSA: return false
        }
    }

    public var recipient: AgeRecipient {
        switch self {
        case .x25519(let i): return .x25519(i.recipient)
        case .hybrid(let i): return .hybrid(i.recipient)
        case .sshEd25519(let i): return .sshEd25519(i.recipient)
        case .sshRSA(let i): return .sshRSA(i.recipient)
        case .plugin(let i): return .plugin(i.recipient)
        }
    }

    /// The identity of this kind.
    var identity: Identity {
        switch self {
        case .x25519(let i): return i
        case .hybrid(let i): return i
        case .sshEd25519(let i): return i
        case .sshRSA(let i): return i
        case .plugin(let i): return i
        }
    }

    public func unwrap(stanzas: [Stanza]) throws -> SecretBytes? { try identity.unwrap(stanzas: stanzas) }
}
