import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore

struct User: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage users.", subcommands: [Add.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user to an organisation and print a one-time enrolment code for their first device.")

        @OptionGroup var data: DataOptions
        @Argument(help: "The user's email address.") var email: String
        @Option(help: ArgumentHelp("The user's organisation.", valueName: "name")) var org: String
        @Flag(help: "The user administers the organisation (may change its approved apps).") var admin = false
        @Option(help: ArgumentHelp("Minutes the enrolment code stays valid.", valueName: "minutes")) var expires = 15

        func run() async throws {
            try checkEmail(email)
            guard expires > 0 else { throw ToolError.usage("--expires must be at least 1 minute") }
            let (store, _) = try await data.open()
            try await store.createUser(email: email, organisation: org, admin: admin, now: Date())
            try await issueEnrolmentCode(store: store, email: email, lifetime: TimeInterval(expires * 60))
        }
    }
}

func checkEmail(_ email: String) throws {
    let parts = email.split(separator: "@", omittingEmptySubsequences: false)
    guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, email.utf8.count <= 254,
          email.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
        throw ToolError.usage("invalid email \"\(email)\"", hints: ["write it as name@example.org"])
    }
}
