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
    struct AdminLink: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "admin-link",
            abstract: "Print the relay's admin web page address and a one-time code to sign in there.",
            discussion: """
            For administrators of the organisation: this device asks the relay for a \
            short-lived, single-use sign-in code. Open the address in a browser and paste \
            the code. A device of a user who is not an administrator is refused (exit 77).

            Example:
              vfs-device admin-link
            """)
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: DeviceOptions

        struct Report: Encodable {
            var url: String
            var code: String
            var expires: Date
        }

        func run() async throws {
            let session = try options.session()
            let answer = try await session.withClient { try await $0.adminLoginCode() }
            var base = session.config.relay
            while base.hasSuffix("/") { base.removeLast() }
            let report = Report(url: base + answer.path, code: answer.code, expires: answer.expires)
            if json { return try JSONOutput.print(report) }
            print(report.url)
            print(report.code)
            Diagnostics.info("single use, valid until \(DateText.iso8601(answer.expires))")
        }
    }
}
