import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore

extension Policy {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the policy (the file's format) to stdout or -o FILE.",
            discussion: "With -o, FILE appears only when it is written whole. A missing policy exports as an empty one. \(ToolIO.outputLinkNote)")

        @OptionGroup var policy: PolicyFileOption

        @Option(name: .shortAndLong, help: ArgumentHelp("Write to FILE instead of stdout.", valueName: "file"), completion: .file())
        var output: String?

        func run() throws {
            let bytes = PolicyCodec.encode(try policy.source.load())
            let out = try ToolIO.openOutput(output, binary: false)
            try out.sink.write(bytes)
            try out.commit()
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Merge a policy file (as export writes it) into the policy, by app.",
            discussion: PolicyHelp.importPolicy)

        @OptionGroup var policy: PolicyFileOption
        @OptionGroup var token: RelayTokenOptions

        @Flag(help: "Make the policy exactly FILE: remove the apps it does not list.")
        var replace = false

        @Flag(help: "Print the summary (added, updated, removed, unchanged) as JSON.")
        var json = false

        @Flag(name: .customLong("dry-run"), help: "Say what the import would change; change nothing.")
        var dryRun = false

        @Argument(help: ArgumentHelp("The file to import ('-' for stdin).", valueName: "file"), completion: .file())
        var file: String

        func run() async throws {
            let name = file == "-" ? "standard input" : file
            let bytes = try ToolIO.openInput(file).readAll()
            let incoming: PolicyImportFile
            do {
                incoming = try PolicyCodec.decodeImport(bytes, source: name)
            } catch let error as PolicyImportProblems {
                for problem in error.problems { Diagnostics.error(problem.description) }
                throw ToolError("\(error.problems.count) problems in \"\(name)\"; nothing was imported", exit: .dataError)
            } catch let error as PolicyError {
                // The file to import is at fault, not the policy: the policy's own hint
                // (fix it by hand, never replaced) would point at the wrong file.
                guard case .corrupt = error else { throw error }
                throw ToolError(error.description, exit: .dataError, hints: [
                    "the policy was not changed; fix \(DisplayText.shellQuoted(name)) (vfs-policy export writes the format import reads) and import it again",
                ])
            }
            let summary: PolicyImportSummary
            if try policy.isRelay {
                summary = try await RelayPolicyEditor.run(token) {
                    try await $0.importDocument(incoming.document, replace: replace, dryRun: dryRun)
                }
            } else {
                summary = try policy.storeForChange().importDocument(incoming.document, replace: replace, source: name,
                                                                     handWritten: incoming.handWritten, dryRun: dryRun)
            }
            if json {
                try JSONOutput.print(summary)
            } else {
                Diagnostics.info("\(dryRun ? "would import" : "imported") \(name): \(summary.added) added, \(summary.updated) updated, \(summary.removed) removed, \(summary.unchanged) unchanged")
            }
        }
    }

    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "log",
            abstract: "Show who changed what, when (the log PATH.log beside the policy).",
            discussion: "One line per changed item, oldest first: time, user(uid), action, app, id, the fields set, and the import it came from.")

        @OptionGroup var policy: PolicyFileOption

        @Flag(help: "Print a JSON array of the log entries.")
        var json = false

        func run() throws {
            let entries = try policy.store.log()
            if json {
                try JSONOutput.print(entries)
                return
            }
            var text = ""
            for e in entries {
                let line = "\(PolicyDates.format(e.time))  \(e.user)(\(e.uid))  \(e.action.rawValue)  \(e.app)  \(e.id)  \(e.fields.joined(separator: ","))"
                text += DisplayText.printable(line)
                if let via = e.via { text += "  (\(DisplayText.printable(via)))" }
                text += "\n"
            }
            try StandardOutput.write(text)
        }
    }
}
