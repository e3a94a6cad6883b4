import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore

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
            guard let secret = try Terminal.readSecret(prompt: question + " ") else { throw ToolError.usage("no terminal to ask \"\(question)\"") }
            let answer = String(decoding: secret.bytes, as: UTF8.self)
            guard !RecoveryAnswers.normalise(answer).isEmpty else { throw ToolError.usage("empty answer to \"\(question)\"") }
            answers.append(answer)
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
            let store = KeychainStore(path: VFSPaths.current.keychain)
            guard !store.exists else { throw KeychainError.exists(path: store.path) }
            var questions: [String] = []
            if let questionsFile {
                questions = RecoveryText.questions(in: String(decoding: try ToolIO.openInput(questionsFile).readAll(), as: UTF8.self))
                guard (1...KeySlot.maxQuestions).contains(questions.count) else {
                    throw ToolError.usage("\"\(questionsFile)\" has \(questions.count) questions; give 1 to \(KeySlot.maxQuestions), one a line")
                }
                for question in questions { try KeychainNames.check(question, what: "question") }
            }
            let passcode = try passcodeOptions.source.read(prompt: "New keychain passcode: ", confirm: true)
            let answers = questions.isEmpty ? [] : try answersOptions.read(for: questions)
            if !store.folder.isEmpty {
                try PrivateFolder.make(store.folder)
                if let mode = PrivateFolder.permissionsOpenToOthers(store.folder) {
                    Diagnostics.warn("the folder \"\(store.folder)\" is open to other users (mode \(String(mode, radix: 8))); chmod 700 it")
                }
            }
            try store.create(passcode: passcode, recovery: questions.isEmpty ? nil : (questions, answers), workFactor: workFactor)
            Diagnostics.info("created \"\(store.path)\"" + (questions.isEmpty ? "" : " with \(questions.count) recovery question\(questions.count == 1 ? "" : "s")"))
        }
    }

    struct ChangePasscode: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "passcode",
            abstract: "Change the passcode (rewraps the passcode slot; the entries are not re-encrypted).",
            discussion: KeychainHelp.changePasscode)

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
            discussion: KeychainHelp.recover)

        @OptionGroup var answersOptions: AnswersOptions
        @OptionGroup var newPasscodeOptions: NewPasscodeOptions

        func run() throws {
            let store = KeychainStore(path: VFSPaths.current.keychain)
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
