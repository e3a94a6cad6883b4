import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore
import VFSRelayClient
import VFSRelayCommandLine
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

extension DeviceTool {
    struct RecoveryKeyCommand: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "recovery-key",
            abstract: "Make your recovery key: printed once, to write down; it reads your cloud files and approves a new device.",
            discussion: """
            For the day every device is lost (docs/recovery.md). Makes a new key from 32 \
            random bytes, prints it once on standard output as 14 groups of four letters \
            and digits (the last group a checksum), and appends it to your device chain \
            as "recovery-key", signed by this device, which must be approved. From then \
            on vfs-cloud put and rekey encrypt your cloud files to it too (pushes never \
            are); on a new machine, "vfs-device recover" uses it to approve that machine \
            and give it every cloud file. It signs nothing else: it cannot remove a \
            device or approve a send-only one.

            Making a new one replaces the old one in the same statement (the old one \
            can approve nothing from then on). Then it rekeys your cloud files, so that \
            the new key opens them and the old one does not open what is stored from \
            now on (a copy of a file taken before stays readable with the old key). \
            "vfs-device revoke recovery-key" removes it without a new one.

            Keep it on paper, away from your devices: whoever has it reads your cloud \
            files (not your transfers) and can add a device of theirs to your chain.

            Example:
              vfs-device recovery-key > /dev/tty
            """)
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            let (session, key, recipient) = try options.signingSession()
            let recovery = try RecoveryKey.generate()
            try await session.withClient { client in
                let trust = try await DeviceTool.joined(session, client: client, key: key, recipient: recipient)
                guard let verified = trust.verified, verified.devices[session.config.device] != nil else {
                    throw ToolError("this device is not approved, so it cannot make your recovery key", exit: .permissionDenied,
                                    hints: ["make it on one of your approved devices"])
                }
                let replaced = verified.recovery
                _ = try await session.append(.add(try recovery.entry(matching: Array(verified.devices.values))), to: trust, key: key, client: client)
                // Printed once the chain holds it: a key printed but not in the chain opens nothing.
                print(recovery.text)
                fflush(nil)
                if replaced != nil { Diagnostics.info("the old recovery key is replaced: it approves nothing from now on") }
                Diagnostics.info("write it down and keep it away from your devices: it is shown once")
                if let identity = session.credentials.identity {
                    let recipients = try await session.cloudRecipients(client, warn: { Diagnostics.warn($0) })
                    _ = try await CloudRekey(client: client, identity: identity, recipients: recipients, report: .terminal(quiet: false)).rekey("/")
                }
            }
        }
    }

    struct Recover: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Enrol this machine with an enrolment code and approve it with your recovery key, when every device is lost.",
            discussion: """
            Asks for the recovery key "vfs-device recovery-key" printed (on the terminal, \
            or from --recovery-key-file) and checks its checksum before anything is sent: \
            a mistyped character is refused (exit 65). Then enrols this machine as \
            "vfs-device enroll URL CODE --name NAME" does, with a code from the relay's \
            operator, takes your device chain as yours because it holds this recovery \
            key, appends this device's approval signed by the recovery key (your other \
            devices, if any are left, verify it as any approval), and rekeys your cloud \
            files, opening each header with the recovery key, so this device reads every \
            one of them. Pushes sent to you before are not readable here (a recovery key \
            never receives transfers).

            A recovery key that was revoked or replaced is not in your chain: nothing is \
            trusted or approved (exit 77), and the machine stays enrolled, pending.

            Example:
              vfs-device recover https://relay.example K7QM-2WXD-PA9F-H3TN --name laptop
            """)
        @Argument(help: ArgumentHelp("The relay's URL.", valueName: "url")) var url: String
        @Argument(help: ArgumentHelp("The one-time enrolment code from the relay's operator.", valueName: "code")) var code: String
        @Option(help: ArgumentHelp("This device's name.", valueName: "name")) var name: String
        @Option(help: ArgumentHelp("The platform shown in listings.", valueName: "platform")) var platform = "linux"
        @Option(name: .customLong("recovery-key-file"), help: ArgumentHelp("Read the recovery key from FILE instead of the terminal.", valueName: "file"),
                completion: .file()) var recoveryKeyFile: String?
        @Option(help: ArgumentHelp("Trust the CA certificates in this PEM file for the https:// relay (kept for later commands).", valueName: "file"),
                completion: .file()) var cacert: String?
        @Flag(help: "Allow plain http:// to a relay beyond this machine (a network trusted end to end).") var insecureHTTP = false
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            try DeviceTool.checkEnrolmentURL(url, cacert: cacert, insecureHTTP: insecureHTTP)
            // The key first: a mistyped character is caught before the code is spent.
            let recovery = try readRecoveryKey()
            let signer = (id: try recovery.deviceID(), key: try recovery.signingKey())
            let place = try options.place
            try DeviceCredentials.checkKeychain(place)
            let home = try VFSPaths.current.home
            if let config = try? DeviceConfig.load(home: home, paths: VFSPaths(environment: [:])) {
                throw ToolError("this machine is enrolled already, as \"\(DisplayText.printable(config.name))\" (\(config.device)) with \(config.relay)",
                                exit: .cannotCreate, hints: ["recover on a clean machine, or approve this one from it: vfs-device approve"])
            }
            let acceptance = ChainAcceptance.recoveryKey(signer.key.publicKey)
            let enrolment = Enrolment(url: url, code: code, name: name, platform: platform, identity: .x25519(try X25519Identity.generate()),
                                      stubRecipient: nil, caFile: cacert ?? VFSPaths.current.relayCACert, keepCA: cacert,
                                      insecureHTTP: insecureHTTP, timeout: try options.relayTimeout, place: place, home: home,
                                      acceptance: acceptance, report: .terminal(quiet: true))
            let outcome = try await enrolment.run(replacing: nil, oldSigner: nil) { session, client, _ in
                _ = try await session.deviceTrust(client, enrolling: true, acceptance: acceptance)
            }
            print(outcome.device.id)
            if let unseen = outcome.unseen {
                throw ToolError("your device chain holds no such recovery key (revoked, or replaced by a newer one): nothing was trusted or approved",
                                exit: .permissionDenied, hints: ["this machine is enrolled and pending: \(unseen.summary)"])
            }
            let session = try RelaySession.open(home: home, place: place, identity: true, timeout: try options.relayTimeout)
            try await session.withClient { client in
                let trust = try await session.deviceTrust(client)
                let entry = DeviceChain.DeviceEntry(id: outcome.device.id, name: try RelaySession.chainName(outcome.device.name),
                                                    recipient: enrolment.recipient, signingKey: outcome.signingKey.publicKey)
                _ = try await session.append(.add(entry), to: trust, key: signer.key, signer: signer.id, client: client)
                Diagnostics.info("your recovery key approved this device")
                let recipients = try await session.cloudRecipients(client, warn: { Diagnostics.warn($0) })
                let opener = try recovery.identity(for: trust.verified?.recovery)
                let left = try await CloudRekey(client: client, identity: opener, recipients: recipients, report: .terminal(quiet: false)).rekey("/")
                if left > 0 { Diagnostics.warn("\(left) cloud file\(left == 1 ? " was" : "s were") not encrypted to the recovery key, and stay unreadable here") }
            }
        }

        func readRecoveryKey() throws -> RecoveryKey {
            let typed: SecretBytes
            if let recoveryKeyFile {
                typed = SecretBytes(copying: try ToolIO.openInput(recoveryKeyFile).readAll())
            } else {
                guard let read = try Terminal.readLine(prompt: "Recovery key: ", echo: true) else {
                    throw ToolError.usage("no terminal to ask for the recovery key", hints: ["give it in a file: --recovery-key-file FILE"])
                }
                typed = read
            }
            do {
                return try typed.withUnsafeBytes { try RecoveryKey(typed: String(decoding: $0, as: UTF8.self)) }
            } catch let error as RecoveryKeyError {
                throw ToolError(error.description, exit: .dataError, hints: ["type it again as written: 14 groups of 4, dashes and case do not matter"])
            }
        }
    }
}
