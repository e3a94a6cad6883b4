import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSBundle
import VFSCommandLine
import VFSCore
import VFSRelayClient
import VFSRelayCommandLine
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

@main
struct ShareTool: AsyncVFSCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-share",
        abstract: "Share files with someone who has no device: a link that plain age or a browser opens, its key never on the relay.",
        discussion: """
        The files are encrypted on this device (age format) to a fresh X25519 key made for \
        this link alone, uploaded with a resumable upload, and the relay makes a link of the \
        ciphertext. The link is printed as https://RELAY/s/ID#KEY: the key is the part \
        after '#', the URL's fragment, which no HTTP client sends, so the relay never holds \
        it, nor logs it. Whoever has the whole link can read the files, as long as the relay \
        still serves it; whoever has only the part before '#' (the relay, its logs, a proxy) \
        gets ciphertext. The second line printed is the same as a command for a terminal \
        that needs only curl and age (or rage).

        One file is shared as it is; several, or a folder, as one bundle (an uncompressed pax \
        archive: the command ends in tar -xf -, which also writes the manifest \
        .vfs-manifest.json). With --passphrase the files are encrypted to a passphrase \
        instead (age's scrypt), read as vfs-encrypt -p reads it: the link then holds no key, \
        and age asks for the passphrase; give it to the recipient another way.

        The relay counts each GET of the link that gets bytes, in the statement that lets it \
        through: with --downloads 1, of many GETs at once exactly one gets the file, the \
        rest 410 (a HEAD counts nothing; a resumed download, with Range, counts again). \
        Past --expires (7d by default, at most the relay's longest transfer lifetime) and \
        after "vfs-share revoke ID" the link answers 410, and a revoked link's ciphertext is \
        deleted at once. "vfs-share list" shows each link with every download (time, bytes, \
        the client's address as the relay sees it); each download is also a "share" event on \
        your devices' event stream. The link's ciphertext counts against your quota until it \
        is revoked or expires.

        Your organisation's operator may limit links (vfs-relay org set --links): a link \
        past its longest expiry, its most downloads or its size cap, or any link when links \
        are off, is refused before anything is uploaded (exit 77, the limit in the \
        message); without --expires or --downloads a link gets the organisation's longest \
        and most. An administrator may revoke any link of the organisation.

        "vfs-share request" does the other way: a link through which someone without a \
        device sends you a file (age -r … FILE | curl -T - LINK, or the link's page in a \
        browser), delivered to your devices' inboxes as an external transfer (see \
        vfs-share request --help).

        Examples:
          vfs-share report.pdf
          vfs-share --expires 3d --downloads 1 contract.pdf
          vfs-share --passphrase photos/
          vfs-share request --uploads 1
          vfs-share list
          vfs-share revoke 3f2a

        Exit status: 0 done; 1 a name could not be stored or a file could not be read (each \
        named, the rest shared); 64 usage; 65 a bad answer; 66 no such file or link; 69 relay \
        unreachable (still so after --retry-for); 73 too large for the relay or the quota; 75 \
        temporary (429, 503, 507, still so after --retry-for); 77 a revoked token.
        """,
        version: vfsVersion,
        subcommands: [Send.self, Request.self, List.self, Revoke.self],
        defaultSubcommand: Send.self)
}

/// The relay credentials every subcommand takes (the options themselves, not a group
/// around them, as vfs-cloud's).
typealias ShareOptions = RelayCredentialOptions

extension ShareTool {
    struct Send: AsyncVFSCommand, CheckedCommand {
        static let configuration = CommandConfiguration(commandName: "send", abstract: "Share files and folders: print a link and a command for a terminal.")

        @Option(help: ArgumentHelp("The link stops working after DURATION (3d, 12h; the relay's default is 7d).", valueName: "duration"))
        var expires: String?
        @Option(help: ArgumentHelp("The link allows N downloads, then answers 410.", valueName: "n"))
        var downloads: Int?
        @OptionGroup var passphrase: PassphraseEncryptionOptions
        @Flag(help: "Print JSON (id, url, command, size, expires, downloads).") var json = false
        @OptionGroup var progressOptions: ProgressOptions
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: ShareOptions
        @Argument(help: ArgumentHelp("Files or folders.", valueName: "path"), completion: .file())
        var paths: [String] = []

        func check() throws {
            if paths.isEmpty { throw ToolError.usage("nothing to share", hints: ["name files or folders: vfs-share FILE…"]) }
            if let expires { _ = try DurationText.seconds(expires) }
            if let downloads, downloads < 1 { throw ToolError.usage("--downloads must be at least 1") }
            try passphrase.check(hasRecipients: false, recipientFlags: "")
            _ = try retry.seconds(default: 0)
            for path in paths {
                var info = stat()
                guard stat(RawName.cString(path), &info) == 0 else {
                    throw ToolError("no such file \"\(RawName.escaped(path))\"", exit: .noInput)
                }
            }
        }

        struct Report: Encodable {
            var id: String
            var url: String
            var command: String
            var size: Int64
            var expires: Date
            var downloads: Int?
        }

        func run() async throws {
            let session = try options.session(retry: try retry.policy(quiet: progressOptions.quiet))
            let lifetime = try expires.map { try DurationText.seconds($0) }
            // What the organisation allows, before anything is sealed or sent.
            let policy = try await session.withClient { try await $0.linkPolicy() }
            try policy.check(what: "share links", expires: lifetime, downloads: downloads, size: nil)
            let identity = passphrase.passphrase ? nil : try X25519Identity.generate()
            let recipient: Recipient = try identity.map { $0.recipient } ?? passphrase.recipient()
            var sealed = try ShareSeal(paths: paths, home: session.home, warn: { Diagnostics.warn($0) })
            defer { sealed.remove() }
            try sealed.seal(to: recipient)
            try policy.check(what: "share links", expires: nil, downloads: nil, size: try FileSize.of(sealed.file))
            let share = try await session.withClient { client in
                try await sealed.upload(client: client, report: .terminal(quiet: progressOptions.quiet),
                                        request: { ShareCreate(upload: $0, expires: lifetime.map { Date().addingTimeInterval(TimeInterval($0)) },
                                                               downloads: downloads) })
            }
            var base = session.config.relay
            while base.hasSuffix("/") { base.removeLast() }
            let link = base + RelayPaths.shareLink(share.id)
            let url = identity.map { link + "#" + $0.string } ?? link
            let report = Report(id: share.id, url: url, command: ShareCommand.text(link: link, key: identity?.string, output: sealed.output),
                                size: share.size, expires: share.expires, downloads: share.maxDownloads)
            if json { return try JSONOutput.print(report) }
            print(report.url)
            print(report.command)
            Diagnostics.info("link \(share.id): \(share.maxDownloads.map { "\($0) download\($0 == 1 ? "" : "s"), " } ?? "")until \(DateText.iso8601(share.expires))")
            if sealed.refused > 0 { throw ToolError.namesLeftOut(sealed.refused, holder: "the link") }
        }
    }

    struct List: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List your links with each download, and your file requests with each file sent in.",
            discussion: """
            Every link of yours the relay still knows, oldest first: its id, size, expiry, \
            downloads so far (of the most allowed) and state (live, revoked, expired, used), \
            then one indented line per download. The key is not shown: it was never on the relay. \
            Then every file request ("request ID"), with its files taken (of the most \
            allowed) and state, and one indented line per file (time, bytes, address, the \
            name its sender gave, the transfer it became). --json prints the links; \
            --requests only the requests (with --json, as JSON).

            Example:
              vfs-share list --json | jq '.[] | select(.downloads | length > 0) | .id'
            """)
        @Flag(help: "Print a JSON array of links (id, size, created, expires, maxDownloads, downloads: [{at, size, address}], revoked).")
        var json = false
        @Flag(help: "Only the file requests; with --json an array of them (id, recipients, devices, created, expires, maxUploads, uploads: [{transfer, at, size, address, name}], revoked).")
        var requests = false
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: ShareOptions

        func run() async throws {
            let session = try options.session(retry: try retry.policy(quiet: true))
            let (shares, filed) = try await session.withClient { client -> ([Share], [FileRequest]) in
                var shares = [Share]()
                if !requests { shares = try await client.shares() }
                return (shares, try await client.fileRequests())
            }
            if json { return requests ? try JSONOutput.print(filed) : try JSONOutput.print(shares) }
            let now = Date()
            for share in shares {
                let state = share.revoked != nil ? "revoked" : share.expires <= now ? "expired" : share.isLive(at: now) ? "live" : "used"
                let count = "\(share.downloads.count)" + (share.maxDownloads.map { "/\($0)" } ?? "")
                print("\(share.id)  \(Listing.size(share.size, human: true))  until \(DateText.iso8601(share.expires))  \(count) downloads  \(state)")
                for download in share.downloads {
                    print("  \(DateText.iso8601(download.at))  \(download.size) bytes  \(DisplayText.printable(download.address))")
                }
            }
            for request in filed {
                let state = request.revoked != nil ? "revoked" : request.expires <= now ? "expired" : request.isLive(at: now) ? "live" : "used"
                let count = "\(request.uploads.count)" + (request.maxUploads.map { "/\($0)" } ?? "")
                print("request \(request.id)  until \(DateText.iso8601(request.expires))  \(count) files  \(state)")
                for upload in request.uploads {
                    let name = upload.name.map { "  \"\(DisplayText.printable($0))\"" } ?? ""
                    print("  \(DateText.iso8601(upload.at))  \(upload.size) bytes  \(DisplayText.printable(upload.address))\(name)  transfer \(upload.transfer)")
                }
            }
        }
    }

    struct Revoke: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: "Revoke a link (its next GET is 410, its ciphertext deleted) or a file request (it takes nothing more).",
            discussion: """
            ID is a link's or a file request's id (vfs-share list), or any unique beginning \
            of one. A revoked request answers 410; the files it took stay in your inbox.

            Example:
              vfs-share revoke 3f2a
            """)
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: ShareOptions
        @Argument(help: ArgumentHelp("The link's or request's id, or a unique beginning of it.", valueName: "id")) var id: String

        func run() async throws {
            let session = try options.session(retry: try retry.policy(quiet: true))
            try await session.withClient { client in
                let links = try await client.shares().map(\.id).filter { $0.hasPrefix(id.lowercased()) }
                let requests = try await client.fileRequests().map(\.id).filter { $0.hasPrefix(id.lowercased()) }
                guard links.count + requests.count == 1 else {
                    let count = links.count + requests.count
                    throw ToolError(count == 0 ? "no link or file request \"\(DisplayText.printable(id))\""
                                        : "\"\(DisplayText.printable(id))\" is the beginning of \(count) links and requests",
                                    exit: count == 0 ? .noInput : .usage)
                }
                if let link = links.first {
                    try await client.revokeShare(link)
                    Diagnostics.info("revoked \(link)")
                } else {
                    try await client.revokeFileRequest(requests[0])
                    Diagnostics.info("revoked request \(requests[0])")
                }
            }
        }
    }
}

/// The terminal command printed beside a link.
enum ShareCommand {
    /// `curl -s LINK | age -d -i <(echo KEY) > NAME` (or `| tar -xf -` for a bundle); without
    /// a key (a passphrase), age asks for it on the terminal.
    static func text(link: String, key: String?, output: ShareSeal.Output) -> String {
        let decrypt = key.map { "age -d -i <(echo \($0))" } ?? "age -d"
        let into: String
        switch output {
        case .file(let name): into = "> \(DisplayText.shellQuoted(name))"
        case .bundle: into = "| tar -xf -"
        }
        return "curl -fsS \(DisplayText.shellQuoted(link)) | \(decrypt) \(into)"
    }
}
