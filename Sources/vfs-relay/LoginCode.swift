import ArgumentParser
import Foundation
import VFSCommandLine
import VFSRelayServer

struct LoginCode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login-code",
        abstract: "Print a one-time code that signs an administrator in to the relay's web page.",
        discussion: """
        The code is single use, short-lived and stored only as a hash. Paste it on the \
        page's sign-in form at the relay's URL followed by /admin/ (for example \
        https://relay.example:8787/admin/). Only administrators of an organisation (vfs-relay \
        user add --admin) get one.

        Example:
          vfs-relay login-code alice@acme.example
        """)

    @OptionGroup var data: DataOptions
    @Argument(help: "The administrator's email address.") var email: String
    @Option(help: ArgumentHelp("Minutes the code stays valid.", valueName: "minutes")) var expires = 10

    func run() async throws {
        try checkEmail(email)
        guard expires > 0, expires <= 24 * 60 else { throw ToolError.usage("--expires must be 1 to 1440 minutes") }
        let (store, _) = try await data.open()
        guard let user = try await store.users().first(where: { $0.email == email }) else {
            throw StoreError.notFound("no user \"\(email)\"")
        }
        guard user.role == "admin" else {
            throw ToolError("\"\(email)\" is not an administrator of \"\(user.org)\"", exit: .permissionDenied,
                            hints: ["only administrators sign in to the web page"])
        }
        let now = Date()
        let code = RelayCodes.newLoginCode()
        let until = now.addingTimeInterval(TimeInterval(expires * 60))
        try await store.createLoginCode(email: email, codeHash: RelayCodes.hash(loginCode: code), expires: until, now: now)
        print(code)
        data.report("sign-in code for \(email), single use, valid until \(ISO8601DateFormatter().string(from: until)); paste it at RELAY-URL/admin/")
    }
}
