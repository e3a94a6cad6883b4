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
    struct Enroll: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Enrol this machine with a relay using a one-time code.",
            discussion: """
            Makes a new age identity, sends its recipient with CODE and --name to the relay \
            at URL, and keeps the identity and the token the relay returns in the keychain \
            (or the --identity-file/--token-file files). Writes $VFS_HOME/relay.json. \
            Prints the new device's id.

            Example:
              vfs-device enroll http://127.0.0.1:8787 K7QM-2WXD-PA9F-H3TN --name laptop
            """)

        @Argument(help: ArgumentHelp("The relay's URL.", valueName: "url")) var url: String
        @Argument(help: ArgumentHelp("The one-time enrolment code.", valueName: "code")) var code: String
        @Option(help: ArgumentHelp("This device's name.", valueName: "name")) var name: String
        @Option(help: ArgumentHelp("The platform shown in listings.", valueName: "platform")) var platform = "linux"
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
                throw ToolError.usage("invalid relay URL \"\(url)\"", hints: ["write it as http://HOST:PORT or https://HOST:PORT"])
            }
            let place = try options.place
            // Unlock first: a wrong passcode must not waste the one-time code.
            try DeviceCredentials.checkKeychain(place)
            let identity = try X25519Identity.generate()
            let answer = try await RelayClient.with(baseURL: url, token: nil) { client in
                try await client.enroll(EnrollRequest(code: code, name: name, platform: platform, recipient: identity.recipient.string))
            }
            try DeviceCredentials.save(place, token: answer.token, identity: identity)
            try DeviceConfig(relay: url, device: answer.device.id, name: answer.device.name).save(home: VFSPaths.current.home)
            var pins = try PinStore(home: VFSPaths.current.home)
            pins.trust(answer.device)
            try pins.save()
            Diagnostics.info("enrolled \"\(answer.device.name)\" with \(url)")
            print(answer.device.id)
        }
    }
}
