import ArgumentParser
import VFSCore

/// What users of the peer tools type, put right (or refused with a plain message)
/// before ArgumentParser sees the command line: options written before the
/// subcommand (`vfs-policy --policy p.json list`) are moved after it; a mistyped
/// subcommand gets "did you mean"; `--passphrase-*` where the command takes
/// `--passcode-*` (and the other way round) gets "did you mean".
enum ArgumentHabits {
    /// Words peers use for a subcommand this toolkit names otherwise.
    static let synonyms: [String: [String]] = [
        "show": ["get", "list", "status"], "ls": ["list"], "rm": ["remove", "delete"], "del": ["delete", "remove"],
        "insert": ["set", "add"], "new": ["add", "init", "create"], "create": ["add", "init"], "put": ["set"],
        "edit": ["set --update", "update"], "cat": ["get"],
    ]
    /// Arguments after which the command line is ArgumentParser's alone.
    static let helpWords: Set<String> = ["-h", "--help", "--help-hidden", "--generate-completion-script",
                                         "--experimental-dump-help", "--version", "help"]

    static func mend(_ arguments: [String], root: ParsableCommand.Type) throws -> [String] {
        var command = root
        var path: [String] = []
        var leading: [String] = []
        var i = 0
        walk: while i < arguments.count {
            let argument = arguments[i]
            let subcommands = command.configuration.subcommands
            if subcommands.isEmpty || argument == "--" || helpWords.contains(argument) { break }
            if argument.hasPrefix("-") && argument != "-" {
                // A tool whose options belong to a default subcommand keeps them where they are.
                if command.configuration.defaultSubcommand != nil { return arguments }
                leading.append(argument)
                i += 1
                continue
            }
            if let sub = subcommands.first(where: { name(of: $0) == argument || $0.configuration.aliases.contains(argument) }) {
                path.append(argument)
                command = sub
                i += 1
                continue
            }
            // The value of an option written before the subcommand.
            if let last = leading.last, !last.contains("="), last.hasPrefix("--") || last.count == 2 {
                leading.append(argument)
                i += 1
                continue
            }
            if command.configuration.defaultSubcommand != nil { return arguments }
            throw unknownSubcommand(argument, of: command, path: path)
        }
        let mended = leading.isEmpty || path.isEmpty ? arguments : path + leading + arguments[i...]
        try checkSecretNouns(mended, leaf: command, root: root)
        return mended
    }

    static func name(of command: ParsableCommand.Type) -> String {
        command.configuration.commandName ?? String(describing: command).lowercased()
    }

    static func unknownSubcommand(_ word: String, of command: ParsableCommand.Type, path: [String]) -> ToolError {
        // The commands --help shows (internal ones stay unnamed).
        let names = command.configuration.subcommands.filter { $0.configuration.shouldDisplay }.map(name(of:))
        var candidates = names.filter { editDistance($0, word) <= max(1, min(2, word.count / 3)) || ($0.hasPrefix(word) && word.count >= 2) }
        for synonym in synonyms[word] ?? [] where names.contains(String(synonym.split(separator: " ")[0])) && !candidates.contains(synonym) {
            candidates.append(synonym)
        }
        let prefix = ([Diagnostics.tool] + path).joined(separator: " ")
        var hints: [String] = []
        if !candidates.isEmpty {
            hints.append("did you mean " + candidates.map { "\(prefix) \($0)" }.joined(separator: " or ") + "?")
        }
        hints.append("the commands: \(names.joined(separator: ", ")) (\(prefix) --help)")
        return ToolError.usage("unknown command \"\(word)\"", hints: hints)
    }

    /// `--passphrase-file` given to a command that reads a passcode, and the other way round.
    static func checkSecretNouns(_ arguments: [String], leaf: ParsableCommand.Type, root: ParsableCommand.Type) throws {
        var help: String?
        for argument in arguments {
            if argument == "--" { return }
            guard argument.hasPrefix("--passphrase") || argument.hasPrefix("--passcode") else { continue }
            let option = String(argument.split(separator: "=", maxSplits: 1)[0])
            let text = help ?? root.helpMessage(for: leaf, includeHidden: true)
            help = text
            let known = text.split(whereSeparator: { " ,[]<>\n".contains($0) }).map(String.init)
            if known.contains(option) { continue }
            let isPassphrase = option.hasPrefix("--passphrase")
            let other = isPassphrase ? option.replacingFirst("--passphrase", with: "--passcode")
                                     : option.replacingFirst("--passcode", with: "--passphrase")
            guard known.contains(other) else { continue }
            throw ToolError.usage("unknown option \"\(option)\"", hints: [
                isPassphrase ? "did you mean \(other)? the keychain's secret is its passcode; a passphrase is what a file is encrypted with (vfs-encrypt -p)"
                             : "did you mean \(other)? a file encrypted with vfs-encrypt -p has a passphrase; the passcode unlocks the keychain",
            ])
        }
    }

    /// Levenshtein distance, for short words.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let saved = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = saved
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        var copy = self
        copy.replaceSubrange(range, with: replacement)
        return copy
    }
}

/// Standard input can feed one thing a run reads; naming it twice gets age's message.
public enum StandardInputUse {
    /// `uses` are the readers that would take stdin (e.g. "the input", "-i -").
    public static func check(_ uses: [(String, Bool)]) throws {
        let taking = uses.filter { $0.1 }.map { $0.0 }
        guard taking.count > 1 else { return }
        throw ToolError.usage("standard input is used for multiple purposes", hints: [
            "\(taking.joined(separator: " and ")) would all read it; give all but one of them as files",
        ])
    }
}
