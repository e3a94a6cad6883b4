/// Identity files (`age-keygen` format) and recipients files: one key a line, blank
/// lines and `#` comments allowed.
public enum KeyFile {
    /// The key lines of a file, with their line numbers.
    static func keyLines(_ text: String) -> [(number: Int, text: String)] {
        var out: [(Int, String)] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(rawLine)
            if line.hasSuffix("\r") { line = line.dropLast() }
            let trimmed = line.trimmingWhitespace()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            out.append((index + 1, String(trimmed)))
        }
        return out
    }

    /// Parses every identity in an identity file's text: X25519 (`AGE-SECRET-KEY-1…`),
    /// hybrid post-quantum (`AGE-SECRET-KEY-PQ-1…`) and plugin stubs (`AGE-PLUGIN-NAME-1…`).
    /// A file that opens with `-----BEGIN` is one SSH private key, as age reads it.
    public static func identities(in text: String, source: String) throws -> [AgeIdentity] {
        let start = text.drop(while: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        if start.hasPrefix("-----BEGIN") {
            guard start.hasPrefix(SSHKeyText.privateKeyBegin) else {
                throw AgeError.invalidKey("\(source) is a PEM key; only OpenSSH private keys (\(SSHKeyText.privateKeyBegin)) and age identities are supported")
            }
            do { return [try AgeIdentity(openSSHPrivateKey: text)] } catch AgeError.invalidKey(let why) {
                if why == SSHKeyText.encryptedKeyMessage { throw AgeError.encryptedSSHKey(source) }
                throw AgeError.invalidKey("\(source): \(why)")
            }
        }
        var out = [AgeIdentity]()
        for line in keyLines(text) {
            if line.text.hasPrefix(AgePlugin.identityPrefix) {
                do { out.append(.plugin(try PluginIdentity(line.text))) } catch AgeError.invalidKey(let why) {
                    throw AgeError.invalidKey("\(source) line \(line.number): \(why)")
                }
                continue
            }
            guard line.text.hasPrefix("AGE-SECRET-KEY-1") || line.text.hasPrefix("AGE-SECRET-KEY-PQ-1") else {
                if line.text.hasPrefix("ssh-") {
                    throw AgeError.invalidKey("\(source) line \(line.number) is an SSH public key, not an identity (give the private key file, or encrypt to it with -r/-R)")
                }
                if line.text.hasPrefix("age1") {
                    throw AgeError.invalidKey("\(source) line \(line.number) is a recipient, not an identity")
                }
                throw AgeError.invalidKey("\(source) line \(line.number) is not an age identity")
            }
            do { out.append(try AgeIdentity(line.text)) } catch {
                throw AgeError.invalidKey("\(source) line \(line.number) is not a valid identity (bad checksum or length)")
            }
        }
        guard !out.isEmpty else { throw AgeError.invalidKey("no identities found in \(source)") }
        return out
    }

    /// Parses every recipient in a recipients file's text.
    public static func recipients(in text: String, source: String) throws -> [AgeRecipient] {
        var out = [AgeRecipient]()
        for line in keyLines(text) {
            do { out.append(try AgeRecipient(line.text)) } catch AgeError.invalidKey(let why) where line.text.hasPrefix("ssh-") || why.hasPrefix("invalid plugin name") {
                throw AgeError.invalidKey("\(source) line \(line.number): \(why)")
            } catch {
                let hint = line.text.hasPrefix("AGE-SECRET-KEY-") ? " (it is an identity; use -i, or vfs-keygen -y to get its recipient)" : ""
                throw AgeError.invalidKey("\(source) line \(line.number) is not a valid recipient\(hint)")
            }
        }
        guard !out.isEmpty else { throw AgeError.invalidKey("no recipients found in \(source)") }
        return out
    }

    /// The recipient an identity file names in a comment before its first identity, as
    /// the key tools write it: `# public key: age1…` (age-keygen, age-plugin-se),
    /// `#    Recipient: age1yubikey1…` (age-plugin-yubikey: its labels right-aligned),
    /// `# recipient: age1…`. The label is matched without case; nil when there is none.
    /// A plugin's stub does not yield its recipient: this comment is where it is told.
    public static func recipientComment(in text: String) -> String? {
        var found: String?
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = Substring(rawLine)
            if line.hasSuffix("\r") { line = line.dropLast() }
            let trimmed = line.trimmingWhitespace()
            guard trimmed.hasPrefix("#") else {
                if trimmed.isEmpty { continue }
                break
            }
            let comment = trimmed.dropFirst().trimmingWhitespace()
            guard let colon = comment.firstIndex(of: ":") else { continue }
            let label = comment[..<colon].trimmingWhitespace().lowercased()
            let value = comment[comment.index(after: colon)...].trimmingWhitespace()
            if (label == "public key" || label == "recipient"), !value.isEmpty { found = String(value) }
        }
        return found
    }

    /// A new identity file's text, as age-keygen writes it.
    public static func identityFileText(_ identity: AgeIdentity, created: String) -> String {
        "# created: \(created)\n# public key: \(identity.recipient.string)\n\(identity.string)\n"
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> SubSequence {
        var s = self[...]
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return s
    }
}
