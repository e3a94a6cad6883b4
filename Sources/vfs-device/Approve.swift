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
    struct Approve: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Approve a pending device into your device chain, after comparing its fingerprint.",
            discussion: """
            A device the relay lists but your device chain does not is pending: no device \
            of yours encrypts to it (docs/device-chain.md). Run "vfs-device fingerprint" on \
            the new device and compare: on a terminal this shows the pending device's \
            fingerprint and asks; --fingerprint FP compares in scripts and refuses a \
            mismatch (exit 77). Approval appends a statement signed by this device, which \
            must itself be approved.

            A device enrolled with --send-only (a server's cron job) is approved with \
            --send-only: the chain then holds it as send-only, so it signs its pushes, \
            receivers name it "NAME of USER (send-only)", no device ever encrypts to it \
            and it cannot sign anything in your device chain. Its fingerprint covers the \
            role: approving it without --send-only (or a reader with it) shows another \
            fingerprint than the device does, and is refused.

            Examples:
              vfs-device approve phone
              vfs-device approve phone --fingerprint ABCDE-FGHIJ-KLMNO-PQRST-UVWXY
              vfs-device approve backup-server --send-only \\
                --fingerprint ABCDE-FGHIJ-KLMNO-PQRST-UVWXY
            """)
        @Argument(help: ArgumentHelp("The pending device's name, id, or a unique beginning of its id.", valueName: "name"))
        var name: String
        @Option(help: ArgumentHelp("The fingerprint the new device shows (vfs-device fingerprint).", valueName: "fp"))
        var fingerprint: String?
        @Flag(name: .customLong("send-only"), help: "Approve a device enrolled with --send-only as send-only: never a recipient.")
        var sendOnly = false
        @OptionGroup var options: DeviceOptions

        func validate() throws {
            if let fingerprint, Fingerprint.normalised(fingerprint) == nil {
                throw ToolError.usage("\"\(fingerprint)\" is not a fingerprint (25 letters and digits, such as ABCDE-FGHIJ-KLMNO-PQRST-UVWXY)")
            }
        }

        func run() async throws {
            let (session, key, recipient) = try options.signingSession()
            try await session.withClient { client in
                let trust = try await DeviceTool.joined(session, client: client, key: key, recipient: recipient)
                guard let me = trust.devices.first(where: { $0.id == session.config.device }), trust.isApproved(me) else {
                    throw ToolError("this device is not approved itself, so it cannot approve another", exit: .permissionDenied,
                                    hints: ["approve it from one of your approved devices first"])
                }
                let device = try RelaySession.device(name, in: trust.devices)
                let shown = "\"\(DisplayText.printable(device.name))\" (\(device.id))"
                guard !trust.isMember(device) else { return Diagnostics.info("\(shown) is approved already") }
                guard let expected = DeviceTrust.fingerprint(device, sendOnly: sendOnly), let signingKey = device.signingKey.flatMap({ Data(base64Encoded: $0) }) else {
                    throw ToolError("\(shown) has not published its signing key yet", exit: .noInput,
                                    hints: ["run \"vfs-device fingerprint\" on it once, then approve it"])
                }
                if let fingerprint {
                    guard Fingerprint.matches(fingerprint, expected) else {
                        let role = DeviceTrust.fingerprint(device, sendOnly: !sendOnly).map { Fingerprint.matches(fingerprint, $0) } == true
                        throw ToolError("the fingerprint of \(shown)\(sendOnly ? " as a send-only device" : "") is \(expected), not \(fingerprint): not approved",
                                        exit: .permissionDenied,
                                        hints: role ? [sendOnly ? "it was enrolled as a reader, not with --send-only" : "it was enrolled with --send-only: approve it with --send-only"]
                                            : ["the relay, or someone between, may have put in a device of their own; compare again on the new device"])
                    }
                } else {
                    guard Terminal.stdinIsTerminal else {
                        throw ToolError.usage("no terminal to confirm on", hints: ["give the fingerprint the new device shows: --fingerprint FP"])
                    }
                    guard DeviceTool.confirm("approve \(shown)\(sendOnly ? " as send-only" : ""), fingerprint \(expected)? It must be what \"vfs-device fingerprint\" shows there.") else {
                        throw ToolError("\(shown) was not approved", exit: .no)
                    }
                }
                let entry = DeviceChain.DeviceEntry(id: device.id, name: try RelaySession.chainName(device.name),
                                                    recipient: device.recipient, signingKey: Array(signingKey), sendOnly: sendOnly)
                _ = try await session.append(.add(entry), to: trust, key: key, client: client)
                Diagnostics.info(sendOnly ? "approved \(shown) as send-only: its pushes are verified as yours, and nothing is encrypted to it"
                                          : "approved \(shown): your devices encrypt to it from now on")
            }
        }
    }
}

extension DeviceOptions {
    /// A session with this device's identity and signing key (a device enrolled before
    /// signing keys gets its key now), its key and its own recipient.
    func signingSession() throws -> (RelaySession, Ed25519.SigningKey, String) {
        let session = try RelaySession.open(home: try VFSPaths.current.home, place: try place, identity: true, signingKey: true,
                                            timeout: try relayTimeout)
        guard let key = session.credentials.signingKey else {
            throw RelayClientError.missingCredential(what: "signing key", place: "this run")
        }
        return (session, key, try session.credentials.recipient(config: session.config))
    }
}

extension DeviceTool {
    /// Joins this device to its user's chain (publishes its key; the root when the user
    /// has none: the first device, or the first to upgrade) and says so when it is pending.
    static func joined(_ session: RelaySession, client: RelayClient, key: Ed25519.SigningKey, recipient: String,
                       enrolling: Bool = false, acceptance: ChainAcceptance = .refuse) async throws -> DeviceTrust {
        let (trust, rooted) = try await session.joinChain(client, key: key, recipient: recipient, enrolling: enrolling,
                                                          acceptance: acceptance)
        guard let me = trust.devices.first(where: { $0.id == session.config.device }) else { return trust }
        if trust.isMember(me) {
            if rooted { Diagnostics.info("this device starts \(DisplayText.printable(trust.user))'s device chain (its root)") }
        } else if session.config.sendOnly == true {
            let fingerprint = DeviceTrust.fingerprint(me, sendOnly: true) ?? "?"
            Diagnostics.warn("this send-only device is pending: receivers do not verify its pushes until one of your devices approves it")
            Diagnostics.hint("on an approved device run: vfs-device approve \(DisplayText.shellQuoted(me.name)) --send-only --fingerprint \(fingerprint)")
        } else {
            let fingerprint = DeviceTrust.fingerprint(me) ?? "?"
            Diagnostics.warn("this device is pending: your other devices do not encrypt to it until one of them approves it")
            Diagnostics.hint("on an approved device run: vfs-device approve \(DisplayText.shellQuoted(me.name)) --fingerprint \(fingerprint)")
        }
        return trust
    }

    /// How this run takes a device chain of its user it has never seen (issue 43, item 6):
    /// the fingerprint given with --accept-chain, else a question on a terminal (the
    /// devices listed first), else a refusal (77).
    static func acceptance(_ fingerprint: String?) throws -> ChainAcceptance {
        if let fingerprint {
            guard Fingerprint.normalised(fingerprint) != nil else {
                throw ToolError.usage("--accept-chain \(DisplayText.printable(fingerprint)) is not a device fingerprint (XXXXX-XXXXX-XXXXX-XXXXX-XXXXX)")
            }
            return .fingerprint(fingerprint)
        }
        guard Terminal.stdinIsTerminal else { return .refuse }
        return .ask { unseen in
            Diagnostics.warn(unseen.summary)
            for line in unseen.lines { Diagnostics.info("  " + line) }
            Diagnostics.info("compare a fingerprint with what vfs-device fingerprint shows on that device")
            return confirm("are all of these your devices?")
        }
    }

    /// Asks `question` on the terminal; true for y or yes.
    static func confirm(_ question: String) -> Bool {
        try? writeAll(fd: STDERR_FILENO, Array("vfs-device: \(question) [y/N] ".utf8))
        let answer = (readLine() ?? "").trimmingUnicodeWhitespace().lowercased()
        return answer == "y" || answer == "yes"
    }
}
