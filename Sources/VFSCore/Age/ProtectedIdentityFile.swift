/// Passphrase-protected identity files, as age reads them: an age file (binary or
/// armored) encrypted with a passphrase, whose plaintext is an identity file.
public enum ProtectedIdentityFile {
    /// True if `bytes` is an age file rather than identity lines or an SSH key.
    public static func isEncrypted(_ bytes: [UInt8]) -> Bool {
        let start = bytes.drop(while: Armor.isWhitespace)
        return bytes.starts(with: Array("age-encryption.org/".utf8)) || start.starts(with: Armor.begin)
    }

    /// The identity file inside. Throws `AgeError.noMatch` for a wrong passphrase, and
    /// `AgeError.invalidKey` if the file is encrypted to recipients instead.
    public static func decrypt(_ bytes: [UInt8], source: String, passphrase: () throws -> SecretBytes) throws -> String {
        let decryptor = try AgeDecryptor(source: MemorySource(bytes))
        guard decryptor.isPassphraseEncrypted else {
            throw AgeError.invalidKey("identity file \(source) is encrypted to recipients, not with a passphrase")
        }
        let fileKey = try decryptor.fileKey(identities: [ScryptIdentity(passphrase: try passphrase())])
        let sink = MemorySink()
        try decryptor.decrypt(fileKey: fileKey, to: sink)
        return String(decoding: sink.bytes, as: UTF8.self)
    }
}
