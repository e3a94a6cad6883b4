import ArgumentParser
import VFSCommandLine
import VFSCore
import VFSRelayClient
import VFSRelayProtocol

extension DeviceTool {
    struct Users: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the users of your organisation: whom vfs-push --to can send to.",
            discussion: """
            Prints their email addresses, one a line, sorted (a disabled user is not \
            listed); PREFIX keeps those that begin with it. The relay lists at most 1000 \
            at once. --names is for completion scripts (vfs-push --to completes from it): \
            it never asks for the keychain passcode (the agent, --passcode-file, \
            --passcode-fd or VFS_PASSCODE, else it fails at once) and gives up on a relay \
            that has not answered within 5 seconds.

            Examples:
              vfs-device users
              vfs-device users bo --json
            """)

        @Argument(help: ArgumentHelp("Only addresses that begin with this.", valueName: "prefix")) var prefix: String?
        @Flag(help: "Print JSON.") var json = false
        @Flag(help: "Never ask for the passcode, and wait 5 seconds at most for the relay (for completion).") var names = false
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            var place = try options.place
            if names { place.passcode = options.passcodeReader(prompt: false) }
            let session = try RelaySession.open(home: try VFSPaths.current.home, place: place,
                                                timeout: names ? 5 : try options.relayTimeout)
            let users = try await session.withClient { try await $0.orgUsers(prefix: prefix) }
            if json { return try JSONOutput.print(users) }
            for user in users { print(DisplayText.printable(user.email)) }
        }
    }
}
