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

extension ShareTool {
    struct Request: AsyncVFSCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            commandName: "request", abstract: "Ask someone without a device for a file: print a link and the command that sends one.",
            discussion: """
            Prints a link https://RELAY/r/ID and, on a second line, the command that sends \
            a file through it with nothing of ours: age -r RECIPIENT… FILE | curl -T - \
            LINK. The recipients are the X25519 age recipients of your approved devices \
            (not a send-only one), as a push to yourself would choose them, checked against \
            the device chain you verified; a device whose key is of another kind (a \
            hardware key's plugin, post-quantum) is left out and named. The link opened in \
            a browser lists the same recipients and encrypts the file in the page. \
            "curl LINK" gives the recipients one per line, for age -R.

            The relay takes only an age file whose header holds exactly one X25519 stanza \
            per recipient and nothing else (not a passphrase, not another kind of key): \
            anything else is refused (415) before a byte of it is kept. It cannot check \
            that each stanza is for the right key (only the recipients' keys can); your \
            device does, when it decrypts. Each file taken waits in your devices' inboxes \
            as an external transfer: vfs-fetch receives it, says that it is external and \
            that no device signed it, and writes it under the name the sender gave (after \
            the link, as in LINK/NAME) or external-ID. --uploads N takes N files, then the \
            link answers 410, as it does past --expires (7d by default) and after \
            "vfs-share revoke ID". What is sent in counts against your quota, as a push of \
            yours would.

            Examples:
              vfs-share request
              vfs-share request --expires 2d --uploads 1

            Exit status: as vfs-share's; 66 also when none of your approved devices has an \
            X25519 recipient.
            """)

        @Option(help: ArgumentHelp("The link takes files until DURATION has passed (3d, 12h; the relay's default is 7d).", valueName: "duration"))
        var expires: String?
        @Option(help: ArgumentHelp("The link takes N files, then answers 410.", valueName: "n"))
        var uploads: Int?
        @Flag(help: "Print JSON (id, url, command, recipients, expires, uploads).") var json = false
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: ShareOptions

        func check() throws {
            if let expires { _ = try DurationText.seconds(expires) }
            if let uploads, uploads < 1 { throw ToolError.usage("--uploads must be at least 1") }
            _ = try retry.seconds(default: 0)
        }

        struct Report: Encodable {
            var id: String
            var url: String
            var command: String
            var recipients: [String]
            var expires: Date
            var uploads: Int?
        }

        func run() async throws {
            let session = try options.session(retry: try retry.policy(quiet: true))
            let lifetime = try expires.map { try DurationText.seconds($0) }
            let made = try await session.withClient { client in
                try await client.linkPolicy().check(what: "file requests", expires: lifetime, downloads: nil, size: nil)
                // Every approved, live device of this user (no send-only one), pinned.
                let readers = try await session.cloudReaders(client, warn: { Diagnostics.warn($0) })
                var devices = [String](), recipients = [String]()
                for (device, recipient) in zip(readers, try session.pinnedRecipients(readers)) {
                    guard case .x25519 = recipient else {
                        Diagnostics.warn("leaving out \"\(DisplayText.printable(device.name))\": its recipient is not an X25519 one, which a file request's senders encrypt to")
                        continue
                    }
                    devices.append(device.id)
                    recipients.append(recipient.string)
                }
                guard !devices.isEmpty else {
                    throw ToolError("none of your approved devices has an X25519 recipient: nobody could send you a file", exit: .noInput)
                }
                return try await client.createFileRequest(FileRequestCreate(
                    devices: devices, recipients: recipients,
                    expires: lifetime.map { Date().addingTimeInterval(TimeInterval($0)) }, uploads: uploads))
            }
            var base = session.config.relay
            while base.hasSuffix("/") { base.removeLast() }
            let link = base + RelayPaths.requestLink(made.id)
            let report = Report(id: made.id, url: link, command: Self.command(link: link, recipients: made.recipients),
                                recipients: made.recipients, expires: made.expires, uploads: made.maxUploads)
            if json { return try JSONOutput.print(report) }
            print(report.url)
            print(report.command)
            Diagnostics.info("request \(made.id): \(made.maxUploads.map { "\($0) file\($0 == 1 ? "" : "s"), " } ?? "")until \(DateText.iso8601(made.expires))")
        }

        /// `age -r R1 -r R2 FILE | curl -T - LINK`.
        static func command(link: String, recipients: [String]) -> String {
            "age " + recipients.map { "-r \($0) " }.joined() + "FILE | curl -T - \(DisplayText.shellQuoted(link))"
        }
    }
}
