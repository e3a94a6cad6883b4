import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore

/// `--new-passcode-file`, `--new-passcode-fd`, VFS_NEW_PASSCODE: the passcode to set.
struct NewPasscodeOptions: ParsableArguments {
    @Option(name: .customLong("new-passcode-file"), help: ArgumentHelp("Read the new passcode from the first line of PATH.", valueName: "path"), completion: .file())
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
    @Option(name: .customLong("answers-file"), help: ArgumentHelp("Read the answers to the recovery questions from PATH, one a line, in order.", valueName: "path"), completion: .file())
    var answersFile: String?

    /// One answer per question, from the file or asked on the terminal without echo.
    /// `confirm` (new answers) asks each twice, up to three times if they differ.
    func read(for questions: [String], confirm: Bool = false) throws -> [String] {
        if let answersFile {
            let text = String(decoding: try ToolIO.openInput(answersFile).readAll(), as: UTF8.self)
            let lines = RecoveryText.answers(in: text)
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
            func ask(_ prompt: String) throws -> String {
                guard let secret = try Terminal.readSecret(prompt: prompt) else { throw ToolError.usage("no terminal to ask \"\(question)\"") }
                let answer = String(decoding: secret.bytes, as: UTF8.self)
                guard !RecoveryAnswers.normalise(answer).isEmpty else { throw ToolError.usage("empty answer to \"\(question)\"") }
                return answer
            }
            var tries = 0
            while true {
                tries += 1
                let answer = try ask(question + " ")
                // Compared as recovery compares them: trimmed, case-folded, spaces collapsed.
                guard confirm, RecoveryAnswers.normalise(try ask("Again: " + question + " ")) != RecoveryAnswers.normalise(answer) else {
                    answers.append(answer)
                    break
                }
                guard tries < SecretSource.tries else { throw ToolError.usage("the answers to \"\(question)\" did not match \(tries) times") }
                Diagnostics.info("the answers did not match; try again")
            }
        }
        return answers
    }
}

extension Keychain {
    struct InitKeychain: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Create a new keychain protected by a passcode, and optionally security questions.",
            discussion: KeychainHelp.initKeychain)

        @OptionGroup var passcodeOptions: PasscodeOptions

        @Option(name: .customLong("questions"), help: ArgumentHelp("Add recovery questions, one a line, from PATH.", valueName: "path"), completion: .file())
        var questionsFile: String?

        @OptionGroup var answersOptions: AnswersOptions

        @Option(name: .customLong("work-factor"), help: ArgumentHelp("scrypt work factor log2(N) for the key slots (1-22; low values only for tests).", valueName: "n"))
        var workFactor: Int = ScryptRecipient.defaultWorkFactor

        /// The questions in `file`: 1 to 16, each a valid name.
        static func readQuestions(_ file: String) throws -> [String] {
            let questions = RecoveryText.questions(in: String(decoding: try ToolIO.openInput(file).readAll(), as: UTF8.self))
            guard (1...KeySlot.maxQuestions).contains(questions.count) else {
                throw ToolError.usage("\"\(file)\" has \(questions.count) questions; give 1 to \(KeySlot.maxQuestions), one a line")
            }
            for question in questions { try KeychainNames.check(question, what: "question") }
            return questions
        }

        func check() throws {
            guard (1...KeySlot.maxWorkFactor).contains(workFactor) else { throw ToolError.usage("--work-factor must be from 1 to \(KeySlot.maxWorkFactor)") }
            if answersOptions.answersFile != nil && questionsFile == nil {
                throw ToolError.usage("--answers-file goes with --questions")
            }
        }

        func run() throws {
            let store = KeychainStore(path: try VFSPaths.current.keychain)
            guard !store.exists else { throw KeychainError.exists(path: store.path) }
            var questions: [String] = []
            if let questionsFile { questions = try Self.readQuestions(questionsFile) }
            let passcode = try passcodeOptions.source.read(prompt: "New keychain passcode: ", confirm: true)
            let answers = questions.isEmpty ? [] : try answersOptions.read(for: questions, confirm: true)
            if !store.folder.isEmpty {
                try PrivateFolder.make(store.folder)
                if let mode = PrivateFolder.permissionsOpenToOthers(store.folder) {
                    Diagnostics.warn("the folder \"\(store.folder)\" is open to other users (mode \(String(mode, radix: 8))); chmod 700 it")
                }
            }
            // Kept out of backups, always: the toolkit's own folder gets nodump (which
            // ext4 and tmpfs pass on to what is saved in it later) and a CACHEDIR.TAG;
            // the keychain file itself gets nodump wherever it is.
            if let folder = VFSPaths.current.ownKeychainFolder { BackupExclusion.markFolder(folder) }
            try store.create(passcode: passcode, recovery: questions.isEmpty ? nil : (questions, answers), workFactor: workFactor)
            Diagnostics.info("created \"\(store.path)\"" + (questions.isEmpty ? "" : " with \(questions.count) recovery question\(questions.count == 1 ? "" : "s")"))
        }
    }

    struct ChangePasscode: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "passcode",
            abstract: "Change the passcode; the master key is replaced and every entry sealed again.",
            discussion: KeychainHelp.changePasscode)

        @OptionGroup var passcodeOptions: PasscodeOptions
        @OptionGroup var newPasscodeOptions: NewPasscodeOptions
        @OptionGroup var answersOptions: AnswersOptions

        func run() throws {
            let session = try KeychainSession.open(passcode: passcodeOptions.source, useAgent: false)
            // A format-1 recovery slot can follow the new key only with its answers: asked
            // for (or read from --answers-file) when possible, else it is dropped with a warning.
            var recovery = KeychainHeader.RecoveryChange.keep
            if let slot = session.sealed.header.recoverySlot, slot.kind == .legacyRecovery,
               answersOptions.answersFile != nil || Terminal.canPrompt {
                let answers = try answersOptions.read(for: slot.questions)
                guard try slot.unwrap(answers: answers)?.isEqual(to: session.masterKey) == true else { throw KeychainError.wrongAnswers }
                recovery = .set(questions: slot.questions, answers: answers, workFactor: Int(slot.logN))
            }
            let newPasscode = try newPasscodeOptions.read()
            var dropped = false
            let newKey = try session.store.rotate(keychainID: session.sealed.header.id, masterKey: session.masterKey) { header, key in
                let rekeyed = try header.rekeyed(to: key, passcode: newPasscode, recovery: recovery)
                dropped = rekeyed.droppedLegacyRecovery
                return rekeyed.header
            }
            KeyRotation.tellAgent(store: session.store, keychainID: session.sealed.header.id, newKey: newKey)
            Diagnostics.info("passcode changed; the master key was replaced")
            if dropped { KeyRotation.warnDroppedRecovery() }
        }
    }

    struct Recover: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Answer the recovery questions and set a new passcode.",
            discussion: KeychainHelp.recover)

        @OptionGroup var answersOptions: AnswersOptions
        @OptionGroup var newPasscodeOptions: NewPasscodeOptions

        func run() throws {
            let store = KeychainStore(path: try VFSPaths.current.keychain)
            let sealed = try store.read()
            guard let slot = sealed.header.recoverySlot else { throw KeychainError.noRecovery(path: store.path) }
            let answers = try answersOptions.read(for: slot.questions)
            let masterKey = try sealed.unlock(answers: answers)
            _ = try sealed.open(masterKey: masterKey)
            let newPasscode = try newPasscodeOptions.read()
            let newKey = try store.rotate(keychainID: sealed.header.id, masterKey: masterKey) { header, key in
                // A format-1 recovery slot becomes a public-key one: the answers are at hand.
                let recovery: KeychainHeader.RecoveryChange = slot.kind == .recovery ? .keep
                    : .set(questions: slot.questions, answers: answers, workFactor: Int(slot.logN))
                return try header.rekeyed(to: key, passcode: newPasscode, recovery: recovery).header
            }
            KeyRotation.tellAgent(store: store, keychainID: sealed.header.id, newKey: newKey)
            Diagnostics.info("passcode reset; the master key was replaced")
        }
    }

    struct Questions: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set, change or remove the recovery questions; the master key is replaced.",
            discussion: KeychainHelp.questions)

        @OptionGroup var passcodeOptions: PasscodeOptions

        @Option(name: .customLong("questions"), help: ArgumentHelp("The new recovery questions, one a line, from PATH.", valueName: "path"), completion: .file())
        var questionsFile: String?

        @OptionGroup var answersOptions: AnswersOptions

        @Flag(name: .customLong("remove"), help: "Remove the recovery questions: only the passcode opens the keychain.")
        var remove = false

        @Option(name: .customLong("work-factor"), help: ArgumentHelp("scrypt work factor log2(N) for the recovery slot (default: the passcode slot's).", valueName: "n"))
        var workFactor: Int?

        func check() throws {
            if let workFactor, !(1...KeySlot.maxWorkFactor).contains(workFactor) {
                throw ToolError.usage("--work-factor must be from 1 to \(KeySlot.maxWorkFactor)")
            }
            guard remove != (questionsFile != nil) else {
                throw ToolError.usage(remove ? "--remove can't be combined with --questions" : "give --questions PATH (to set or change them) or --remove")
            }
            if remove && (answersOptions.answersFile != nil || workFactor != nil) {
                throw ToolError.usage("--remove takes no answers and no work factor")
            }
        }

        func run() throws {
            var questions: [String] = []
            if let questionsFile { questions = try InitKeychain.readQuestions(questionsFile) }
            // The passcode itself, not the agent: the passcode slot is wrapped again for the new key.
            let store = KeychainStore(path: try VFSPaths.current.keychain)
            let sealed = try store.read()
            if remove && sealed.header.recoverySlot == nil { throw KeychainError.noRecovery(path: store.path) }
            let (passcode, masterKey) = try KeychainSession.checkedPasscode(passcodeOptions.source, for: sealed, locked: false)
            _ = try sealed.open(masterKey: masterKey)
            let answers = questions.isEmpty ? [] : try answersOptions.read(for: questions, confirm: true)
            let factor = workFactor ?? Int(sealed.header.passcodeSlot.logN)
            let newKey = try store.rotate(keychainID: sealed.header.id, masterKey: masterKey) { header, key in
                try header.rekeyed(to: key, passcode: passcode,
                                   recovery: remove ? .remove : .set(questions: questions, answers: answers, workFactor: factor)).header
            }
            KeyRotation.tellAgent(store: store, keychainID: sealed.header.id, newKey: newKey)
            Diagnostics.info(remove ? "recovery questions removed; the master key was replaced"
                                    : "\(questions.count) recovery question\(questions.count == 1 ? "" : "s") set; the master key was replaced")
        }
    }
}
