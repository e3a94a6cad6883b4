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
            Makes a new age identity and an Ed25519 signing key, sends the recipient with \
            CODE and --name to the relay at URL, and keeps the identity, the signing key and \
            the token the relay returns in the keychain (or the --identity-file/--token-file \
            files; the signing key beside the identity, in PATH.ed25519). Writes \
            $VFS_HOME/relay.json. Prints the new device's id, and its fingerprint on \
            standard error (vfs-device fingerprint prints it again).

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
            let signingKey = try Ed25519.SigningKey()
            let answer = try await RelayClient.with(baseURL: url, token: nil) { client in
                try await client.enroll(EnrollRequest(code: code, name: name, platform: platform, recipient: identity.recipient.string))
            }
            try DeviceCredentials.save(place, token: answer.token, identity: identity, signingKey: signingKey)
            try DeviceConfig(relay: url, device: answer.device.id, name: answer.device.name).save(home: VFSPaths.current.home)
            var pins = try PinStore(home: VFSPaths.current.home)
            pins.trust(answer.device)
            try pins.save()
            Diagnostics.info("enrolled \"\(answer.device.name)\" with \(url)")
            Diagnostics.info("fingerprint \(Fingerprint.device(signingKey: signingKey.publicKey, recipient: identity.recipient.string))")
            print(answer.device.id)
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
            guard let key = credentials.signingKey, let identity = credentials.identity else {
                throw RelayClientError.missingCredential(what: "identity", place: "this run")
            }
            if printKey { return print(Data(key.publicKey).base64EncodedString()) }
            print(Fingerprint.device(signingKey: key.publicKey, recipient: identity.recipient.string))
        }
    }
}
