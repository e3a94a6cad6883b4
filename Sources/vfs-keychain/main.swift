import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore

@main
struct Keychain: VFSCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-keychain",
        abstract: "Keep secrets and age identities in one encrypted keychain file, unlocked by a passcode or an agent.",
        discussion: """
        The keychain is one file: $VFS_KEYCHAIN, else $VFS_HOME/keychain, else \
        $XDG_DATA_HOME/vfs/keychain, else ~/.local/share/vfs/keychain (mode 0600 in a \
        0700 folder). Names and secrets alike are encrypted (ChaCha20-Poly1305) with a \
        random master key. The header holds that key wrapped once per key slot: the \
        passcode slot (scrypt), and optionally a recovery slot from the normalised \
        answers to security questions, whose questions are kept readable so recover \
        can ask them. A header MAC makes any edit of the file fail authentication.

        File format, version 1 (integers big-endian): the magic VFSKEYCH, a u16 \
        version, a 16-byte random keychain id, a slot count (1 or 2), then per slot its \
        kind (1 passcode, 2 recovery), scrypt log2 N, r and p, a 16-byte salt and the \
        48-byte master key wrapped with ChaCha20-Poly1305 under scrypt(secret, salt); \
        the recovery slot adds its questions (count, then u16 length + UTF-8 each). A \
        32-byte HMAC-SHA-256 of all that follows, keyed from the master key, then the \
        body: a 12-byte nonce, a u32 length and the entries sealed with \
        ChaCha20-Poly1305 under a key derived (HKDF-SHA-256) from the master key: a \
        u32 count, then per entry its kind (1 secret, 2 identity), service, account \
        and label (u16 length + UTF-8 each), created and modified (i64 seconds) and \
        the secret (u32 length + bytes). \
        Recovery answers are normalised (Unicode NFC, trimmed, inner whitespace \
        collapsed, case-folded) and joined with length prefixes. A change to the \
        passcode slot reads as a wrong passcode (77); any other change, a truncation \
        or extra bytes, as damage (65).

        Protection classes: a locked keychain has complete protection: nothing in it \
        can be read without the passcode. `unlock` starts an agent that holds the \
        master key in memory, for this user only (a 0700 folder: \
        $XDG_RUNTIME_DIR/vfs, else /run/user/UID/vfs, else /tmp/vfs-UID, and a peer \
        uid check), so scripts \
        and cron jobs run many commands after one unlock: the keychain is then \
        available until `lock` or the timeout, when the key is wiped.

        Commands use the agent first, then the passcode from --passcode-file, \
        --passcode-fd, VFS_PASSCODE (least safe: other processes of the user may read \
        it) or a no-echo prompt; without any of these and without a terminal they fail \
        at once. Every change is saved atomically (temporary file, fsync, rename, fsync \
        of the folder) under an exclusive lock (PATH.lock), after re-reading the file, \
        so concurrent writers never lose an entry. The file as it was before the last \
        change is kept as PATH.prev; a damaged keychain is reported and never \
        overwritten.

        Examples:
          vfs-keychain init --questions questions.txt
          printf %s "$TOKEN" | vfs-keychain set github.com deploy-bot
          curl -H "Authorization: Bearer $(vfs-keychain get github.com deploy-bot)" …
          vfs-keychain unlock --timeout 1h && vfs-keychain list
          vfs-keychain identity new backups > backups.recipient
          vfs-decrypt -K backups -o db.sqlite db.sqlite.age

        Exit status: 0 success (status: unlocked); 1 a clean no (get or delete of an \
        entry that is not there, status: locked); 64 usage; 65 the keychain is damaged \
        or was modified (it is left untouched), or an identity file is not valid; 66 no \
        keychain, no such identity, or no recovery questions; 73 the keychain or the \
        entry already exists, or a file cannot be written; 74 I/O error; 75 the keychain \
        was replaced meanwhile, or the agent cannot start; 77 wrong passcode or \
        recovery answers, or the keychain is locked and no passcode was given.
        """,
        version: vfsVersion,
        subcommands: [Init.self, Set.self, Get.self, Delete.self, List.self, Import.self, Passcode.self, Recover.self,
                      Identity.self, Unlock.self, Lock.self, Status.self, Agent.self])

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

    /// Writes `bytes` to stdout.
    static func output(_ bytes: [UInt8]) throws {
        try FileDescriptorSink.standardOutput().write(bytes)
    }
}

/// `--new-passcode-file`, `--new-passcode-fd`, VFS_NEW_PASSCODE: the passcode to set.
struct NewPasscodeOptions: ParsableArguments {
    @Option(name: .customLong("new-passcode-file"), help: ArgumentHelp("Read the new passcode from the first line of PATH.", valueName: "path"))
    var newPasscodeFile: String?

    @Option(name: .customLong("new-passcode-fd"), help: ArgumentHelp("Read the new passcode from file descriptor N.", valueName: "n"))
    var newPasscodeFD: Int32?

    var source: SecretSource {
        SecretSource(file: newPasscodeFile, fd: newPasscodeFD, noun: "new-passcode", environmentVariable: "VFS_NEW_PASSCODE")
    }

    func read() throws -> SecretBytes {
        try source.read(prompt: "New passcode: ", confirm: true)
    }
}

/// `--answers-file`: the answers to the recovery questions, one a line.
struct AnswersOptions: ParsableArguments {
    @Option(name: .customLong("answers-file"), help: ArgumentHelp("Read the answers to the recovery questions from PATH, one a line, in order.", valueName: "path"))
    var answersFile: String?

    /// One answer per question, from the file or asked on the terminal without echo.
    func read(for questions: [String]) throws -> [String] {
        if let answersFile {
            let text = String(decoding: try ToolIO.openInput(answersFile).readAll(), as: UTF8.self)
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
            if lines.last == "" { lines.removeLast() }
            guard lines.count == questions.count else {
                throw ToolError.usage("\"\(answersFile)\" has \(lines.count) answer\(lines.count == 1 ? "" : "s") for \(questions.count) question\(questions.count == 1 ? "" : "s")",
                                      hints: ["write one answer a line, in the order of the questions"])
            }
            guard lines.allSatisfy({ !RecoveryAnswers.normalise($0).isEmpty }) else { throw ToolError.usage("an answer in \"\(answersFile)\" is empty") }
            return lines
        }
        guard Terminal.canPrompt else {
            throw ToolError.usage("no answers given and no terminal to ask for them", hints: ["give them with --answers-file PATH, one a line"])
        }
        var answers: [String] = []
        for question in questions {
            guard let secret = try Terminal.readSecret(prompt: question + " ") else { throw ToolError.usage("no terminal to ask \"\(question)\"") }
            let answer = String(decoding: secret.bytes, as: UTF8.self)
            guard !RecoveryAnswers.normalise(answer).isEmpty else { throw ToolError.usage("empty answer to \"\(question)\"") }
            answers.append(answer)
        }
        return answers
    }
}

extension Keychain {
    struct Init: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a new keychain protected by a passcode, and optionally security questions.",
            discussion: """
            The passcode comes from --passcode-file, --passcode-fd, VFS_PASSCODE or the \
            terminal (asked twice). With --questions FILE (one question a line; blank \
            lines and # comments skipped; 1 to 16 questions), a recovery slot is added: \
            its key comes from the answers (from --answers-file, one a line, or asked on \
            the terminal), trimmed, case-folded and with inner spaces collapsed, so \
            recover can set a new passcode later. An existing keychain is never replaced.
            """)

        @OptionGroup var passcodeOptions: PasscodeOptions

        @Option(name: .customLong("questions"), help: ArgumentHelp("Add recovery questions, one a line, from PATH.", valueName: "path"))
        var questionsFile: String?

        @OptionGroup var answersOptions: AnswersOptions

        @Option(name: .customLong("work-factor"), help: ArgumentHelp("scrypt work factor log2(N) for the key slots (default 18, as age; 1-22; low values only for tests).", valueName: "n"))
        var workFactor: Int = ScryptRecipient.defaultWorkFactor

        func check() throws {
            guard (1...KeySlot.maxWorkFactor).contains(workFactor) else { throw ToolError.usage("--work-factor must be from 1 to \(KeySlot.maxWorkFactor)") }
            if answersOptions.answersFile != nil && questionsFile == nil {
                throw ToolError.usage("--answers-file goes with --questions")
            }
        }

        func run() throws {
            let store = KeychainStore(path: ToolPaths.keychain)
            guard !store.exists else { throw KeychainError.exists(path: store.path) }
            var questions: [String] = []
            if let questionsFile {
                let text = String(decoding: try ToolIO.openInput(questionsFile).readAll(), as: UTF8.self)
                questions = text.split(separator: "\n").map { String($0.hasSuffix("\r") ? $0.dropLast() : $0).trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty && !$0.hasPrefix("#") }
                guard (1...KeySlot.maxQuestions).contains(questions.count) else {
                    throw ToolError.usage("\"\(questionsFile)\" has \(questions.count) questions; give 1 to \(KeySlot.maxQuestions), one a line")
                }
                for question in questions { try KeychainNames.check(question, what: "question") }
            }
            let passcode = try passcodeOptions.source.read(prompt: "New keychain passcode: ", confirm: true)
            let answers = questions.isEmpty ? [] : try answersOptions.read(for: questions)
            let masterKey = try KeychainFormat.newMasterKey()
            let passcodeSlot = try KeySlot.wrap(masterKey, kind: .passcode, secret: passcode, workFactor: workFactor)
            let recoverySlot = questions.isEmpty ? nil : try KeySlot.wrap(masterKey, kind: .recovery, secret: RecoveryAnswers.secret(answers),
                                                                         workFactor: workFactor, questions: questions)
            let folder = store.path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            if !folder.isEmpty {
                try ToolPaths.makePrivateFolder(folder)
                var info = stat()
                if stat(folder, &info) == 0, info.st_mode & 0o077 != 0 {
                    Diagnostics.warn("the folder \"\(folder)\" is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 700 it")
                }
            }
            try store.create(header: KeychainHeader.new(passcode: passcodeSlot, recovery: recoverySlot), masterKey: masterKey)
            Diagnostics.info("created \"\(store.path)\"" + (questions.isEmpty ? "" : " with \(questions.count) recovery question\(questions.count == 1 ? "" : "s")"))
        }
    }

    struct Set: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store a secret for SERVICE and ACCOUNT.",
            discussion: """
            The secret is read from stdin when it is not a terminal: all of it, bytes as \
            they are (several lines, binary; up to 16 MiB), less one trailing newline (LF or CRLF) so \
            that echo and here-strings store what you meant; --raw keeps every byte. On a \
            terminal it is asked twice without echo. An existing entry is replaced only \
            with --update (else exit 73); --update also creates a missing one.
            """)

        static let maxSecretCount = 16 << 20

        @Argument(help: "The service (a host name, an app).") var service: String
        @Argument(help: "The account (a user name).") var account: String

        @Flag(name: .long, help: "Replace the secret if the entry exists.")
        var update = false

        @Option(name: .long, help: ArgumentHelp("A free-text label, shown by list.", valueName: "text"))
        var label: String?

        @Flag(name: .long, help: "Store stdin byte for byte (keep a trailing newline).")
        var raw = false

        @OptionGroup var passcodeOptions: PasscodeOptions

        func check() throws {
            try KeychainNames.check(service, what: "service")
            try KeychainNames.check(account, what: "account")
            if let label { try KeychainNames.check(label, what: "label") }
        }

        func run() throws {
            let secret = try readSecret()
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            let now = Keychain.now()
            try session.update { entries -> (Void, Bool) in
                if let index = entries.firstIndex(where: { $0.matches(.secret, service, account) }) {
                    guard update else {
                        throw ToolError("an entry for \"\(service)\" \"\(account)\" already exists", exit: .cannotCreate,
                                        hints: ["replace it with vfs-keychain set --update \(service) \(account)"])
                    }
                    entries[index].secret = secret
                    entries[index].modified = now
                    if let label { entries[index].label = label }
                } else {
                    entries.append(KeychainEntry(kind: .secret, service: service, account: account, label: label ?? "",
                                                 created: now, modified: now, secret: secret))
                }
                return ((), true)
            }
        }

        func readSecret() throws -> SecretBytes {
            if Terminal.stdinIsTerminal {
                guard let first = try Terminal.readSecret(prompt: "Secret for \(service) \(account): "),
                      let second = try Terminal.readSecret(prompt: "Repeat the secret: ") else {
                    throw ToolError.usage("no terminal to ask for the secret")
                }
                guard first.isEqual(to: second) else { throw ToolError.usage("the secrets did not match") }
                guard first.count > 0 else { throw ToolError.usage("empty secret") }
                return first
            }
            var bytes = try FileDescriptorSource.standardInput().readAll()
            defer { for i in bytes.indices { bytes[i] = 0 } }
            guard bytes.count <= Self.maxSecretCount else {
                throw ToolError.usage("the secret on standard input is larger than 16 MiB", hints: ["keep large files encrypted with vfs-encrypt -K NAME instead"])
            }
            var end = bytes.count
            if !raw && end > 0 && bytes[end - 1] == 0x0A {
                end -= 1
                if end > 0 && bytes[end - 1] == 0x0D { end -= 1 }
            }
            guard end > 0 else {
                throw ToolError.usage("empty secret on standard input", hints: ["pipe the secret in: printf %s \"$SECRET\" | vfs-keychain set \(service) \(account)"])
            }
            return SecretBytes(copying: bytes[0..<end])
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the secret of SERVICE and ACCOUNT, and nothing else.",
            discussion: """
            The secret is written to stdout exactly as stored, with no newline added \
            (so $(vfs-keychain get …) and pipes get the secret itself); on a terminal a \
            newline is added for display. Exit 1 if there is no such entry.
            """)

        @Argument(help: "The service.") var service: String
        @Argument(help: "The account.") var account: String
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            let keychain = try KeychainSession.unlock(passcode: passcodeOptions.source)
            guard let secret = try keychain.sealed.secret(masterKey: keychain.masterKey, kind: .secret, service: service, account: account) else {
                throw ToolError("no secret for \"\(service)\" \"\(account)\"", exit: .no)
            }
            var bytes = secret.bytes
            defer { for i in bytes.indices { bytes[i] = 0 } }
            if Terminal.stdoutIsTerminal && bytes.last != 0x0A { bytes.append(0x0A) }
            try Keychain.output(bytes)
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove the secret of SERVICE and ACCOUNT (exit 1 if there is none).")

        @Argument(help: "The service.") var service: String
        @Argument(help: "The account.") var account: String
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            let removed = try session.update { entries -> (Bool, Bool) in
                guard let index = entries.firstIndex(where: { $0.matches(.secret, service, account) }) else { return (false, false) }
                entries.remove(at: index)
                return (true, true)
            }
            guard removed else { throw ToolError("no secret for \"\(service)\" \"\(account)\"", exit: .no) }
        }
    }

    struct ListedEntry: Encodable {
        let service: String
        let account: String
        let label: String
        let created: Date
        let modified: Date
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the entries: service, account, label and dates, never secrets.",
            discussion: """
            One entry a line, sorted: service, account, last modified (ISO 8601, UTC) and \
            label, separated by tabs. --json writes an array of {service, account, label, \
            created, modified}. SERVICE limits the list to one service.
            """)

        @Argument(help: "Only this service.") var service: String?
        @Flag(name: .long, help: "Write JSON.") var json = false
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            let entries = session.entries.filter { $0.kind == .secret && (service == nil || $0.service == service) }
                .sorted { ($0.service, $0.account) < ($1.service, $1.account) }
            if json {
                try JSONOutput.print(entries.map { ListedEntry(service: $0.service, account: $0.account, label: $0.label,
                                                               created: Keychain.date($0.created), modified: Keychain.date($0.modified)) })
                return
            }
            let formatter = ISO8601DateFormatter()
            let text = entries.map { "\($0.service)\t\($0.account)\t\(formatter.string(from: Keychain.date($0.modified)))\t\($0.label)\n" }.joined()
            try Keychain.output(Array(text.utf8))
        }
    }

    struct ImportedEntry: Decodable {
        let service: String
        let account: String
        let secret: String
        let label: String?
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add many secrets at once from a JSON array (to move a store over).",
            discussion: """
            FILE ('-' or none for stdin) holds [{"service": …, "account": …, "secret": …, \
            "label": …}, …] (label optional; the secret is the exact string). All of them \
            are added in one save, or none: an entry that exists already stops the import \
            with exit 73 unless --update replaces it.
            """)

        @Argument(help: ArgumentHelp("The JSON file ('-' or none for stdin).", valueName: "file")) var file: String?
        @Flag(name: .long, help: "Replace the secrets of entries that exist.") var update = false
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            var data = try ToolIO.openInput(file).readAll()
            defer { for i in data.indices { data[i] = 0 } }
            let imported: [ImportedEntry]
            do { imported = try JSONDecoder().decode([ImportedEntry].self, from: Data(data)) } catch {
                throw ToolError("\(file.map { "\"\($0)\"" } ?? "standard input") is not a JSON array of {service, account, secret, label}", exit: .dataError)
            }
            for item in imported {
                try KeychainNames.check(item.service, what: "service")
                try KeychainNames.check(item.account, what: "account")
                guard !item.secret.isEmpty else { throw ToolError.usage("empty secret for \"\(item.service)\" \"\(item.account)\"") }
            }
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            let now = Keychain.now()
            let count = try session.update { entries -> (Int, Bool) in
                var index: [String: Int] = [:]
                for (i, entry) in entries.enumerated() where entry.kind == .secret { index[entry.service + "\u{0}" + entry.account] = i }
                for item in imported {
                    let secret = SecretBytes(copying: Array(item.secret.utf8))
                    if let i = index[item.service + "\u{0}" + item.account] {
                        guard update else {
                            throw ToolError("an entry for \"\(item.service)\" \"\(item.account)\" already exists; nothing was imported", exit: .cannotCreate,
                                            hints: ["replace existing entries with --update"])
                        }
                        entries[i].secret = secret
                        entries[i].modified = now
                        if let label = item.label { entries[i].label = label }
                    } else {
                        index[item.service + "\u{0}" + item.account] = entries.count
                        entries.append(KeychainEntry(kind: .secret, service: item.service, account: item.account, label: item.label ?? "",
                                                     created: now, modified: now, secret: secret))
                    }
                }
                return (imported.count, !imported.isEmpty)
            }
            Diagnostics.info("imported \(count) entr\(count == 1 ? "y" : "ies")")
        }
    }

    struct Passcode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change the passcode (rewraps the passcode slot; the entries are not re-encrypted).",
            discussion: """
            The current passcode is always asked for (the agent does not stand in for \
            it): from --passcode-file, --passcode-fd, VFS_PASSCODE or the terminal. The \
            new one comes from --new-passcode-file, --new-passcode-fd, VFS_NEW_PASSCODE \
            or the terminal (asked twice). A wrong current passcode exits 77 and changes \
            nothing. A running agent keeps working: the master key does not change.
            """)

        @OptionGroup var passcodeOptions: PasscodeOptions
        @OptionGroup var newPasscodeOptions: NewPasscodeOptions

        func run() throws {
            let session = try KeychainSession.open(passcode: passcodeOptions.source, useAgent: false)
            let newPasscode = try newPasscodeOptions.read()
            try session.store.updateHeader(keychainID: session.sealed.header.id, masterKey: session.masterKey) { header in
                header.replacing(try header.passcodeSlot.rewrapped(session.masterKey, secret: newPasscode))
            }
            Diagnostics.info("passcode changed")
        }
    }

    struct Recover: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Answer the recovery questions and set a new passcode.",
            discussion: """
            Asks each question on the terminal (answers not echoed), or reads the \
            answers from --answers-file, one a line. Answers are compared trimmed, \
            case-folded and with inner spaces collapsed. The new passcode comes from \
            --new-passcode-file, --new-passcode-fd, VFS_NEW_PASSCODE or the terminal. \
            Wrong answers exit 77 and change nothing.
            """)

        @OptionGroup var answersOptions: AnswersOptions
        @OptionGroup var newPasscodeOptions: NewPasscodeOptions

        func run() throws {
            let store = KeychainStore(path: ToolPaths.keychain)
            let sealed = try store.read()
            guard let slot = sealed.header.recoverySlot else { throw KeychainError.noRecovery(path: store.path) }
            let answers = try answersOptions.read(for: slot.questions)
            let masterKey = try sealed.unlock(answers: answers)
            _ = try sealed.open(masterKey: masterKey)
            let newPasscode = try newPasscodeOptions.read()
            try store.updateHeader(keychainID: sealed.header.id, masterKey: masterKey) { header in
                header.replacing(try header.passcodeSlot.rewrapped(masterKey, secret: newPasscode))
            }
            Diagnostics.info("passcode reset")
        }
    }
}


extension Keychain {
    struct Identity: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep age identities in the keychain, for vfs-decrypt -K and vfs-encrypt -K.",
            discussion: """
            An identity is filed by NAME (not "all", which -K all uses for every \
            identity). Its recipient (age1…) is printed on stdout by new, import and \
            recipient; its secret key never leaves the keychain except to the tools \
            that use it.
            """,
            subcommands: [New.self, Import.self, Recipient.self, List.self, Delete.self])
    }
}

extension Keychain.Identity {
    /// Adds an identity entry; exit 73 if the name is taken.
    static func add(_ identity: X25519Identity, name: String, session: KeychainSession) throws {
        let now = Keychain.now()
        try session.update { entries -> (Void, Bool) in
            guard !entries.contains(where: { $0.matches(.identity, name, "") }) else {
                throw ToolError("an identity \"\(name)\" already exists", exit: .cannotCreate,
                                hints: ["choose another name, or remove it first with vfs-keychain identity delete \(name)"])
            }
            entries.append(KeychainEntry(identityNamed: name, identity, created: now))
            return ((), true)
        }
        try Keychain.output(Array((identity.recipient.string + "\n").utf8))
    }

    struct New: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(abstract: "Make a new identity called NAME and print its recipient.")
        @Argument(help: "The identity's name.") var name: String
        @OptionGroup var passcodeOptions: PasscodeOptions

        func check() throws { try KeychainNames.checkIdentity(name) }

        func run() throws {
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            try Keychain.Identity.add(try X25519Identity.generate(), name: name, session: session)
        }
    }

    struct Import: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store the identity in FILE (an age identity file, '-' for stdin) as NAME; print its recipient.",
            discussion: "The file must hold exactly one identity. It is left as it is: shred it yourself once imported (vfs-shred).")
        @Argument(help: "The identity's name.") var name: String
        @Argument(help: "The identity file ('-' for stdin).") var file: String
        @OptionGroup var passcodeOptions: PasscodeOptions

        func check() throws { try KeychainNames.checkIdentity(name) }

        func run() throws {
            let identities = try IdentityOptions.load([file])
            guard identities.count == 1 else {
                throw ToolError("\"\(file)\" holds \(identities.count) identities; import one at a time", exit: .dataError)
            }
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            try Keychain.Identity.add(identities[0], name: name, session: session)
        }
    }

    struct Recipient: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the recipient (age1…) of the identity NAME.")
        @Argument(help: "The identity's name.") var name: String
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            let entries = try session.identityEntries(named: [name])
            try Keychain.output(Array(try entries.map { try $0.identity().recipient.string + "\n" }.joined().utf8))
        }
    }

    struct Listed: Encodable {
        let name: String
        let recipient: String
        let created: Date
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the identities: name and recipient, one a line, tab-separated (--json for JSON).")
        @Flag(name: .long, help: "Write JSON.") var json = false
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            let listed = try session.identities.sorted { $0.service < $1.service }.map {
                Listed(name: $0.service, recipient: try $0.identity().recipient.string, created: Keychain.date($0.created))
            }
            if json { try JSONOutput.print(listed); return }
            try Keychain.output(Array(listed.map { "\($0.name)\t\($0.recipient)\n" }.joined().utf8))
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove the identity NAME (exit 66 if there is none).")
        @Argument(help: "The identity's name.") var name: String
        @OptionGroup var passcodeOptions: PasscodeOptions

        func run() throws {
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            _ = try session.identityEntries(named: [name])
            try session.update { entries -> (Void, Bool) in
                let before = entries.count
                entries.removeAll { $0.matches(.identity, name, "") }
                return ((), entries.count != before)
            }
        }
    }
}

extension Keychain {
    struct Unlock: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start the agent: keep the keychain unlocked for this user until lock or the timeout.",
            discussion: """
            Checks the passcode (or takes the key from an agent already running, which \
            is then replaced, so unlock also extends the time), then starts a background \
            agent detached from the terminal that holds the master key in memory and \
            gives it to this user's processes only. When the timeout ends, or on lock, \
            the key is wiped from memory and the socket removed.
            """)

        @Option(name: .long, help: ArgumentHelp("How long to stay unlocked: 90s, 30m, 12h, 7d (default 15m).", valueName: "duration"))
        var timeout: String = "15m"

        @OptionGroup var passcodeOptions: PasscodeOptions

        func check() throws {
            let seconds = try DurationText.seconds(timeout)
            guard seconds > 0, seconds <= 31 * 86400 else { throw ToolError.usage("--timeout must be from 1s to 31d") }
        }

        func run() throws {
            let seconds = try DurationText.seconds(timeout)
            let session = try KeychainSession.open(passcode: passcodeOptions.source)
            let client = AgentClient(keychainPath: session.store.path)
            client.lock()
            _ = try KeychainAgent.start(keychainPath: session.store.path, keychainID: session.sealed.header.id,
                                        masterKey: session.masterKey, arguments: [Agent.configuration.commandName!, "--timeout-seconds", String(seconds)])
            Diagnostics.info("unlocked \"\(session.store.path)\" for \(DurationText.format(seconds: seconds))")
        }
    }

    struct Lock: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the agent: the key is wiped from memory. Exit 0 even if it was not running.")

        func run() throws {
            let path = ToolPaths.keychain
            let stopped = AgentClient(keychainPath: path).lock()
            Diagnostics.info(stopped ? "locked \"\(path)\"" : "\"\(path)\" was not unlocked")
        }
    }

    struct StatusReport: Encodable {
        let keychain: String
        let unlocked: Bool
        let secondsLeft: Int?
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say whether the keychain is unlocked, and for how long: exit 0 unlocked, 1 locked.")

        @Flag(name: .long, help: "Write JSON: {keychain, unlocked, secondsLeft}.") var json = false

        func run() throws {
            let path = ToolPaths.keychain
            var left: Int?
            if let status = AgentClient(keychainPath: path).status() {
                // An agent for a keychain that was since replaced does not unlock this one.
                let current = try? KeychainStore(path: path).read()
                if current == nil || current?.header.id == status.keychainID { left = status.secondsLeft }
            }
            if json {
                try JSONOutput.print(StatusReport(keychain: path, unlocked: left != nil, secondsLeft: left))
            } else {
                let text = left.map { "unlocked, \(DurationText.format(seconds: $0)) left: \(path)\n" } ?? "locked: \(path)\n"
                try Keychain.output(Array(text.utf8))
            }
            if left == nil { throw ExitCode(ExitStatus.no.rawValue) }
        }
    }

    /// The agent process itself, started by unlock (not for people).
    struct Agent: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "agent-serve",
            abstract: "Internal: the agent process that unlock starts (the key comes on stdin); not run by hand.",
            shouldDisplay: false)

        @Option(name: .customLong("timeout-seconds"), help: "Seconds until the agent wipes the key and exits.") var timeoutSeconds: Int
        @Argument(help: "The Unix socket to listen on.") var socketPath: String

        func run() throws {
            KeychainAgent.serve(socketPath: socketPath, timeout: timeoutSeconds)
        }
    }
}
