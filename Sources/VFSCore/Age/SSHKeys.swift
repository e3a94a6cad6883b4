/// SSH keys as age uses them: OpenSSH public key lines (`ssh-ed25519 AAAA… comment`,
/// `ssh-rsa AAAA…`) and unencrypted OpenSSH private key files
/// (`-----BEGIN OPENSSH PRIVATE KEY-----`, PROTOCOL.key). Encrypted private keys
/// (bcrypt-pbkdf) are refused with `SSHKeyText.encryptedKeyHint`.
enum SSHKeyText {
    static let privateKeyBegin = "-----BEGIN OPENSSH PRIVATE KEY-----"
    static let privateKeyEnd = "-----END OPENSSH PRIVATE KEY-----"
    static let supportedTypes = ["ssh-ed25519", "ssh-rsa"]
    /// The same words wherever an encrypted SSH private key is refused.
    static let encryptedKeyMessage = "passphrase-protected SSH private keys are not supported"

    /// Parses a public key line into its type and wire-format blob.
    static func publicKey(line: String) throws -> (type: String, blob: [UInt8]) {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count >= 2 else { throw AgeError.invalidKey("invalid SSH public key \(quoted(Array(line.utf8)))") }
        let type = String(fields[0])
        guard supportedTypes.contains(type) else {
            throw AgeError.invalidKey("SSH key type \(quoted(Array(type.utf8))) is not supported (ssh-ed25519 and ssh-rsa are)")
        }
        guard let blob = Base64.decode(Array(fields[1].utf8), padded: true) ?? Base64.decode(Array(fields[1].utf8)) else {
            throw AgeError.invalidKey("invalid SSH public key: its key is not base64")
        }
        var reader = SSHWireReader(blob)
        guard let blobType = reader.string(), String(decoding: blobType, as: UTF8.self) == type else {
            throw AgeError.invalidKey("invalid SSH public key: the key is not of type \(type)")
        }
        return (type, blob)
    }

    /// The decoded body of an OpenSSH private key file.
    static func privateKeyBlob(_ text: String) throws -> [UInt8] {
        guard let begin = text.firstRange(of: privateKeyBegin), let end = text.firstRange(of: privateKeyEnd),
              begin.upperBound <= end.lowerBound else {
            throw AgeError.invalidKey("not an OpenSSH private key (no BEGIN/END OPENSSH PRIVATE KEY lines)")
        }
        let body = text[begin.upperBound..<end.lowerBound].utf8.filter { $0 != 0x0A && $0 != 0x0D && $0 != 0x20 && $0 != 0x09 }
        guard let blob = Base64.decode(body, padded: true) else {
            throw AgeError.invalidKey("invalid OpenSSH private key: its body is not base64")
        }
        return blob
    }

    /// The one key of an OpenSSH private key file.
    static func privateKey(_ text: String) throws -> SSHPrivateKey {
        var reader = SSHWireReader(try privateKeyBlob(text))
        let magic = Array("openssh-key-v1".utf8) + [0]
        guard reader.bytes(magic.count) == magic, let cipher = reader.string(), let kdf = reader.string(),
              reader.string() != nil, let count = reader.uint32(), let publicBlob = reader.string(),
              let privateSection = reader.string() else {
            throw AgeError.invalidKey("invalid OpenSSH private key")
        }
        guard cipher == Array("none".utf8) && kdf == Array("none".utf8) else {
            throw AgeError.invalidKey(encryptedKeyMessage)
        }
        guard count == 1 else { throw AgeError.invalidKey("OpenSSH private key files with \(count) keys are not supported") }
        var section = SSHWireReader(privateSection)
        guard let check1 = section.uint32(), let check2 = section.uint32(), check1 == check2,
              let typeBytes = section.string() else {
            throw AgeError.invalidKey("invalid OpenSSH private key (its check numbers differ)")
        }
        let type = String(decoding: typeBytes, as: UTF8.self)
        switch type {
        case "ssh-ed25519":
            guard let publicKey = section.string(), publicKey.count == 32, let secret = section.string(), secret.count == 64,
                  Array(secret[32..<64]) == publicKey else {
                throw AgeError.invalidKey("invalid OpenSSH ssh-ed25519 private key")
            }
            return .ed25519(seed: SecretBytes(copying: secret[0..<32]), publicBlob: publicBlob)
        case "ssh-rsa":
            guard let n = section.mpint(), let e = section.mpint(), let d = section.mpint(), let iqmp = section.mpint(),
                  let p = section.mpint(), let q = section.mpint() else {
                throw AgeError.invalidKey("invalid OpenSSH ssh-rsa private key")
            }
            let key = try RSAKey(modulus: n, publicExponent: e, privateExponent: d, p: p, q: q, qInverse: iqmp)
            return .rsa(key: key, publicBlob: publicBlob)
        default:
            throw AgeError.invalidKey("SSH key type \(quoted(typeBytes)) is not supported (ssh-ed25519 and ssh-rsa are)")
        }
    }
}

/// A private key read from an OpenSSH private key file.
enum SSHPrivateKey {
    case ed25519(seed: SecretBytes, publicBlob: [UInt8])
    case rsa(key: RSAKey, publicBlob: [UInt8])
}

/// Reads SSH's wire encoding (RFC 4251 section 5): uint32, string, mpint.
struct SSHWireReader {
    private let data: [UInt8]
    private var offset = 0

    init(_ data: [UInt8]) { self.data = data }

    var isAtEnd: Bool { offset == data.count }

    mutating func bytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, data.count - offset >= count else { return nil }
        defer { offset += count }
        return Array(data[offset..<offset + count])
    }

    mutating func uint32() -> UInt32? {
        guard let b = bytes(4) else { return nil }
        return UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])
    }

    mutating func string() -> [UInt8]? {
        guard let length = uint32() else { return nil }
        return bytes(Int(length))
    }

    /// A non-negative mpint, without its leading zero bytes.
    mutating func mpint() -> [UInt8]? {
        guard let raw = string() else { return nil }
        if let first = raw.first, first & 0x80 != 0 { return nil }
        return Array(raw.drop(while: { $0 == 0 }))
    }
}
