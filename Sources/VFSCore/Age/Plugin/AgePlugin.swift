/// age plugins (C2SP age-plugin): a recipient `age1NAME1…` or an identity
/// `AGE-PLUGIN-NAME-1…` is handled by the program `age-plugin-NAME` found on PATH,
/// run with `--age-plugin=recipient-v1` (to wrap a file key) or `identity-v1` (to
/// unwrap one) and spoken to over its standard input and output
/// (`PluginConnection`). This file holds the names and encodings, and the recipient
/// and identity kinds that run a plugin.
public enum AgePlugin {
    /// age's rule for a plugin's name: letters, digits and `+-._`, never empty. So a
    /// name is never a path (`../x`, `/bin/sh`): it is checked before anything runs.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { c in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || "+-._".utf8.contains(c)
        }
    }

    /// The program that serves plugin `name`.
    public static func programName(_ name: String) -> String { "age-plugin-" + name }

    static let recipientPrefix = "age1"
    static let identityPrefix = "AGE-PLUGIN-"

    /// `age1NAME1…` for `data`; nil for an invalid name.
    public static func encodeRecipient(name: String, data: [UInt8]) -> String? {
        guard isValidName(name) else { return nil }
        return Bech32.encode(hrp: recipientPrefix + name.lowercased(), data: data)
    }

    /// `AGE-PLUGIN-NAME-1…` for `data` (`-j NAME`: no data); nil for an invalid name.
    public static func encodeIdentity(name: String, data: [UInt8] = []) -> String? {
        guard isValidName(name) else { return nil }
        return Bech32.encode(hrp: identityPrefix + name.uppercased() + "-", data: data, uppercase: true)
    }

    /// The plugin name of a recipient string whose Bech32 prefix is `age1NAME`.
    static func name(ofRecipientPrefix hrp: String) throws -> String {
        let name = String(hrp.dropFirst(recipientPrefix.count))
        guard isValidName(name) else { throw AgeError.invalidKey("invalid plugin name \(quoted(Array(name.utf8))) in a recipient: only letters, digits and +-._") }
        return name
    }
}

/// A recipient served by a plugin: `age1NAME1…`, or a plugin identity used as a
/// recipient (age's `Identity.Recipient`: the plugin is given the identity).
public struct PluginRecipient: Recipient, Hashable {
    /// The plugin's name, lowercase.
    public let name: String
    /// The recipient (or identity) string as given.
    public let encoding: String
    /// True when `encoding` is an identity (`add-identity` instead of `add-recipient`).
    let isIdentity: Bool

    /// Parses `age1NAME1…` (a Bech32 string whose prefix is neither age's X25519 nor
    /// post-quantum one).
    public init(_ text: String) throws {
        guard let (hrp, _) = Bech32.decode(text), hrp.hasPrefix(AgePlugin.recipientPrefix) else {
            throw AgeError.invalidKey("invalid recipient \(quoted(Array(text.utf8)))")
        }
        guard text == text.lowercased() else {
            throw AgeError.invalidKey("invalid recipient \(quoted(Array(text.utf8))): must be lowercase")
        }
        name = try AgePlugin.name(ofRecipientPrefix: hrp)
        encoding = text
        isIdentity = false
    }

    init(identity: PluginIdentity) {
        name = identity.name
        encoding = identity.encoding
        isIdentity = true
    }

    public var string: String { encoding }

    public func wrap(fileKey: SecretBytes) throws -> [Stanza] { try wrapWithLabels(fileKey: fileKey).stanzas }

    /// The plugin's stanzas and labels (`labels`, which age's `extension-labels` asks for).
    public func wrapWithLabels(fileKey: SecretBytes) throws -> (stanzas: [Stanza], labels: Set<String>) {
        try PluginConnection.wrap(fileKey: fileKey, for: self, host: AgePlugin.host)
    }
}

/// An identity served by a plugin: `AGE-PLUGIN-NAME-1…` (a stub the plugin reads:
/// a YubiKey's serial and slot, say; no secret), or `-j NAME` (no data).
public struct PluginIdentity: Identity, Hashable {
    public let name: String
    public let encoding: String

    /// Parses `AGE-PLUGIN-NAME-1…`.
    public init(_ text: String) throws {
        guard let (hrp, _) = Bech32.decode(text), hrp.hasPrefix(AgePlugin.identityPrefix.lowercased()), hrp.hasSuffix("-") else {
            throw AgeError.invalidKey("invalid plugin identity (expected AGE-PLUGIN-NAME-1…)")
        }
        let name = String(hrp.dropFirst(AgePlugin.identityPrefix.count).dropLast())
        guard AgePlugin.isValidName(name) else {
            throw AgeError.invalidKey("invalid plugin name \(quoted(Array(name.utf8))) in an identity: only letters, digits and +-._")
        }
        self.name = name
        encoding = text
    }

    /// `-j NAME`: the plugin's identity without data.
    public init(pluginName name: String) throws {
        guard let encoding = AgePlugin.encodeIdentity(name: name) else {
            throw AgeError.invalidKey("invalid plugin name \(quoted(Array(name.utf8))): only letters, digits and +-._")
        }
        self.name = name.lowercased()
        self.encoding = encoding
    }

    public var string: String { encoding }

    /// The identity as a recipient: the plugin is asked to wrap for it.
    public var recipient: PluginRecipient { PluginRecipient(identity: self) }

    public func unwrap(stanzas: [Stanza]) throws -> SecretBytes? {
        try PluginConnection.unwrap(stanzas: stanzas, with: self, host: AgePlugin.host)
    }
}

/// What goes wrong with a plugin. The tools give each an exit status (VFSCommandLine).
public enum PluginError: Error, CustomStringConvertible, Equatable {
    /// `age-plugin-NAME` is not on PATH.
    case notFound(name: String)
    /// It could not be started.
    case cannotStart(name: String, reason: String)
    /// It broke the protocol: a malformed or unexpected message, a message too large,
    /// an early exit.
    case misbehaved(name: String, reason: String)
    /// It took longer than the time it is given.
    case timedOut(name: String, seconds: Int)
    /// It reported an error of its own (`error`): a wrong PIN, no token plugged in.
    case failed(name: String, message: String)
    /// It asked the user something and there is no terminal to ask on.
    case noTerminal(name: String, prompt: String)

    public var description: String {
        switch self {
        case .notFound(let name): return "plugin \(AgePlugin.programName(name)) not found on PATH"
        case .cannotStart(let name, let reason): return "cannot run plugin \(AgePlugin.programName(name)): \(reason)"
        case .misbehaved(let name, let reason): return "plugin \(AgePlugin.programName(name)) \(reason)"
        case .timedOut(let name, let seconds): return "plugin \(AgePlugin.programName(name)) did not finish within \(seconds) seconds"
        case .failed(let name, let message): return "plugin \(AgePlugin.programName(name)): \(message)"
        case .noTerminal(let name, let prompt):
            return "plugin \(AgePlugin.programName(name)) asks \(quoted(Array(prompt.utf8))) and there is no terminal to ask on"
        }
    }
}

/// How a plugin talks to the user: its `msg`, `request-public`, `request-secret` and
/// `confirm`. The tools answer on the terminal (VFSCommandLine).
public protocol PluginInteraction: Sendable {
    /// Shows a message from plugin `name`.
    func show(plugin name: String, message: String)
    /// The user's answer to `prompt` (without echo when `secret`); nil when there is no
    /// terminal to ask on.
    func ask(plugin name: String, prompt: String, secret: Bool) throws -> SecretBytes?
    /// True for `yes`, false for `no`; nil when there is no terminal to ask on.
    func confirm(plugin name: String, prompt: String, yes: String, no: String?) throws -> Bool?
}

/// No terminal: messages are dropped, questions can't be asked.
public struct NoPluginInteraction: PluginInteraction {
    public init() {}
    public func show(plugin name: String, message: String) {}
    public func ask(plugin name: String, prompt: String, secret: Bool) throws -> SecretBytes? { nil }
    public func confirm(plugin name: String, prompt: String, yes: String, no: String?) throws -> Bool? { nil }
}

/// Where plugins are looked for, how long each may take, and who answers their questions.
public struct PluginHost: Sendable {
    /// PATH's value (nil: the default folders).
    public var path: String?
    /// Seconds a plugin may take in all, the time spent waiting for the user's answers
    /// not counted: a hung plugin can't hang the tool.
    public var timeout: Int
    public var interaction: PluginInteraction

    /// Two minutes: time for a PIN, a touch, and a slow token.
    public static let defaultTimeout = 120

    public init(path: String?, timeout: Int = PluginHost.defaultTimeout, interaction: PluginInteraction = NoPluginInteraction()) {
        self.path = path
        self.timeout = timeout
        self.interaction = interaction
    }
}

extension AgePlugin {
    /// The host plugins run with; the tools set it once at start (their terminal, PATH,
    /// VFS_PLUGIN_TIMEOUT).
    public nonisolated(unsafe) static var host = PluginHost(path: VFSPaths.current.environment["PATH"])
}
