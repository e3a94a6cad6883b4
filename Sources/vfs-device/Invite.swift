import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore
import VFSRelayClient
import VFSRelayProtocol

extension DeviceTool {
    struct InviteCommand: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "invite",
            abstract: "Print a one-time code that enrols another device of yours.",
            discussion: """
            The code is single use and expires (15 minutes by default, as the relay sets \
            it). On the other machine:
              vfs-device enroll URL CODE --name NAME

            Example:
              code=$(vfs-device invite)
            """)
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            let invite = try await options.session().withClient { try await $0.invite() }
            print(invite.code)
            Diagnostics.info("single use, valid until \(DateText.iso8601(invite.expires))")
        }
    }
}
