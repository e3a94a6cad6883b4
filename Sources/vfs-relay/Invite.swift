import ArgumentParser
import Foundation
import VFSCommandLine

struct Invite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print another one-time enrolment code for a user's next device.")

    @OptionGroup var data: DataOptions
    @Argument(help: "The user's email address.") var email: String
    @Option(help: ArgumentHelp("Minutes the code stays valid.", valueName: "minutes")) var expires = 15

    func run() async throws {
        guard expires > 0 else { throw ToolError.usage("--expires must be at least 1 minute") }
        let (store, _) = try await data.open()
        try await issueEnrolmentCode(store: store, data: data, email: email, lifetime: TimeInterval(expires * 60))
    }
}
