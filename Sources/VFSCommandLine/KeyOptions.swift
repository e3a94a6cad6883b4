import ArgumentParser
import VFSCore

/// `-r RECIPIENT` and `-R FILE`, shared by the tools that encrypt.
public struct RecipientOptions: ParsableArguments {
    @Option(name: [.customShort("r", allowingJoined: true), .customLong("recipient")],
            help: ArgumentHelp("Encrypt to RECIPIENT (age1…, post-quantum age1pq1…, an ssh-ed25519/ssh-rsa public key, or a plugin's age1NAME1…). Repeatable.", valueName: "recipient"))
    public var recipients: [String] = []

    @Option(name: [.customShort("R", allowingJoined: true), .customLong("recipients-file")],
            help: ArgumentHelp("Encrypt to the recipients listed in PATH ('-' for stdin). Repeatable.", valueName: "path"), completion: .file())
    public var recipientsFiles: [String] = []

    public init() {}

    public var isEmpty: Bool { recipients.isEmpty && recipientsFiles.isEmpty }

    /// Every recipient named, parsed; duplicates removed in order.
    public func resolve() throws -> [AgeRecipient] {
        var out = [AgeRecipient]()
        for text in recipients {
            do { out.append(try AgeRecipient(text)) } catch let error as AgeError {
                var hints: [String] = []
                if text.hasPrefix("AGE-SECRET-KEY-") { hints.append("that is an identity; did you mean -i FILE? (vfs-keygen -y prints its recipient)") }
                else if text.hasPrefix("ssh-") || text.hasPrefix("ecdsa-") || text.hasPrefix("sk-") { hints.append("ssh-ed25519 and ssh-rsa public keys (2048 bits or more) are supported, quoted as one argument: -r \"$(cat ~/.ssh/id_ed25519.pub)\"") }
                else if !text.hasPrefix("age1") { hints.append("recipients start with age1; to read them from a file use -R \(text)") }
                throw ToolError(error.description, exit: .usage, hints: hints)
            }
        }
        for path in recipientsFiles {
            let text = String(decoding: try ToolIO.openInput(path).readAll(), as: UTF8.self)
            do { out += try KeyFile.recipients(in: text, source: path == "-" ? "standard input" : "\"\(path)\"") }
            catch let error as AgeError { throw ToolError(error.description, exit: .dataError) }
        }
        var seen = Set<AgeRecipient>()
        return out.filter { seen.insert($0).inserted }
    }
}

/// `-i FILE`, shared by the tools that decrypt.
public struct IdentityOptions: ParsableArguments {
    @Option(name: [.customShort("i", allowingJoined: true), .customLong("identity")],
            help: ArgumentHelp("Use the identities in PATH: an age identity file (passphrase-protected too, plugin stubs AGE-PLUGIN-NAME-1… too), or an OpenSSH ssh-ed25519/ssh-rsa private key ('-' for stdin). Repeatable.", valueName: "path"), completion: .file())
    public var identityFiles: [String] = []

    @OptionGroup var plugins: PluginIdentityOption

    public init() {}

    /// `passphrase` opens passphrase-protected identity files (a terminal prompt unless
    /// the tool has a passphrase source of its own). The -j plugins come last.
    public func resolve(passphrase: SecretSource = IdentityOptions.defaultPassphraseSource) throws -> [AgeIdentity] {
        try Self.load(identityFiles, passphrase: passphrase) + plugins.identities().map { .plugin($0) }
    }

    /// VFS_PASSPHRASE, else the terminal.
    public static var defaultPassphraseSource: SecretSource {
        SecretSource(file: nil, fd: nil, noun: "passphrase", environmentVariable: "VFS_PASSPHRASE")
    }

    /// Reads identity files ('-' is stdin): age identity lines, an OpenSSH private key,
    /// or either of those inside a passphrase-protected (age-encrypted) file.
    public static func load(_ paths: [String], passphrase: SecretSource = IdentityOptions.defaultPassphraseSource) throws -> [AgeIdentity] {
        var out = [AgeIdentity]()
        for path in paths {
            let source = path == "-" ? "standard input" : "\"\(path)\""
            var bytes = try ToolIO.openInput(path).readAll()
            defer { bytes.wipe() }
            let text: String
            if ProtectedIdentityFile.isEncrypted(bytes) {
                do {
                    text = try ProtectedIdentityFile.decrypt(bytes, source: source) {
                        try passphrase.read(prompt: "Enter passphrase for identity file \(source): ")
                    }
                } catch AgeError.noMatch {
                    throw ToolError("incorrect passphrase for identity file \(source)", exit: .permissionDenied)
                } catch let error as AgeError {
                    throw ToolError(error.description, exit: .dataError, hints: error.hints)
                }
            } else {
                text = String(decoding: bytes, as: UTF8.self)
            }
            do { out += try KeyFile.identities(in: text, source: source) }
            catch let error as AgeError {
                throw ToolError(error.description, exit: .dataError, hints: error.hints)
            }
        }
        return out
    }
}

/// `-j NAME`, as age's: the identity of plugin NAME without data (age-plugin-NAME on PATH).
struct PluginIdentityOption: ParsableArguments {
    @Option(name: .customShort("j", allowingJoined: true),
            help: ArgumentHelp("Use plugin NAME's identity without data (age-plugin-NAME on PATH). Repeatable.", valueName: "name"))
    var names: [String] = []

    init() {}

    var isEmpty: Bool { names.isEmpty }

    /// The identities; a name that is not a plugin's (a path, say) is refused before anything runs.
    func identities() throws -> [PluginIdentity] {
        try names.map { name in
            do { return try PluginIdentity(pluginName: name) } catch let error as AgeError {
                throw ToolError(error.description, exit: .usage, hints: ["-j takes a plugin's name: -j yubikey runs age-plugin-yubikey from PATH"])
            }
        }
    }
}
