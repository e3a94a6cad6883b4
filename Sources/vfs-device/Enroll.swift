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

extension DeviceTool {
    struct Enroll: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Enrol this machine with a relay using a one-time code.",
            discussion: """
            Makes a new age identity and an Ed25519 signing key, sends the recipient with \
            CODE and --name to the relay at URL, and keeps the identity, the signing key and \
            the token the relay returns in the keychain (or the --identity-file/--token-file \
            files; the signing key beside the identity, in PATH.ed25519). Writes \
            $VFS_HOME/relay.json. Prints the new device's id, and its fingerprint on \
            standard error (vfs-device fingerprint prints it again). The user's first \
            device starts their device chain; a later one is pending until an approved \
            device runs "vfs-device approve NAME" (docs/device-chain.md).

            A device that finds your device chain started already, by devices it has \
            never seen, lists them (name, fingerprint, when added) and trusts the chain \
            only when you say they are yours: a yes on a terminal, or --accept-chain with \
            the fingerprint "vfs-device fingerprint" shows on one of them. Otherwise it \
            stays enrolled, trusts nothing of the chain and exits 77 (the operator, or \
            anyone holding a code for you, could have started it); "vfs-device list \
            --accept-chain FINGERPRINT" takes it later.

            A key in hardware (a YubiKey, a TPM, a Secure Enclave) can be the device's \
            decryption key through its age plugin: give --identity-file FILE holding the \
            plugin's identity stub (AGE-PLUGIN-NAME-1…, as age-plugin-yubikey --identity \
            writes it) instead of a new identity. A stub does not yield its recipient: it is \
            read from the file's "# public key:" or "# Recipient:" comment, or given with \
            --recipient, and kept in $VFS_HOME/relay.json; it is what the relay lists. The \
            file is left as it is (a remote log-out leaves it too: it holds no secret). \
            Transfers to the device are then opened by age-plugin-NAME, which must be on \
            PATH, asking on the terminal if it needs to (a PIN, a touch); devices that push \
            to it need the plugin on PATH too, to encrypt. The Ed25519 signing key stays a \
            key of the device's own (a plugin can't sign), beside the stub in FILE.ed25519.

            --send-only enrols a device that only sends, such as a server whose cron job \
            runs vfs-push (docs/device-chain.md, "Send-only devices"): it signs its \
            pushes, which receivers verify as "NAME of USER (send-only)", but no device \
            ever encrypts to it (no cloud file, rekey, group push or --to its user), and \
            it cannot approve or remove devices. Its fingerprint covers the role; an \
            approved device runs "vfs-device approve NAME --send-only". It cannot be a \
            user's first device. With --token-file and --identity-file it needs no \
            keychain and no passcode, at enrolment or after (a cron job, or a systemd \
            unit's $CREDENTIALS_DIRECTORY: docs/send-from-a-server.md); the files are \
            written 0600, and one its group or others may read is refused (77).

            Plain http:// is refused (exit 64, nothing sent) for a relay beyond this \
            machine: the code and the token would cross the network in clear; \
            --insecure-http allows it, for a network trusted end to end. An https:// \
            relay signed by a private CA needs --cacert CA.pem (as curl's): the file is \
            copied to $VFS_HOME/relay-ca.pem and later commands trust it (VFS_RELAY_CACERT \
            overrides it for one command).

            A machine that is enrolled already is refused (exit 73): --force enrols it \
            again and then revokes its old device, so no ghost of it stays on the relay; \
            when the old device was approved, it approves the new one and removes itself \
            from your device chain first (the same machine vouches for its new keys). That \
            works after the operator disabled and enabled you too (the old token is dead, \
            its signing key is not): the old key approves the new device, which then \
            removes the old one. When you were removed and added again (or the operator \
            ran "vfs-relay user reset-chain"), the relay has no chain of yours: the new \
            device forgets the one it pinned, says so, and starts a new one; your \
            colleagues confirm its root (vfs-device verify). A name another of your \
            devices has is refused by the relay (exit 73).

            Examples:
              vfs-device enroll http://127.0.0.1:8787 K7QM-2WXD-PA9F-H3TN --name laptop
              vfs-device enroll https://relay.example K7QM-2WXD-PA9F-H3TN --name phone \\
                --accept-chain ABCDE-FGHIJ-KLMNO-PQRST-UVWXY
              vfs-device enroll --force https://relay.example \\
                K7QM-2WXD-PA9F-H3TN --name laptop
              vfs-device enroll https://relay.example K7QM-2WXD-PA9F-H3TN \\
                --name backup-server --send-only
              vfs-device enroll --cacert acme-ca.pem https://relay.acme.internal \\
                K7QM-2WXD-PA9F-H3TN --name laptop
              age-plugin-yubikey --identity > ~/.vfs-yubikey.txt
              vfs-device enroll https://relay.example K7QM-2WXD-PA9F-H3TN --name laptop \\
                --identity-file ~/.vfs-yubikey.txt
            """)

        @Argument(help: ArgumentHelp("The relay's URL.", valueName: "url")) var url: String
        @Argument(help: ArgumentHelp("The one-time enrolment code.", valueName: "code")) var code: String
        @Option(help: ArgumentHelp("This device's name.", valueName: "name")) var name: String
        @Option(help: ArgumentHelp("The platform shown in listings.", valueName: "platform")) var platform = "linux"
        @Flag(help: "Enrol again on an enrolled machine, and revoke its old device.") var force = false
        @Option(help: ArgumentHelp("Trust the CA certificates in this PEM file for the https:// relay (kept for later commands).", valueName: "file"),
                completion: .file()) var cacert: String?
        @Flag(help: "Allow plain http:// to a relay beyond this machine (a network trusted end to end).") var insecureHTTP = false
        @Option(help: ArgumentHelp("The recipient of the plugin identity stub in --identity-file, when the file does not name it.",
                                   valueName: "recipient")) var recipient: String?
        @Option(name: .customLong("accept-chain"),
                help: ArgumentHelp("Trust your existing device chain, this device has never seen, if one of its devices has this fingerprint.",
                                   valueName: "fingerprint")) var acceptChain: String?
        @Flag(name: .customLong("send-only"),
              help: "Enrol a device that only sends (a server's cron job): it signs its pushes, and nothing is ever encrypted to it.")
        var sendOnly = false
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            try DeviceTool.checkEnrolmentURL(url, cacert: cacert, insecureHTTP: insecureHTTP)
            let acceptance = try DeviceTool.acceptance(acceptChain)
            let place = try options.place
            // A plugin's stub in --identity-file is the device's key (checked before the code is spent).
            let stub = try pluginStub(place)
            // Unlock first: a wrong passcode must not waste the one-time code.
            try DeviceCredentials.checkKeychain(place)
            let old = try enrolled(place)
            // The old device's id and signing key, kept even when its token is dead (its user
            // disabled and enabled): that key, still live in the chain, approves the new device.
            let oldSigner = old.flatMap { session in session.credentials.signingKey.map { (id: session.config.device, key: $0) } }
            var enrolment = Enrolment(url: url, code: code, name: name, platform: platform,
                                      identity: try stub.map { .plugin($0.identity) } ?? .x25519(X25519Identity.generate()),
                                      stubRecipient: stub?.recipient, caFile: cacert ?? VFSPaths.current.relayCACert, keepCA: cacert,
                                      insecureHTTP: insecureHTTP, timeout: try options.relayTimeout, place: place,
                                      home: try VFSPaths.current.home, acceptance: acceptance, report: .terminal(quiet: true))
            enrolment.sendOnly = sendOnly
            let outcome = try await enrolment.run(replacing: old, oldSigner: oldSigner) { session, client, key in
                _ = try await DeviceTool.joined(session, client: client, key: key, recipient: enrolment.recipient, enrolling: true,
                                                acceptance: acceptance)
            }
            print(outcome.device.id)
            // Enrolled, but trusting nothing of the chain: said with its devices (77).
            if let unseen = outcome.unseen { throw unseen }
        }

        /// The plugin identity stub in --identity-file and its recipient (--recipient, else
        /// the file's recipient comment); nil when the file is not a stub (no file, or an
        /// X25519 identity of an earlier enrolment, which a new one replaces).
        func pluginStub(_ place: CredentialPlace) throws -> (identity: PluginIdentity, recipient: String)? {
            guard let file = place.identityFile, let data = FileManager.default.contents(atPath: file) else {
                if recipient != nil { throw Self.recipientWithoutStub }
                return nil
            }
            let text = String(decoding: data, as: UTF8.self)
            guard case .plugin(let identity)? = try? KeyFile.identities(in: text, source: file).first else {
                if recipient != nil { throw Self.recipientWithoutStub }
                return nil
            }
            let named = KeyFile.recipientComment(in: text)
            guard let given = recipient ?? named else {
                throw ToolError.usage("\"\(DisplayText.printable(file))\" holds a plugin identity stub but does not name its recipient",
                                      hints: ["give it with --recipient age1\(identity.name)1… (\(AgePlugin.programName(identity.name)) prints it)"])
            }
            if let recipient, let named, named != recipient {
                throw ToolError.usage("--recipient \(recipient) is not the recipient \"\(DisplayText.printable(file))\" names (\(named))")
            }
            let parsed: AgeRecipient
            do { parsed = try AgeRecipient(given) } catch {
                throw ToolError.usage("invalid recipient \(DisplayText.printable(given)) for the plugin identity in \"\(DisplayText.printable(file))\"")
            }
            switch parsed {
            case .plugin(let plugin) where plugin.name == identity.name: break
            default:
                throw ToolError.usage("the recipient \(given) is not one \(AgePlugin.programName(identity.name)) serves",
                                      hints: ["a plugin identity's recipient is age1\(identity.name)1…"])
            }
            return (identity, given)
        }

        static let recipientWithoutStub = ToolError.usage("--recipient is for a plugin identity stub in --identity-file",
                                                          hints: ["vfs-device makes a new identity otherwise; its recipient is the identity's own"])

        /// The session of this machine's current enrolment, when it has a live one: nil
        /// when not enrolled or logged out (no token); refused without --force.
        func enrolled(_ place: CredentialPlace) throws -> RelaySession? {
            let home = try VFSPaths.current.home
            guard let config = try? DeviceConfig.load(home: home, paths: VFSPaths(environment: [:])),
                  // Its signing key too, to hand its place in the device chain to the new device.
                  let credentials = (try? DeviceCredentials.load(place, identity: false, signingKey: true))
                    ?? (try? DeviceCredentials.load(place, identity: false)) else { return nil }
            guard force else {
                throw ToolError("this machine is enrolled already, as \"\(DisplayText.printable(config.name))\" (\(config.device)) with \(config.relay)",
                                exit: .cannotCreate, hints: ["use --force to enrol it again and revoke the old device"])
            }
            var session = RelaySession(home: home, config: config, credentials: credentials)
            session.timeout = try options.relayTimeout
            return session
        }
    }

    struct FingerprintCommand: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "fingerprint",
            abstract: "Print this device's fingerprint (or its public signing key).",
            discussion: """
            The fingerprint is a short code derived from this device's Ed25519 signing key \
            and its age recipient (docs/device-chain.md): compare it, on both screens, \
            before another device trusts this one. A device enrolled before signing keys \
            gets its key now, kept where its identity is. --signing-key prints the public \
            signing key (base64) instead.

            Example:
              vfs-device fingerprint
            """)
        @Flag(name: .customLong("signing-key"), help: "Print the public signing key (base64) instead.") var printKey = false
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            let credentials = try DeviceCredentials.load(try options.place, identity: true, signingKey: true)
            guard let key = credentials.signingKey else {
                throw RelayClientError.missingCredential(what: "signing key", place: "this run")
            }
            if printKey { return print(Data(key.publicKey).base64EncodedString()) }
            let config = try? DeviceConfig.load(home: try VFSPaths.current.home)
            print(Fingerprint.device(signingKey: key.publicKey, recipient: try credentials.recipient(config: config),
                                     sendOnly: config?.sendOnly == true))
        }
    }
}

extension DeviceTool {
    /// The enrolment URL and --cacert of enroll and recover, checked before anything is
    /// read or sent (a wrong one must not spend the one-time code).
    static func checkEnrolmentURL(_ url: String, cacert: String?, insecureHTTP: Bool) throws {
        try RelayClient.validate(url: url, from: "the enrolment URL", insecureHTTP: insecureHTTP)
        if let cacert {
            guard url.lowercased().hasPrefix("https:") else { throw ToolError.usage("--cacert is for an https:// relay") }
            try RelayClient.checkCAFile(cacert)
        }
    }
}
