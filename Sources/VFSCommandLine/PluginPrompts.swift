import VFSCore

/// Plugins' questions on the terminal, as the tools' own prompts: `request-secret`
/// without echo, `request-public` and `confirm` with it, and no terminal means no
/// answer (the run fails at once). Their messages are notes on stderr.
struct TerminalPluginInteraction: PluginInteraction {
    init() {}

    func show(plugin name: String, message: String) {
        Diagnostics.info("\(AgePlugin.programName(name)): \(message)")
    }

    func ask(plugin name: String, prompt: String, secret: Bool) throws -> SecretBytes? {
        try Terminal.readLine(prompt: Self.prompt(prompt), echo: !secret)
    }

    func confirm(plugin name: String, prompt: String, yes: String, no: String?) throws -> Bool? {
        let choices = no.map { "[\(yes)/\($0)]" } ?? "[\(yes)]"
        for _ in 0..<SecretSource.tries {
            guard let answer = try Terminal.readLine(prompt: Self.prompt("\(prompt) \(choices)"), echo: true) else { return nil }
            let text = answer.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.trimmingCharacters(in: " ")
            if text == yes { return true }
            if let no, text == no { return false }
            Diagnostics.info("answer \(choices)")
        }
        return false
    }

    /// The plugin's text, ended by one space.
    static func prompt(_ text: String) -> String {
        text.hasSuffix(" ") ? text : text + " "
    }
}

extension PluginHost {
    /// The tools' host: PATH, VFS_PLUGIN_TIMEOUT (seconds, for a plugin in all; a
    /// value that is not a whole number above 0 is warned about and not used), and the
    /// terminal.
    static func forTools(environment: [String: String]) -> PluginHost {
        var timeout = PluginHost.defaultTimeout
        if let text = environment["VFS_PLUGIN_TIMEOUT"] {
            if let seconds = Int(text), seconds > 0 {
                timeout = seconds
            } else {
                Diagnostics.warn("VFS_PLUGIN_TIMEOUT is not a whole number of seconds above 0; plugins get \(timeout)")
            }
        }
        return PluginHost(path: environment["PATH"], timeout: timeout, interaction: TerminalPluginInteraction())
    }
}
