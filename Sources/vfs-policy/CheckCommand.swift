import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore

extension Policy {
    struct Check: ParsableCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Decide whether APP may receive a file: exit 0 allowed, 1 denied.",
            discussion: PolicyHelp.check)

        @OptionGroup var policy: PolicyFileOption

        @Option(help: ArgumentHelp("The group the file belongs to.", valueName: "group"))
        var group: String?

        @Option(help: ArgumentHelp("The file to release; its extension is the type.", valueName: "path"), completion: .file())
        var file: String?

        @Option(name: .customLong("type"), help: ArgumentHelp("The file type (extension, e.g. pdf).", valueName: "ext"))
        var type: String?

        @Option(help: ArgumentHelp("Decide as at this moment instead of now: what --expires takes (a date, at its start in UTC; an ISO 8601 time; a duration from now, 30d).", valueName: "when"))
        var at: String?

        @Flag(help: "Print the decision as JSON.")
        var json = false

        @Argument(help: ArgumentHelp("The app that is to receive the file.", valueName: "app"), completion: .vfsPolicyApps)
        var app: String

        func check() throws {
            if file != nil && type != nil { throw ToolError.usage("--file and --type can't be combined", hints: ["--file takes the type from the file's extension"]) }
        }

        func run() throws {
            let date: Date
            do {
                date = try at.map { try PolicyDates.parseMoment($0) } ?? Date()
            } catch let error as PolicyDates.ParseError {
                throw ToolError.usage("--at: \(error)", hints: error.hints)
            }
            let fileType = file.flatMap(PolicyRequest.fileType(ofPath:)) ?? type.map(PolicyRequest.normalizedType)
            let request = PolicyRequest(app: app, group: group, fileType: fileType, date: date)
            let snapshot = try policy.source.snapshot()
            let document = snapshot.document
            let decision = snapshot.decide(request)
            if json {
                var result = CheckResult(allowed: decision.isAllowed, app: app)
                switch decision {
                case let .allowed(id):
                    result.item = document.items.first { $0.id == id }
                case let .denied(denial):
                    result.reason = denial.reason.rawValue
                    result.message = denial.description
                    result.item = denial.itemID.flatMap { id in document.items.first { $0.id == id } }
                }
                try JSONOutput.print(result)
            } else if case let .denied(denial) = decision {
                Diagnostics.info("denied: \(denial.description)")
                if denial.reason == .policyStale {
                    Diagnostics.hint("vfs-policy sync fetches the organisation's list (the relay must be reachable); vfs-fetch --watch keeps it fresh")
                }
            }
            if !decision.isAllowed { throw ExitCode(ExitStatus.no.rawValue) }
        }
    }
}

/// `check --json`: every key present, null when it does not apply.
struct CheckResult: Encodable {
    var allowed: Bool
    var app: String
    var reason: String?
    var message: String?
    var item: PolicyItem?
    enum CodingKeys: String, CodingKey { case allowed, app, reason, message, item }
    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(allowed, forKey: .allowed)
        try c.encode(app, forKey: .app)
        try c.encode(reason, forKey: .reason)
        try c.encode(message, forKey: .message)
        try c.encode(item, forKey: .item)
    }
}
