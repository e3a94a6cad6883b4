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
    struct Verify: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the safety code you and another user compare, and record that it matched.",
            discussion: """
            Another user's devices are the ones in their device chain, whose root key this \
            device pins the first time it sees it (vfs-push --to, vfs-fetch, or this \
            command), as ssh pins a host key. The safety code is computed from both users' \
            root keys (docs/device-chain.md): it is the same on both sides, so you and \
            USER each run "vfs-device verify" naming the other and compare the 60 digits \
            out of band (in person, on a call). If they match, record it with --confirm \
            CODE: sends to USER no longer say "not confirmed", and vfs-push --verified-only \
            accepts them. A code that differs is refused (exit 77) and nothing is recorded.

            When USER's root is no longer the pinned one (they started their device chain \
            again, or the relay swapped it), vfs-push refuses them (77); this command then \
            shows the code of the new root, and --confirm CODE with a code that matches \
            what USER reads out replaces the pin.

            Examples:
              vfs-device verify bob@example.com
              vfs-device verify bob@example.com --confirm "12345 67890 …"
            """)
        @Argument(help: ArgumentHelp("The other user's email address.", valueName: "user")) var user: String
        @Option(help: ArgumentHelp("The code USER read out: recorded as verified if it is this one.", valueName: "code")) var confirm: String?
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            let session = try options.session()
            try await session.withClient { client in
                let trust = try await session.deviceTrust(client)
                guard user != trust.user else { throw ToolError.usage("\"\(DisplayText.printable(user))\" is you: name another user") }
                guard let own = trust.verified else {
                    throw ToolError("your device chain has no root yet", exit: .noInput, hints: ["run vfs-device list once on your first device"])
                }
                let statements = try await session.colleagueStatements(user, client: client)
                var pins = try PinStore(home: session.home)
                var replacesPin = false
                let other: DeviceChain.Verified
                do {
                    other = try pins.accept(statements, user: user)
                } catch DeviceChainError.rootChanged {
                    // The new root's code, to compare before replacing the pin.
                    other = try DeviceChain.verify(statements, user: user)
                    replacesPin = true
                    Diagnostics.warn("\(DisplayText.printable(user))'s device chain has another root than the one pinned at first contact: this is the new root's code")
                }
                let code = RelaySession.safetyCode(own, other)
                guard let confirm else {
                    if !replacesPin { try pins.save() }
                    print(code)
                    if !replacesPin && !pins.isVerified(user) {
                        Diagnostics.info("not confirmed yet: compare it with \(DisplayText.printable(user)), then run vfs-device verify \(DisplayText.shellQuoted(user)) --confirm CODE")
                    }
                    return
                }
                guard Self.digits(confirm) == Self.digits(code) else {
                    throw ToolError("the code given is not the safety code of you and \(DisplayText.printable(user)): not recorded",
                                    exit: .permissionDenied,
                                    hints: ["compare again; a code that differs means one of you is not seeing the other's real devices"])
                }
                if replacesPin {
                    pins.forget(user)
                    _ = try pins.accept(statements, user: user)
                }
                pins.confirm(user)
                try pins.save()
                Diagnostics.info("recorded \(DisplayText.printable(user)) as verified")
            }
        }

        /// A code as typed: its digits only (spaces, dashes and line breaks dropped).
        static func digits(_ code: String) -> String { String(code.unicodeScalars.filter { ("0"..."9").contains($0) }.map(Character.init)) }
    }
}
