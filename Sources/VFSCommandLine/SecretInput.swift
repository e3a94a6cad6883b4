import ArgumentParser
import VFSCore
#if canImport(Glibc)
import Glibc
#endif

/// Where a secret comes from, in the order tried: a file, a file descriptor, an
/// environment variable (least safe), then a no-echo prompt on the terminal.
public struct SecretSource {
    public var file: String?
    public var fd: Int32?
    /// e.g. "passphrase" or "passcode", for messages and option names.
    public var noun: String
    public var environmentVariable: String
    /// Where `environmentVariable` is looked up: the process's, unless a test injects one.
    public var environment: [String: String]

    public init(file: String?, fd: Int32?, noun: String, environmentVariable: String,
                environment: [String: String] = VFSPaths.current.environment) {
        self.file = file
        self.fd = fd
        self.noun = noun
        self.environmentVariable = environmentVariable
        self.environment = environment
    }

    /// True if a non-interactive source was given.
    public var isNonInteractive: Bool {
        file != nil || fd != nil || environment[environmentVariable] != nil
    }

    /// Reads the secret. `confirm` asks twice on a terminal (for new secrets).
    public func read(prompt: String, confirm: Bool = false) throws -> SecretBytes {
        if let file {
            let source = try FileDescriptorSource(path: file)
            return try Self.firstLine(of: source, what: "\(noun) file \"\(file)\"")
        }
        if let fd {
            guard fcntl(fd, F_GETFD) != -1 else {
                throw ToolError.usage("--\(noun)-fd \(fd) is not an open file descriptor")
            }
            return try Self.firstLine(of: FileDescriptorSource(fd: fd, name: "file descriptor \(fd)"), what: "\(noun) fd \(fd)")
        }
        if let value = environment[environmentVariable] {
            let bytes = Array(value.utf8)
            guard !bytes.isEmpty else { throw ToolError("\(environmentVariable) is set but empty", exit: .usage) }
            return SecretBytes(copying: bytes)
        }
        guard let first = try Terminal.readSecret(prompt: prompt) else {
            throw ToolError("no \(noun) given and no terminal to ask for one", exit: .usage, hints: [
                "give it with --\(noun)-file PATH or --\(noun)-fd N, or in \(environmentVariable) (least safe)",
            ])
        }
        if confirm {
            guard let second = try Terminal.readSecret(prompt: "Confirm \(noun): ") else {
                throw ToolError("no terminal to confirm the \(noun)", exit: .usage)
            }
            guard first.isEqual(to: second) else { throw ToolError("the \(noun)s did not match", exit: .usage) }
        }
        guard first.count > 0 else { throw ToolError("empty \(noun)", exit: .usage) }
        return first
    }

    /// The first line of a source (without its line ending), read to the end.
    static func firstLine(of source: ByteSource, what: String) throws -> SecretBytes {
        var all = try source.readAll()
        defer { all.wipe() }
        var end = all.firstIndex(of: 0x0A) ?? all.count
        if end > 0 && all[end - 1] == 0x0D { end -= 1 }
        guard end > 0 else { throw ToolError("the \(what) is empty", exit: .dataError) }
        return SecretBytes(copying: all[0..<end])
    }
}

/// `--passphrase-file` and `--passphrase-fd`, with VFS_PASSPHRASE.
public struct PassphraseOptions: ParsableArguments {
    @Option(name: .customLong("passphrase-file"), help: ArgumentHelp("Read the passphrase from the first line of PATH.", valueName: "path"), completion: .file())
    public var passphraseFile: String?

    @Option(name: .customLong("passphrase-fd"), help: ArgumentHelp("Read the passphrase from file descriptor N.", valueName: "n"))
    public var passphraseFD: Int32?

    public init() {}

    public var source: SecretSource {
        SecretSource(file: passphraseFile, fd: passphraseFD, noun: "passphrase", environmentVariable: "VFS_PASSPHRASE")
    }
}
