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
#if canImport(Glibc)
import Glibc
#endif

/// A device as `vfs-device list --json` shows it.
struct DeviceListing: Encodable {
    var id: String
    var name: String
    var platform: String
    var recipient: String
    var created: Date
    var lastSeen: Date?
    var invalidated: Date?
    /// active, pending (not in the verified device chain), revoked, or key-changed (the
    /// relay's recipient differs from the pin).
    var status: String
    var thisDevice: Bool
    /// From the signing key and recipient the relay lists; nil until the device published its key.
    var fingerprint: String?
    /// The device that started the verified device chain (its root).
    var root: Bool
}

extension DeviceTool {
    struct List: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "List your devices: name, platform, fingerprint, last seen, status (pending: not approved yet).",
            discussion: """
            Says on standard error which device started your device chain (its root) and \
            when; --json marks it ("root": true). A device that has never seen your chain \
            lists the chain's devices and trusts it only when you say they are yours: a \
            yes on a terminal, or --accept-chain with the fingerprint "vfs-device \
            fingerprint" shows on one of them; otherwise it exits 77 and trusts nothing.

            Examples:
              vfs-device list --json | jq -r '.[] | select(.status == "active") | .name'
              vfs-device list --accept-chain ABCDE-FGHIJ-KLMNO-PQRST-UVWXY
            """)

        @Flag(help: "Print JSON.") var json = false
        @Option(name: .customLong("accept-chain"),
                help: ArgumentHelp("Trust your device chain, this device has never seen, if one of its devices has this fingerprint.",
                                   valueName: "fingerprint")) var acceptChain: String?
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            let acceptance = try DeviceTool.acceptance(acceptChain)
            let (session, key, recipient) = try options.signingSession()
            let (devices, trust) = try await session.withClient { client in
                let trust = try await DeviceTool.joined(session, client: client, key: key, recipient: recipient, acceptance: acceptance)
                return (try await client.devices(), trust)
            }
            // The root: who started the chain, and when (issue 43, item 6).
            // Said after the listing, which stays first on a terminal.
            var rootID: String?, rootLine: String?
            // The verifier's root: statement 0's add, or as a checkpoint restates it.
            if let verified = trust.verified, let entry = verified.root {
                rootID = entry.id
                let made = DateText.iso8601(Date(timeIntervalSince1970: TimeInterval(verified.rootTimestamp)))
                let state = trust.verified?.devices[entry.id] == nil ? ", removed since" : ""
                rootLine = "your device chain was started by \"\(DisplayText.printable(entry.name))\" (\(Fingerprint.device(signingKey: entry.signingKey, recipient: entry.recipient))) on \(made)\(state)"
            }
            defer {
                if let rootLine {
                    fflush(nil)
                    Diagnostics.info(rootLine)
                }
            }
            let pins = try PinStore(home: session.home)
            var rows = devices.map { device -> DeviceListing in
                var status = device.invalidated != nil ? "revoked" : trust.isApproved(device) ? "active"
                    : trust.isSendOnly(device) ? "send-only" : "pending"
                if let pin = pins.devices[device.id], pin.recipient != device.recipient { status = "key-changed" }
                return DeviceListing(id: device.id, name: device.name, platform: device.platform, recipient: device.recipient,
                                     created: device.created, lastSeen: device.lastSeen, invalidated: device.invalidated,
                                     status: status, thisDevice: device.id == session.config.device,
                                     fingerprint: DeviceTrust.fingerprint(device, sendOnly: trust.isSendOnly(device)), root: device.id == rootID)
            }
            // The recovery key (issue 49): in the chain, not a device the relay lists.
            let recovery = trust.verified?.recovery.map { entry in
                DeviceListing(id: entry.id, name: entry.name, platform: "-", recipient: entry.recipient,
                              created: Date(timeIntervalSince1970: TimeInterval(trust.statements.last { $0.action == .add(entry) }?.timestamp ?? 0)),
                              lastSeen: nil, invalidated: nil, status: "recovery", thisDevice: false,
                              fingerprint: Fingerprint.device(signingKey: entry.signingKey, recipient: entry.recipient), root: false)
            }
            rows += recovery.map { [$0] } ?? []
            if json { return try JSONOutput.print(rows) }
            Listing.print(["NAME", "PLATFORM", "FINGERPRINT", "LAST SEEN", "STATUS"], rows.map { row in
                // The name and platform are what the relay (or another device) says.
                let shown = [row.name, row.platform].map(DisplayText.printable)
                return [shown[0] + (row.thisDevice ? " *" : ""), shown[1], row.fingerprint ?? "-",
                        row.lastSeen.map { DateText.iso8601($0) } ?? "never", row.status]
            })
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
                var config = try DeviceConfig.load(home: session.home, paths: VFSPaths(environment: [:]))
                config.name = renamed.name
                try config.save(home: session.home)
            }
        }
    }

    struct Revoke: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Log a device out (a lost or retired machine).",
            discussion: """
            On an approved device it first appends a signed removal to your device chain; \
            then the device's token stops working at once, its open event stream gets a \
            logout event (a vfs-fetch --watch there finds the removal in the chain, erases \
            its credentials, shreds its folder with --wipe-on-logout, and exits), and \
            transfers waiting for it expire. Without that removal (from a pending device, \
            or of your last device) the device is only logged out and erases nothing. On a terminal it asks first (-y does not); it names the device \
            revoked, with its id. Then run "vfs-cloud rekey" so its key is dropped from your \
            cloud files.

            Example:
              vfs-device revoke -y phone && vfs-cloud rekey
            """)
        @Flag(name: .shortAndLong, help: "Do not ask for confirmation on a terminal.") var yes = false
        @Argument(help: ArgumentHelp("The device's name, id, or a unique beginning of its id.", valueName: "name")) var name: String
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            let (session, key, _) = try options.signingSession()
            try await session.withClient { client in
                let trust = try await session.deviceTrust(client)
                if let recovery = trust.verified?.recovery, name == recovery.name || name == recovery.id {
                    return try await revokeRecoveryKey(recovery, trust: trust, session: session, key: key, client: client)
                }
                let device = try RelaySession.device(name, in: try await client.devices())
                let shown = "\"\(DisplayText.printable(device.name))\" (\(device.id))"
                if !yes && Terminal.stdinIsTerminal {
                    guard DeviceTool.confirm("revoke \(shown)\(device.id == session.config.device ? ", this machine" : "")?") else {
                        throw ToolError("\(shown) was not revoked", exit: .no)
                    }
                }
                // First a signed removal from the chain, so the relay cannot bring the device back.
                if let verified = trust.verified, verified.signer(device.id) != nil {
                    if verified.devices[session.config.device] == nil {
                        Diagnostics.warn("this device is not approved, so it cannot remove \(shown) from your device chain; revoke it from an approved device")
                    } else if verified.devices.count > 1 || verified.senders[device.id] != nil {
                        _ = try await session.append(.remove(deviceId: device.id), to: trust, key: key, client: client)
                    }
                }
                try await client.invalidateDevice(device.id)
                Diagnostics.info("revoked \(shown)")
                Diagnostics.hint("run \"vfs-cloud rekey\" so its key is dropped from your cloud files")
            }
        }

        /// The recovery key (issue 49) has no token: it leaves the chain, and that is all.
        func revokeRecoveryKey(_ recovery: DeviceChain.DeviceEntry, trust: DeviceTrust, session: RelaySession,
                               key: Ed25519.SigningKey, client: RelayClient) async throws {
            guard trust.verified?.devices[session.config.device] != nil else {
                throw ToolError("this device is not approved, so it cannot remove your recovery key", exit: .permissionDenied,
                                hints: ["revoke it from one of your approved devices"])
            }
            if !yes && Terminal.stdinIsTerminal {
                guard DeviceTool.confirm("revoke your recovery key? It approves nothing from now on.") else {
                    throw ToolError("the recovery key was not revoked", exit: .no)
                }
            }
            _ = try await session.append(.remove(deviceId: recovery.id), to: trust, key: key, client: client)
            Diagnostics.info("revoked the recovery key (\(recovery.id))")
            Diagnostics.hint("run \"vfs-cloud rekey\" so it is dropped from your cloud files, and \"vfs-device recovery-key\" for a new one")
        }
    }
}
