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

@main
struct CloudTool: AsyncVFSCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-cloud",
        abstract: "Keep your files in cloud folders on the relay, end to end encrypted to all your devices.",
        discussion: """
        Every file is encrypted on this device (age format, as vfs-encrypt) to every active \
        device of yours, each key checked against the pinned keys (vfs-device trust), uploaded \
        with a resumable upload, and fetched with HTTP Range, so "get" streams while it \
        downloads and an interrupted "get" or "put" continues where it stopped when run again. \
        The relay sees the cloud path names and the sizes of the ciphertext, never the content.

        A device enrolled later reads the existing files after "vfs-cloud rekey" on a device \
        that can read them: it writes a new age header for the current devices and replaces \
        only the header on the relay. Revoking a device and rekeying drops its key from every \
        file; copies it already fetched stay out of reach.

        A put never loses another device's write: it replaces the version this device got, \
        and when another device replaced that meanwhile, both are kept (a conflict copy \
        beside the newer one; "vfs-cloud conflicts" lists them). -f replaces whatever is there.

        Examples:
          vfs-cloud mkdir -p /docs/2026
          vfs-cloud put report.pdf /docs/2026/
          vfs-cloud put -r photos /docs/2026/
          vfs-cloud ls -l -R /docs
          vfs-cloud get /docs/2026/report.pdf -C ~/Downloads
          vfs-cloud get /music/set.flac --stdout | mpv -
          vfs-cloud mv /docs/2026 /archive/2026
          vfs-cloud rm -r -f /archive/old
          vfs-cloud du --json
          vfs-cloud rekey

        A failure that passes (the relay refusing connections or restarting, a cut upload \
        or download, 429, 502, 503, 504, 507) is tried again with growing waits \
        (exponential backoff with jitter, as curl --retry does) for up to --retry-for (5m by \
        default, or $VFS_RETRY_FOR; 0 never), uploads and downloads resuming from where they \
        stopped; the failure is reported (one line naming the last cause, the exit status \
        below) only once that time passed without them moving on. What can never pass \
        (401, 403, 404, 413, a cap, a name that exists) is reported at once, and a request \
        the relay may have carried out before its answer was lost (mkdir, mv, rm) is sent \
        again only when it surely was not.

        Exit status: 0 done; 1 rm -r not confirmed, rekey left files this device cannot open, or put -r left out names the relay can't store or files it can't read (each named, the rest stored); 3 a put found a newer version \
        there and was kept as a conflict copy ("vfs-cloud conflicts" lists them); 64 usage; 65 a bad answer or a corrupt \
        file; 66 no such path, or nothing this device can open; 69 relay unreachable (still so after --retry-for), or an \
        age plugin needed for a device key in hardware not on PATH; 73 the \
        name exists (mkdir without -p, mv without -f), the output cannot be written, or the \
        quota or the cap on files and folders is reached; 75 temporary (429, 503, 507, still so after --retry-for; the file changed during a rekey); 77 a \
        changed device key, a device chain that does not verify, no approved device, a \
        revoked token, or a wrong keychain passcode. Files are encrypted to the devices \
        of your verified device chain only: pending ones are left out, with a warning.
        """,
        version: vfsVersion,
        subcommands: [List.self, MakeFolder.self, Put.self, Get.self, Move.self, Remove.self, Usage.self, Rekey.self, Conflicts.self, Log.self, Trash.self, Restore.self])
}

/// What every subcommand takes: this device's credentials (the options themselves, not a
/// group around them: ArgumentParser's debug build checks each level of nested groups
/// at every parse).
typealias CloudOptions = RelayCredentialOptions

extension RelayCredentialOptions {
    /// Runs `body` with a client that tries again after temporary failures as `retry`
    /// says; relay refusals become the cloud's exit statuses.
    func run<R>(identity: Bool = false, retry: RetryOptions, quiet: Bool = false,
                _ body: (RelaySession, RelayClient) async throws -> R) async throws -> R {
        let session = try session(identity: identity, retry: try retry.policy(quiet: quiet))
        return try await CloudPath.mapErrors { try await session.withClient { try await body(session, $0) } }
    }
}
