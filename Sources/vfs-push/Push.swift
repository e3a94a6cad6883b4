import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSBundle
import VFSCore
import VFSRelayClient
import VFSRelayTransfers
import VFSRelayCommandLine
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

@main
struct PushTool: AsyncVFSCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-push",
        abstract: "Send files, end to end encrypted, to your devices, device groups and colleagues through the relay.",
        discussion: """
        Files and folders (-r), or standard input ('-', named by --name NAME), become one vfs \
        bundle (the vfs-wrap format) encrypted to the pinned recipient of every target \
        device, uploaded once with a resumable tus upload, then sent as one transfer to \
        all targets: the relay sees neither the content nor the file names. A target \
        whose key changed since it was pinned is refused (exit 77) until \
        "vfs-device trust NAME", and so is a device your device chain has not approved \
        (pending: vfs-device approve); revoked and pending devices in a group, and with \
        --cloud, are left out with a warning, and the sending device is left out of its \
        own groups. The bundle is signed with this device's key, so the receiver \
        verifies who sent it. It is zstd-compressed unless samples of the files (4 MiB and \
        more), taken while they are hashed, show they would shrink by less than 3% \
        (random data, media, archives: see vfs-wrap).

        The bundle is uploaded while it is sealed (a tus upload whose length is declared at \
        its end), held in memory until the relay confirms it; the transfer is made as soon \
        as the relay holds its first bytes, so a target that is online (vfs-fetch --watch) \
        receives it while it uploads (with --cloud, once the upload ended); what the relay may still lack \
        when sealing ends (all of it, if the upload failed) is kept in $VFS_HOME/outgoing \
        until the transfer exists: a push killed or cut off halfway continues with \
        "vfs-push resume" from the relay's offset. Ctrl-C, kill or a hang-up says what became \
        of the push: once its bundle is sealed it is kept ("vfs-push resume" finishes it, \
        "vfs-push resume --drop ID" withdraws it); before, it could never be resumed, so it \
        is withdrawn (its upload removed from the relay; its targets get nothing). One \
        killed outright (SIGKILL) is ended by the relay once its upload gets no bytes for \
        the relay's idle expiry (an hour by default), and resume removes what it left. \
        A transfer the relay refuses for good (a person disabled, a device revoked) is \
        not kept. The transfer's id is printed as soon as the transfer exists; commands \
        that take an id take any unique beginning of one, as git does. A \
        progress bar is shown on a terminal for large pushes.

        A failure that passes (the relay refusing connections or restarting, a cut \
        connection, 429, 502, 503, 504, a full disk's 507, an upload still busy's 409) is \
        tried again with growing waits (exponential backoff with jitter, as curl --retry \
        does) for up to --retry-for (5m by default, or $VFS_RETRY_FOR; 0 never): the bundle \
        is sealed into its spool as it goes up, so each try resumes the upload from the \
        relay's offset, and the failure is reported (one line naming the last cause, the \
        exit status below) only once that time passed without the upload moving on. 5 \
        minutes outlast a relay's restart or upgrade and a disk its operator frees, and end \
        before a crontab's next run. What can never pass (401, 403, 404, 413, a refused key \
        or chain, bad input) is reported at once.

        Examples:
          vfs-push -d phone report.pdf
          vfs-push -g home -r photos/ notes.txt
          tar c project | vfs-push -g home --name project.tar -
          vfs-push -g home --expires 2d --wait big.iso
          vfs-push outbox --json | jq '.[0].recipients'
          id=$(vfs-push -d phone big.iso) && vfs-push wait "$id"
          vfs-push -d phone --cloud /backup/report.vfs report.pdf
          vfs-push --to bob@example.com --wait report.pdf

        --to USER sends to a person: a user of your organisation, by email address \
        (repeat it for several). The bundle is encrypted to every approved device in \
        USER's device chain, which this device verifies, never to the relay's list \
        alone: a device of theirs that is pending gets nothing. The first send pins \
        their chain's root key in $VFS_HOME/pins.json (as ssh's known_hosts); a \
        changed root is refused (77) until you compare the safety code with them \
        (vfs-device verify USER). A send to a user whose code you have not confirmed \
        says so once; --verified-only refuses it (77). --cc-me adds your own approved \
        devices; --wait waits for one device of each person, --wait-all for all of \
        them. --to-group NAME sends to every member of a group of people of your \
        organisation, kept by its administrators (vfs-relay group), each through their \
        own device chain. vfs-push outbox shows each device's status, grouped by user. A user of \
        another organisation is not found (66); one disabled receives nothing (66). \
        The transfer counts against your quota.

        With --cloud /PATH the relay also keeps the sealed bundle as the cloud file PATH \
        (its folder must exist): one upload, one blob referenced by the transfer and the \
        cloud file. The bundle is then encrypted to the targets and to every active \
        device of yours, so any of them can read the cloud copy: fetch it as stored with \
        vfs-cloud get (its raw option), then open it with vfs-unwrap -K vfs-device.

        Exit status: 0 sent (and, with --wait, delivered to every target); 1 --wait ended with \
        a target that declined or let it expire, or a cancelled transfer, or a name could not be stored or a file or folder could not be read (each is named \
        on stderr; the transfer holds the rest); 64 usage; 65 a bad answer; 66 no such \
        device, group, group of people, transfer, user of your organisation, or input; 69 relay unreachable (still so after --retry-for), or the \
        age plugin of a target's key in hardware (age1NAME1…) not on PATH; 73 too large for the \
        relay or the quota; 75 temporary (429, 503, 507, still so after --retry-for); 77 a changed device key, a pending \
        device, a device chain that does not verify, a person's changed chain root, an \
        unverified person with --verified-only, a revoked token, a wrong \
        keychain passcode, or a token or key file (--token-file, --identity-file, \
        $CREDENTIALS_DIRECTORY) that others may read.

        From a systemd unit (a server's nightly push, as a send-only device: \
        docs/send-from-a-server.md), the token and keys come as credentials: \
        LoadCredential=vfs-token:FILE, vfs-identity:FILE and vfs-identity.ed25519:FILE \
        (the files --token-file and --identity-file made at enrolment) put them in \
        $CREDENTIALS_DIRECTORY, where this reads them when no --token-file or \
        --identity-file is given; no keychain is opened, no passcode asked. These files, \
        like those --token-file and --identity-file name, must be their owner's alone \
        (0600, or the 0400 systemd makes): one its group or others may read is refused \
        (77). packaging/systemd/vfs-push-send@.service is an example.
        """,
        version: vfsVersion,
        subcommands: [Send.self, Outbox.self, Wait.self, Cancel.self, Resume.self],
        defaultSubcommand: Send.self)
}

/// The relay credentials every subcommand takes (the options themselves, not a group
/// around them: ArgumentParser's debug build checks each level of nested groups at every parse).
typealias PushOptions = RelayCredentialOptions

extension PushTool {
    struct Send: AsyncVFSCommand, CheckedCommand {
        static let configuration = CommandConfiguration(abstract: "Push files to devices (-d), groups (-g) and people (--to).")

        @Option(name: [.customShort("d", allowingJoined: true), .customLong("device")], help: ArgumentHelp("A target device (name or id).", valueName: "device"))
        var devices: [String] = []
        @Option(name: [.customShort("g", allowingJoined: true), .customLong("group")], help: ArgumentHelp("A target group.", valueName: "group"))
        var groups: [String] = []
        @Option(name: .customLong("to"), help: ArgumentHelp("A person: the email address of a user of your organisation (every approved device in their verified device chain); vfs-device users lists them.", valueName: "user"),
                completion: .vfsOrgUsers)
        var people: [String] = []
        @Option(name: .customLong("to-group"), help: ArgumentHelp("A group of people of your organisation (its administrators keep them): every member, as with --to.", valueName: "name"))
        var peopleGroups: [String] = []
        @Flag(name: .customLong("cc-me"), help: "With --to: also send to your own approved devices (not this one).") var ccMe = false
        @Flag(name: .customLong("verified-only"), help: "With --to: refuse a person whose safety code you have not confirmed (vfs-device verify).")
        var verifiedOnly = false
        @Flag(name: .shortAndLong, help: "Push folders with everything in them.") var recursive = false
        @Option(help: ArgumentHelp("Store standard input under NAME.", valueName: "name")) var name: String?
        @Option(help: ArgumentHelp("Undelivered copies expire after DURATION (2d, 12h; the relay's default is 7d).", valueName: "duration"))
        var expires: String?
        @Flag(help: "Wait until every target fetched or declined it, or it expired or was cancelled (with --to: one device of each person).") var wait = false
        @Flag(name: .customLong("wait-all"), help: "With --to: wait for every device of every person, not one of each.") var waitAll = false
        @Option(help: ArgumentHelp("Also keep what is sent as the cloud file PATH (vfs-cloud), sharing its ciphertext with the transfer.", valueName: "path"))
        var cloud: String?
        @OptionGroup var progressOptions: ProgressOptions
        var quiet: Bool { progressOptions.quiet }
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: PushOptions
        @Argument(help: ArgumentHelp("Files, folders (with -r), or '-' for standard input.", valueName: "path"), completion: .file())
        var paths: [String] = []

        func check() throws {
            if devices.isEmpty && groups.isEmpty && !sendsToPeople {
                throw ToolError.usage("no target", hints: ["name devices with -d DEVICE, groups with -g GROUP, or people with --to EMAIL or --to-group NAME"])
            }
            if !sendsToPeople && (ccMe || verifiedOnly || waitAll) {
                throw ToolError.usage("--cc-me, --verified-only and --wait-all go with --to USER or --to-group NAME")
            }
            if wait && waitAll { throw ToolError.usage("choose one of --wait and --wait-all") }
            if paths.isEmpty { throw ToolError.usage("nothing to push", hints: ["name files, folders with -r, or '-' with --name NAME"]) }
            if paths.contains("-") && name == nil { throw ToolError.usage("standard input needs a name", hints: ["give it with --name NAME"]) }
            if !paths.contains("-") && name != nil { throw ToolError.usage("--name names standard input, which is not being pushed") }
            if let expires { _ = try DurationText.seconds(expires) }
            _ = try retry.seconds(default: 0)
            for path in paths where path != "-" && !recursive {
                var isFolder = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder {
                    throw ToolError.usage("\"\(path)\" is a folder", hints: ["use -r to push a folder and everything in it"])
                }
            }
        }

        func run() async throws {
            // The sealing and the upload go through 1 MiB buffers, up to 24 MiB of them at
            // once: malloc keeps the freed ones for the next instead of handing each back
            // to the kernel and faulting fresh zeroed pages in (a third of the faults).
            MallocTuning.keepFreed(mmapThreshold: 32 << 20, trimThreshold: 1 << 30)
            // Sealed into its spool before the first byte goes: a retry resumes it (--retry-for).
            let session = try options.session(signingKey: true, retry: try retry.policy(quiet: quiet))
            var addressees = PushAddressees()
            (addressees.devices, addressees.groups, addressees.people, addressees.peopleGroups) = (devices, groups, people, peopleGroups)
            (addressees.ccMe, addressees.verifiedOnly, addressees.cloud) = (ccMe, verifiedOnly, cloud)
            let (entry, refused) = try await session.withClient { client -> (OutboxEntry, Int) in
                let targets = try await PushTargets.resolve(addressees, session: session, client: client, report: .terminal(quiet: quiet))
                // One group and no single devices: the bundle belongs to that group (vfs-fetch --for checks it).
                let group = devices.isEmpty && !sendsToPeople && groups.count == 1 ? groups[0] : nil
                // The id is printed as soon as the transfer exists (while it uploads, for targets fetching it).
                return try await TransferSender(client: client, home: session.home, report: .terminal(quiet: quiet)).send(
                    paths, standardInputName: name, to: targets, group: group, lifetime: try expires.map { try DurationText.seconds($0) },
                    cloud: cloud, announce: printID)
            }
            if wait || waitAll {
                try await session.withClient { client in
                    try await SentTransfers(session: session, client: client).waitForDelivery(entry.id, onePerUser: wait && sendsToPeople)
                }
            }
            // The rest went; a name that could not go is an error all the same (exit 1).
            if refused > 0 { throw ToolError.namesLeftOut(refused, holder: "the transfer") }
        }

        /// --to or --to-group.
        var sendsToPeople: Bool { !people.isEmpty || !peopleGroups.isEmpty }
    }
}

/// A transfer's id on its own line, written at once (a script reading a pipe gets it
/// while a --wait still runs).
func printID(_ id: String) {
    try? writeAll(fd: STDOUT_FILENO, Array((id + "\n").utf8))
}
