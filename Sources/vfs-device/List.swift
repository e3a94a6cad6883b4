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

/// A device as `vfs-device list --json` shows it.
struct DeviceListing: Encodable {
    var id: String
    var name: String
    var platform: String
    var recipient: String
    var created: Date
    var lastSeen: Date?
    var invalidated: Date?
    /// active, revoked, or key-changed (the relay's recipient differs from the pin).
    var status: String
    var thisDevice: Bool
}

extension DeviceTool {
    struct List: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "List your devices: name, platform, recipient fingerprint, last seen, status.",
            discussion: "Example:\n  vfs-device list --json | jq -r '.[] | select(.status == \"active\") | .name'")

        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            let session = try options.session()
            let devices = try await session.withClient { try await $0.devices() }
            let pins = try PinStore(home: session.home)
            let rows = devices.map { device -> DeviceListing in
                var status = device.invalidated == nil ? "active" : "revoked"
                if let pin = pins.pins[device.id], pin.recipient != device.recipient { status = "key-changed" }
                return DeviceListing(id: device.id, name: device.name, platform: device.platform, recipient: device.recipient,
                                     created: device.created, lastSeen: device.lastSeen, invalidated: device.invalidated,
                                     status: status, thisDevice: device.id == session.config.device)
            }
            if json { return try JSONOutput.print(rows) }
            var text = ""
            for row in rows {
                let seen = row.lastSeen.map { DateText.iso8601($0) } ?? "never"
                // The name, platform and recipient are what the relay (or another device) says.
                let shown = [row.name, row.platform, RelaySession.fingerprint(row.recipient)].map(DisplayText.printable)
                let name = shown[0] + (row.thisDevice ? " *" : "")
                text += [name, shown[1], shown[2], seen, row.status].joined(separator: "\t") + "\n"
            }
            print(text, terminator: "")
        }
    }

    struct Rename: AsyncVFSCommand {
        static let configuration = CommandConfiguration(abstract: "Rename one of your devices.",
                                                        discussion: "Example:\n  vfs-device rename phone old-phone")
        @Argument(help: ArgumentHelp("The device's name or id.", valueName: "old")) var old: String
        @Argument(help: ArgumentHelp("Its new name.", valueName: "new")) var new: String
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            let session = try options.session()
            let renamed = try await session.withClient { client in
                let device = try RelaySession.device(old, in: try await client.devices())
                return try await client.renameDevice(device.id, to: new)
            }
            if renamed.id == session.config.device {
                try DeviceConfig(relay: try DeviceConfig.load(home: session.home, paths: VFSPaths(environment: [:])).relay, device: renamed.id,
                                 name: renamed.name).save(home: session.home)
            }
        }
    }

    struct Revoke: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Log a device out (a lost or retired machine).",
            discussion: """
            Its token stops working at once, its open event stream gets a logout event (a \
            vfs-fetch --watch there erases its credentials and exits), and transfers waiting \
            for it expire.

            Example:
              vfs-device revoke phone
            """)
        @Argument(help: ArgumentHelp("The device's name or id.", valueName: "name")) var name: String
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            let session = try options.session()
            try await session.withClient { client in
                let device = try RelaySession.device(name, in: try await client.devices())
                try await client.invalidateDevice(device.id)
            }
        }
    }
}
