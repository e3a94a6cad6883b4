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
    struct Status: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Is the relay reachable, and is this device still valid?",
            discussion: """
            Exit status: 0 both; 69 the relay is unreachable; 77 the relay refuses this \
            device's token (revoked), or the device was logged out (its token erased); 66 \
            not enrolled.

            Example:
              vfs-device status && vfs-fetch --all -C ~/Inbox
            """)
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: DeviceOptions

        struct Report: Encodable {
            var relay: String
            var device: String
            var name: String
            var version: String
        }

        func run() async throws {
            let session: RelaySession
            do {
                session = try options.session()
            } catch RelayClientError.missingCredential(let what, _) where what == "relay token" {
                // relay.json stays when the relay logged the device out (its token erased).
                let config = try DeviceConfig.load(home: try VFSPaths.current.home)
                throw ToolError("device \"\(DisplayText.printable(config.name))\" (\(config.device)) is logged out: its token was erased",
                                exit: .permissionDenied, hints: ["enrol this machine again: vfs-device enroll URL CODE --name NAME"])
            }
            let (health, device) = try await session.withClient { client in
                (try await client.health(), try await client.device(session.config.device))
            }
            let report = Report(relay: session.config.relay, device: device.id, name: device.name, version: health.version)
            if json { return try JSONOutput.print(report) }
            print("relay \(report.relay) reachable (vfs-relay \(report.version)); device \"\(DisplayText.printable(device.name))\" valid")
        }
    }

    struct Trust: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Accept the key a device has now (after it enrolled again).",
            discussion: """
            vfs-push refuses a device whose recipient differs from the one pinned the first \
            time it was seen. Check with its owner that the new fingerprint is right, then:
              vfs-device trust phone
            """)
        @Argument(help: ArgumentHelp("The device's name or id.", valueName: "name")) var name: String
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            let session = try options.session()
            let device = try await session.withClient { try RelaySession.device(name, in: try await $0.devices()) }
            var pins = try PinStore(home: session.home)
            let old = pins.devices[device.id]?.recipient
            pins.trust(device)
            try pins.save()
            Diagnostics.info("\"\(DisplayText.printable(device.name))\" is now pinned to \(device.recipient)"
                             + (old.map { $0 == device.recipient ? " (unchanged)" : " (was \($0))" } ?? ""))
        }
    }
}
