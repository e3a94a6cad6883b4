import ArgumentParser
import VFSCore

/// `-r RECIPIENT` and `-R FILE`, shared by the tools that encrypt.
public struct RecipientOptions: ParsableArguments {
    @Option(name: [.customShort("r"), .customLong("recipient")],
            help: ArgumentHelp("Encrypt to RECIPIENT (age1… or post-quantum age1pq1…). Repeatable.", valueName: "recipient"))
    public var recipients: [String] = []

    @Option(name: [.customShort("R"), .customLong("recipients-file")],
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
                else if text.hasPrefix("ssh-") { hints.append("SSH keys are not supported; make an age key with vfs-keygen") }
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
    @Option(name: [.customShort("i"), .customLong("identity")],
            help: ArgumentHelp("Use the identities in PATH ('-' for stdin). Repeatable.", valueName: "path"), completion: .file())
    public var identityFiles: [String] = []

    public init() {}

    public func resolve() throws -> [AgeIdentity] {
        try Self.load(identityFiles)
    }

    /// Reads identity files ('-' is stdin).
    public static func load(_ paths: [String]) throws -> [AgeIdentity] {
        var out = [AgeIdentity]()
        for path in paths {
            let text = String(decoding: try ToolIO.openInput(path).readAll(), as: UTF8.self)
            do { out += try KeyFile.identities(in: text, source: path == "-" ? "standard input" : "\"\(path)\"") }
            catch let error as AgeError {
                var hints: [String] = []
                if text.contains("age-encryption.org/v1") || text.contains("BEGIN AGE ENCRYPTED FILE") {
                    hints.append("passphrase-protected identity files are not supported; decrypt it first with vfs-decrypt")
                }
                throw ToolError(error.description, exit: .dataError, hints: hints)
            }
        }
        return out
    }
}
