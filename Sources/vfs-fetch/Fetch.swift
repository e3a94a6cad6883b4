import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore
import VFSRelayClient
import VFSRelayTransfers
import VFSRelayCommandLine
import VFSRelayProtocol

@main
struct FetchTool: AsyncVFSCommand, CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-fetch",
        abstract: "Receive transfers sent to this device: list, download, verify, unwrap, acknowledge.",
        discussion: """
        Without arguments, lists the inbox (id, sender, size, sent, expires: a header and \
        columns on a terminal, tab-separated otherwise, -h for sizes as 1.2 MiB). With --all \
        or transfer IDs (or unique beginnings of them), downloads each (HTTP Range: an interrupted download resumes \
        from the bytes already in $VFS_HOME/incoming), decrypts it with this device's \
        identity (age authenticates every chunk and the end) and unwraps it into -C DIR \
        with the same checks as \
        vfs-unwrap: with --for APP the policy must approve APP for the bundle's group and \
        every file type before a byte is released (exit 77 otherwise), every digest is \
        verified, extraction never leaves DIR; the sender's signature must be by a \
        device of your verified device chain (exit 77 otherwise, unless \
        --allow-unverified, which unpacks it and says so; -v names the sender). A \
        sender of another user is checked against that user's chain as pinned at first \
        contact: until you compared the safety code (vfs-device verify USER) -v calls \
        it "pinned, not confirmed", a warning says so, and --verified-only refuses the \
        transfer (77); the listing marks such senders and pins nobody. Only \
        then is the transfer acknowledged \
        (delivered). A transfer still uploading (status uploading: its sender is pushing \
        it) is read as its bytes reach the relay, decrypted and staged as they come, and \
        checked whole at the end like any other: nothing is placed before all of it was \
        authenticated and its sender's signature passed; if its sender abandons it (cancels it, or its \
        upload stops for good: the relay expires an upload that gets no bytes for its \
        --upload-idle-expiry, an hour by default) the fetch exits 66 and places nothing. --all \
        takes complete transfers first, then those still uploading, and leaves one whose \
        sender sends nothing for --idle-wait seconds (60) in the inbox for a later fetch \
        (exit 75 once the others are done; its partial download resumes then). --all and \
        --decline remove what is left in $VFS_HOME/incoming of transfers no longer in the \
        inbox (declined, cancelled, expired, abandoned). An external transfer (a file sent in \
        through your file request, vfs-share request, by someone without a device) is an \
        age file, not a bundle, and no device signed it: the listing marks it "external, \
        unsigned", and fetching it says so on stderr, decrypts it with this device's \
        identity (age authenticates all of it before anything is placed) and writes it \
        into DIR under the name its sender gave (one file name; otherwise external-ID), \
        never over an existing file (73); --verified-only and --for APP refuse it (77: \
        it has no sender to verify, and no group or file types for the policy). --stdout writes the content of a \
        one-file transfer once all of it checked (the sender's signature comes at the end: it is \
        read through once, then again from the kept download to stdout); --raw writes the ciphertext \
        as downloaded (an age file: age -d -i KEY | bsdtar -x opens it) without \
        acknowledging.

        What nothing checks as it arrives is bounded: a download stops at the size the \
        relay lists, and --raw and --allow-unverified take at most --max-size bytes \
        (default 8G, the relay's default --max-upload) of a transfer still uploading, \
        whose size is not known yet; past either, the fetch exits 65 and keeps nothing \
        of it (its partial download is removed).

        --for uses the policy vfs-policy check uses: the local file, or with \
        "policy": {"source": "relay"} in $VFS_HOME/config.json this device's copy of the \
        organisation's list on the relay.

        --watch holds the relay's event stream and fetches each transfer as its event \
        arrives (and everything waiting whenever it connects), refreshes this device's \
        copy of the organisation's policy on every connection and policy event, reconnecting with backoff, \
        jitter and Last-Event-ID, so a relay restart loses nothing. --exec CMD runs \
        after each transfer with every top-level path it unpacked as its arguments ("$@"), \
        and VFS_FILE (the first of them), VFS_DIR and VFS_TRANSFER in its environment. -v \
        lists each file and folder unpacked on stderr, as vfs-unwrap -v does. When the relay logs the device out, the watcher \
        exits 77; it erases the device's token, identity and signing key (and with \
        --wipe-on-logout first shreds DIR with the vfs-shred engine) only when your \
        verified device chain removes it by a statement of another of your devices, as \
        vfs-device revoke on an approved device appends. A logout by the relay alone (a \
        disabled user, an operator's or a pending device's revoke) stops the token and \
        erases nothing.

        A failure that passes (the relay refusing connections or restarting, a cut \
        download, 429, 502, 503, 504, 507) is tried again with growing waits (exponential \
        backoff with jitter, as curl --retry does) for up to --retry-for (5m by default, or \
        $VFS_RETRY_FOR; 0 never), a download resuming with Range from the bytes it has; the \
        failure is reported (one line naming the last cause, the exit status below) only \
        once that time passed without the download moving on. What can never pass (401, \
        403, 404, a refused signature or chain) is reported at once. A request the relay may \
        have carried out before its answer was lost (an acknowledgement, a decline) is sent \
        again only when it surely was not. --watch reconnects on its own.

        --no-backup marks what is unpacked as vfs-unwrap --no-backup does: nodump on \
        every file and folder (where the file system keeps it) and a CACHEDIR.TAG in \
        each folder a transfer creates in DIR.

        Examples:
          vfs-fetch
          vfs-fetch --all -C ~/Inbox --for evince
          vfs-fetch 3f9c0d… --stdout | less
          vfs-fetch --decline 3f9c0d…
          vfs-fetch --watch -C ~/Inbox --exec 'notify-send "$VFS_FILE"'
          vfs-fetch --watch -C ~/Inbox --exec 'ls -l "$@"'

        Exit status: 0 success; 64 usage; 65 corrupt or tampered (a digest, the age \
        authentication, an unsafe entry, more bytes than listed or than --max-size); 66 no such transfer (or one abandoned by its sender while it uploaded), or not enrolled; 69 relay \
        unreachable (still so after --retry-for), or the age plugin of a device key in hardware not on PATH (nothing is placed; \
        its questions, a PIN, need a terminal: 64 at once without one); 73 DIR can't be written or an entry exists; 75 temporary (429, 503, still so after --retry-for; with --all, a transfer still uploading whose sender went idle, left for later); \
        77 the policy denies APP, the sender's signature is missing, bad or not by a \
        device of your verified device chain (--allow-unverified unpacks it, marked), \
        this device was revoked or logged out, a wrong keychain passcode.
        """,
        version: vfsVersion, helpNames: [.long])

    @Flag(help: "Fetch every transfer in the inbox (complete ones first).") var all = false
    @Option(name: .customLong("idle-wait"), help: ArgumentHelp("With --all, leave a transfer still uploading whose sender sends nothing for this many seconds in the inbox for a later fetch (exit 75).", valueName: "seconds"))
    var idleWait: Int = 60
    @Option(name: [.customShort("C", allowingJoined: true), .customLong("directory")], help: ArgumentHelp("Unpack into DIR (default: the current folder).", valueName: "dir"), completion: .directory)
    var directory: String?
    @Option(name: .customLong("for"), help: ArgumentHelp("Release the content only if the policy approves APP.", valueName: "app"), completion: .vfsPolicyApps)
    var app: String?
    @Flag(name: .customLong("stdout"), help: "Write the content of a one-file transfer to stdout.") var toStandardOutput = false
    @Flag(help: "Write the transfer's ciphertext to stdout, as downloaded, without acknowledging it.") var raw = false
    @Option(help: ArgumentHelp("Decline the transfer ID (its sender sees \"declined\").", valueName: "id")) var decline: String?
    @Flag(help: "Stay connected and fetch each transfer as it arrives.") var watch = false
    @Option(help: ArgumentHelp("With --watch, run CMD (sh -c) after each transfer.", valueName: "cmd")) var exec: String?
    @Flag(name: .customLong("wipe-on-logout"), help: "With --watch, shred DIR when another of your devices removes this one from your device chain (vfs-device revoke).") var wipeOnLogout = false
    @Flag(name: .customLong("verified-only"), help: "Refuse a transfer from another user whose safety code you have not confirmed (vfs-device verify).")
    var verifiedOnly = false
    @Flag(name: .customLong("allow-unverified"), help: "Unpack a transfer whose sender's signature is missing, bad or unknown (said on stderr).")
    var allowUnverified = false
    @Option(name: .customLong("max-size"), help: ArgumentHelp("With --raw or --allow-unverified, take at most SIZE bytes of a transfer still uploading (default 8G).", valueName: "size"))
    var maxSize: String?
    @Option(help: ArgumentHelp("Only transfers from USER (an email address; yours for your own devices' transfers), listed or with --all.", valueName: "user"))
    var from: String?
    @Flag(help: "Print the inbox as JSON.") var json = false
    @OptionGroup var sizes: HumanSizeOption
    @Flag(name: .shortAndLong, help: "Name each transfer's verified sender and list each file and folder unpacked, on stderr.")
    var verbose = false
    @OptionGroup var backupOption: NoBackupOption
    @OptionGroup var progressOptions: ProgressOptions
    var quiet: Bool { progressOptions.quiet }
    @OptionGroup var retry: RetryOptions
    @OptionGroup var credentials: RelayCredentialOptions
    @Argument(help: ArgumentHelp("Transfers to fetch.", valueName: "id")) var ids: [String] = []

    func check() throws {
        let modes = [all || !ids.isEmpty, decline != nil, watch].filter { $0 }.count
        if modes > 1 { throw ToolError.usage("choose one of --all/IDs, --decline ID and --watch") }
        if all && !ids.isEmpty { throw ToolError.usage("--all fetches every transfer; don't name IDs with it") }
        if (toStandardOutput || raw) && (ids.count != 1 || directory != nil) {
            throw ToolError.usage("--stdout and --raw write one transfer: name its ID, without -C DIR")
        }
        if toStandardOutput && raw { throw ToolError.usage("choose one of --stdout and --raw") }
        if (exec != nil || wipeOnLogout) && !watch { throw ToolError.usage("--exec and --wipe-on-logout go with --watch") }
        if wipeOnLogout && directory == nil { throw ToolError.usage("--wipe-on-logout needs -C DIR, the folder it would shred") }
        if backupOption.noBackup && (toStandardOutput || raw || !(all || !ids.isEmpty || watch)) {
            throw ToolError.usage("--no-backup goes with what is unpacked into DIR (--all, IDs or --watch)")
        }
        if verifiedOnly && (raw || !(all || !ids.isEmpty || watch)) {
            throw ToolError.usage("--verified-only goes with what is fetched and checked (--all, IDs or --watch), not --raw")
        }
        if verbose && (toStandardOutput || raw || !(all || !ids.isEmpty || watch)) {
            throw ToolError.usage("-v lists what is unpacked into DIR (--all, IDs or --watch)")
        }
        if let maxSize {
            guard raw || allowUnverified else { throw ToolError.usage("--max-size goes with --raw and --allow-unverified") }
            _ = try SizeText.bytes(maxSize)
        }
        if json && (all || !ids.isEmpty || decline != nil || watch) { throw ToolError.usage("--json goes with the inbox listing") }
        if from != nil && (!ids.isEmpty || decline != nil || watch) { throw ToolError.usage("--from goes with the inbox listing and --all") }
        if idleWait < 1 { throw ToolError.usage("--idle-wait must be at least 1 second") }
        _ = try retry.seconds(default: 0)
    }

    /// What is done with each transfer received.
    var receiveOptions: ReceiveOptions {
        var options = ReceiveOptions.terminal(quiet: quiet, backupOption: backupOption)
        (options.directory, options.app, options.toStandardOutput, options.raw) = (directory, app, toStandardOutput, raw)
        (options.verbose, options.allowUnverified, options.verifiedOnly) = (verbose, allowUnverified, verifiedOnly)
        // --all is what a crontab runs: a sender that stopped must not hold up the rest.
        if all { options.followIdle = .seconds(idleWait) }
        if raw || allowUnverified {
            options.followLimit = (try? maxSize.map(SizeText.bytes)) ?? ReceiveOptions.uncheckedFollowLimit
        }
        return options
    }

    func run() async throws {
        let needsIdentity = all || !ids.isEmpty || watch
        let session = try credentials.session(identity: needsIdentity && !raw, retry: try retry.policy(quiet: quiet))
        if watch { return try await InboxWatcher(receiveOptions, session: session, exec: exec, wipeOnLogout: wipeOnLogout).run() }
        try await session.withClient { client in
            let inbox = Inbox(session: session, client: client)
            if let decline { return try await inbox.decline(decline) }
            if !all && ids.isEmpty { return try await listInbox(inbox) }
            // What earlier runs left of transfers that went meanwhile goes first.
            if all { try await inbox.removeStaleDownloads() }
            // Each transfer is checked end to end (--raw asks the relay for the SHA-256 it lacks).
            var wanted = all ? try await inbox.entries(from: from, digests: false) : try await inbox.entries(ids, from: from, digests: false)
            // Complete transfers first: one still uploading is read as it arrives, and its
            // sender may have stopped (until the relay expires it or the sender resumes).
            if all { wanted = wanted.filter { $0.status != .uploading } + wanted.filter { $0.status == .uploading } }
            let receiver = TransferReceiver(receiveOptions, session: session, client: client)
            var firstError: Error?
            for entry in wanted {
                do {
                    _ = try await receiver.receive(entry)
                } catch {
                    // Go on with the others; the first failure decides the exit status.
                    if wanted.count > 1, let reportable = error as? ReportableError { Diagnostics.report(reportable) }
                    if firstError == nil { firstError = error }
                }
            }
            if let firstError {
                if wanted.count > 1 { throw ExitCode(CommandFailure(firstError, command: FetchTool.self).status) }
                throw firstError
            }
        }
    }

    /// The inbox with each sender as this device verified it (`Inbox.listing`).
    func listInbox(_ inbox: Inbox) async throws {
        let (rows, user) = try await inbox.listing(from: from)
        if json { return try JSONOutput.print(rows) }
        Listing.print(["ID", "FROM", "SIZE", "SENT", "EXPIRES"], rows.map { row in
            let from = row.user == user || row.external != nil ? row.from : "\(row.from) of \(row.user ?? "?")"
            let mark = row.external != nil ? " (external, unsigned)" : !row.verified ? " (unverified)" : row.confirmed ? ""
                : row.pinned ? " (pinned, not confirmed)" : " (not pinned, not confirmed)"
            return [row.id, DisplayText.printable(from + mark), Listing.size(row.size, human: sizes.human),
                    DateText.iso8601(row.created), DateText.iso8601(row.expires)]
        })
    }
}
