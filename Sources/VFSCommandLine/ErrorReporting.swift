import VFSCore
#if canImport(Glibc)
import Glibc
#endif

// The one place where VFSCore's domain errors get what only a command line needs: the
// exit status each tool documents (DESIGN.md) and the hints, which may name flags,
// commands and environment variables. VFSCore's errors carry the data (paths, limits,
// the backup's path); the words about what to type next live here, as age keeps them
// in cmd/age and not in its library.

extension AgeError: ReportableError {
    public var exitStatus: ExitStatus {
        switch self {
        case .noMatch: return .permissionDenied
        case .invalidKey: return .usage
        case .header, .headerMAC, .payload, .armor, .workFactorTooLarge, .encryptedSSHKey: return .dataError
        }
    }

    public var hints: [String] {
        switch self {
        case .workFactorTooLarge(let n, _):
            return ["if you trust the file, raise the limit with --max-work-factor \(n) (scrypt needs \(ScryptRecipient.memoryNeeded(workFactor: n) >> 20) MiB for it)"]
        case .encryptedSSHKey: return AgeError.encryptedSSHKeyHints
        default: return []
        }
    }
}

extension AgeError {
    /// The one hint every tool gives for a passphrase-protected OpenSSH private key.
    public static let encryptedSSHKeyHints = [
        "keep it as age does best: remove the SSH passphrase on a copy (ssh-keygen -p -f COPY), " +
        "protect the copy with vfs-encrypt -p -a -o key.age COPY, shred the copy, and use -i key.age",
    ]
}

extension PluginError: ReportableError {
    public var exitStatus: ExitStatus {
        switch self {
        case .notFound, .cannotStart: return .unavailable
        case .misbehaved, .timedOut: return .dataError
        case .failed: return .permissionDenied
        case .noTerminal: return .usage
        }
    }

    public var hints: [String] {
        switch self {
        case .notFound(let name): return ["install \(AgePlugin.programName(name)) in a folder on PATH (age finds its plugins the same way)"]
        case .timedOut: return ["a plugin may take VFS_PLUGIN_TIMEOUT seconds in all (\(PluginHost.defaultTimeout) by default), the time you take to answer it not counted"]
        case .noTerminal: return ["run it where it can ask on a terminal"]
        case .cannotStart, .misbehaved, .failed: return []
        }
    }
}

extension BundleError: ReportableError {
    public var exitStatus: ExitStatus {
        switch self {
        case .archive(_, let writing): return writing ? .ioError : .dataError
        case .notABundle, .damagedCompression, .manifest, .unsafeEntry, .digestMismatch: return .dataError
        case .changedWhileWrapping: return .temporaryFailure
        case .exists, .cannotExtract, .changedDuringExtraction, .notEnoughSpace: return .cannotCreate
        case .expansionTooLarge, .notUnwrappable: return .dataError
        case .badInput: return .usage
        case .notInBundle: return .noInput
        }
    }

    public var hints: [String] {
        switch self {
        case .changedWhileWrapping:
            return ["nothing was written; wrap it again when nothing is writing to it (vfs-wrap --skip-changed leaves such files out)"]
        case .exists(_, let folder):
            return folder ? ["remove it yourself, or extract elsewhere with -C DIR"]
                          : ["use --force to replace it, or extract elsewhere with -C DIR"]
        case .notABundle: return ["it may be a plain age file: try vfs-decrypt"]
        case .damagedCompression:
            return ["it decrypted and authenticated, so it was sealed damaged: ask the sender to wrap it again; nothing was written"]
        case .cannotExtract: return ["-C DIR names an existing folder you can write to"]
        case .changedDuringExtraction:
            return ["someone who can write to DIR renamed or replaced a folder in it; extract into a folder only you can write to"]
        case .notEnoughSpace: return ["nothing was written; free some space, or extract elsewhere with -C DIR"]
        case .expansionTooLarge:
            return ["nothing was kept; a small bundle that expands this much may be a decompression bomb",
                    "if you trust it, raise the cap with --max-expansion RATIO, or lift it with --max-expansion 0"]
        case .notUnwrappable(_, .setuidFile): return ["wrap a copy without the bit (cp, then chmod u-s,g-s)"]
        case .notUnwrappable(_, .linkOutside):
            return ["wrap the folder that holds the link's target too, or replace the link with a copy of what it points to"]
        case let .notInBundle(members, wildcards):
            var out = ["nothing was extracted; --list shows the members"]
            if !wildcards && members.contains(where: { $0.contains(where: { "*?[".contains($0) }) }) {
                out.append("a member is taken literally; to match it as a glob, add --wildcards")
            }
            return out
        case .archive, .manifest, .unsafeEntry, .digestMismatch, .badInput: return []
        }
    }
}

extension KeychainError: ReportableError {
    public var exitStatus: ExitStatus {
        switch self {
        case .notFound, .noRecovery, .noIdentities, .noSuchIdentity, .noSuchRecipient, .noSuchSecret: return .noInput
        case .exists, .secretExists, .importWouldReplace, .identityExists: return .cannotCreate
        case .corrupt, .unsupportedVersion, .rolledBack, .secretNotText: return .dataError
        case .wrongPasscode, .wrongAnswers: return .permissionDenied
        case .changedMeanwhile: return .temporaryFailure
        case .entryTooLarge: return .usage
        }
    }

    public var hints: [String] {
        switch self {
        case .notFound: return ["create one with vfs-keychain init (VFS_KEYCHAIN or VFS_HOME choose where)"]
        case .exists: return ["it is kept as it is; to start over, move it away first"]
        case .corrupt(let path, _, let backup):
            var out = ["the file is left untouched, and no later save will overwrite it"]
            if let backup {
                out.append("the previous good copy is \"\(backup)\": check it with VFS_KEYCHAIN=\(DisplayText.shellQuoted(backup)) vfs-keychain list, then restore it with cp -p \(DisplayText.shellQuoted(backup)) \(DisplayText.shellQuoted(path)) && rm -f \(DisplayText.shellQuoted(path + ".epoch"))")
            }
            return out
        case .unsupportedVersion: return ["use the vfs-keychain that wrote it, or a newer one"]
        case .rolledBack(_, _, _, let record):
            return ["nothing was read or changed; if you restored an older copy on purpose, accept it with rm \(DisplayText.shellQuoted(record))"]
        case .noSuchRecipient: return ["vfs-keychain identity list shows the names (it needs the passcode or the agent)"]
        case .entryTooLarge: return ["nothing was saved; keep large data in a file encrypted with vfs-encrypt"]
        case .wrongPasscode: return ["nothing was changed; if you forgot it, vfs-keychain recover answers the security questions"]
        case .wrongAnswers: return ["answers are compared trimmed, case-folded and with inner spaces collapsed; nothing was changed"]
        case .noRecovery: return ["only a keychain made with vfs-keychain init --questions FILE can be recovered"]
        case let .secretExists(service, account): return ["replace it with vfs-keychain set --update \(service) \(account) (generate, mv and cp replace it with -f)"]
        case .importWouldReplace: return ["replace existing entries with --update"]
        case .identityExists(let name): return ["choose another name, or remove it first with vfs-keychain identity delete \(name)"]
        case .noIdentities:
            return ["make one with vfs-keychain identity new NAME, or import one with vfs-keychain identity import NAME FILE"]
        case .noSuchSecret: return ["vfs-keychain list (or find TERM) shows the entries there are"]
        case .changedMeanwhile: return ["run the command again to edit the secret as it is now"]
        case let .secretNotText(service, account):
            return ["get it on its own: vfs-keychain get \(DisplayText.shellQuoted(service)) \(DisplayText.shellQuoted(account)) > FILE"]
        case .noSuchIdentity(_, _, let known):
            return [known.isEmpty ? "the keychain holds no identities; make one with vfs-keychain identity new NAME"
                                  : "the identities are: " + known.sorted().joined(separator: ", ")]
        }
    }
}

extension KeychainStoreError: ReportableError {
    public var exitStatus: ExitStatus { .temporaryFailure }
    public var hints: [String] { ["run the command again; nothing was saved"] }
}

extension AgentError: ReportableError {
    public var exitStatus: ExitStatus {
        switch self {
        case .unsafeFolder: return .permissionDenied
        case .pathTooLong: return .cannotCreate
        case .startFailed: return .temporaryFailure
        }
    }

    public var hints: [String] {
        switch self {
        case .unsafeFolder(let path): return ["it must be a folder owned by you with mode 0700; remove \"\(path)\" or set XDG_RUNTIME_DIR"]
        case .pathTooLong: return ["set XDG_RUNTIME_DIR to a shorter folder"]
        case .startFailed: return []
        }
    }
}

extension PolicyError: ReportableError {
    public var exitStatus: ExitStatus {
        switch self {
        case .corrupt, .importConflict: return .dataError
        case .noSuchItem: return .noInput
        case .alreadyApproved: return .cannotCreate
        case .invalidApp, .invalidGroup, .invalidType, .appIsAnotherItemsID: return .usage
        }
    }

    public var hints: [String] {
        switch self {
        case .corrupt:
            return ["fix the file by hand (or restore it from git or a backup); vfs-policy never replaces a policy it cannot read"]
        case .noSuchItem:
            return ["vfs-policy list shows the apps and ids"]
        case let .alreadyApproved(app, _):
            return ["change it with vfs-policy update \(app) …"]
        case .invalidApp:
            return ["an app is a command name (evince) or a reverse-DNS id (com.example.viewer): letters, digits, '.', '_', '-', '+'"]
        case .invalidGroup:
            return ["a group is one word without spaces or commas; repeat --group for several"]
        case .invalidType:
            return ["a file type is an extension without the dot, such as pdf; repeat --type for several"]
        case .appIsAnotherItemsID:
            return ["choose another app identifier"]
        case .importConflict:
            return ["rename or remove the clashing item, or import with --replace"]
        }
    }
}

extension PolicyDates.ParseError: ReportableError {
    public var exitStatus: ExitStatus { .usage }
    public var hints: [String] {
        what == "expiry"
            ? ["write a date (2027-01-31: valid through that day, UTC), a time (2027-01-31T17:00:00Z or with +02:00), or a duration from now (90d)"]
            : ["write an ISO 8601 time such as 2027-01-31T17:00:00Z (or with an offset, +02:00)"]
    }
}

extension VFSPathsError: ReportableError {
    public var exitStatus: ExitStatus { .usage }
    public var hints: [String] { ["set HOME to your home folder, or VFS_HOME to the folder for the keychain and the policy"] }
}

extension DurationText.ParseError: ReportableError {
    public var exitStatus: ExitStatus { .usage }
    public var hints: [String] {
        lacksUnit ? ["a bare number is not taken as seconds: write \(text)s, \(text)m, \(text)h, \(text)d or \(text)w"]
                  : ["write a number with a unit: 90s, 30m, 12h, 7d, 2w (or a sum like 1h30m)"]
    }
}

extension IOError: ReportableError {
    public var exitStatus: ExitStatus {
        switch code {
        case ENOENT, ENOTDIR: return .noInput
        case EACCES, EPERM: return .permissionDenied
        case EAGAIN, EINTR: return .temporaryFailure
        default: return .ioError
        }
    }
}

extension OpenSSLError: ReportableError {
    public var exitStatus: ExitStatus { .ioError }
}

extension ShredRefusal {
    /// How to get it destroyed anyway, where there is a way.
    public var hint: String? {
        switch self {
        case .hardLinked:
            return "its data stays reachable through the other names: shred every name, or add --force to overwrite the shared data anyway"
        case .folderWithoutRecursive: return "use -r to shred a folder and everything in it"
        case .blockDevice: return "add --device to overwrite the whole device (it is never removed)"
        case .blockDeviceInTree: return "name a block device on the command line with --device to overwrite it"
        case .fifo, .socket, .characterDevice, .unknownType:
            return "only regular files hold data to overwrite; remove it with rm"
        case .otherFileSystem:
            return "vfs-shred -r stays on the file system it starts on; name the mount point on the command line to shred what it holds"
        case .specialName, .changedMeanwhile, .pseudoFileSystem: return nil
        }
    }
}

extension UnsafeOutputLink: ReportableError {
    public var exitStatus: ExitStatus { .cannotCreate }
    public var hints: [String] {
        ["such a link is not followed (as the kernel's protected_symlinks does for open): remove it, or choose another name with -o"]
    }
}

extension GroupError: ReportableError {
    public var exitStatus: ExitStatus {
        switch self {
        case .invalidName: return .usage
        case .unreadable(_, _, let error): return error.exitStatus
        case .badRecipients: return .dataError
        }
    }

    public var hints: [String] {
        switch self {
        case .invalidName(_, let folder): return ["a group name is a file name in \(folder): no '/', not starting with '.'"]
        case .unreadable(_, let path, _): return ["create \(path) with one age1… recipient per line"]
        case .badRecipients: return []
        }
    }
}

extension DeviceChainError: ReportableError {
    /// A chain that cannot be parsed is bad input (65); one that parses but is not to be
    /// trusted (forged, rolled back, forked, another root) is a refusal (77).
    public var exitStatus: ExitStatus {
        switch self {
        case .malformed: return .dataError
        default: return .permissionDenied
        }
    }

    public var hints: [String] {
        switch self {
        case .rolledBack, .forked, .unanchoredCheckpoint:
            return ["nothing was changed: the relay, or someone between it and you, served an older or different device list than this device verified before"]
        case .rootChanged(let user):
            return ["nothing was done: \(user)'s device list has another root than at first contact (they started it again, or the relay swapped it)",
                    "compare the safety code with them out of band (vfs-device verify \(DisplayText.shellQuoted(user))), and only if it matches accept the new root with: vfs-device verify \(DisplayText.shellQuoted(user)) --confirm CODE"]
        default: return []
        }
    }
}

extension EscrowError: ReportableError {
    /// Too few shares, or a split asked of the wrong size, is usage (64); a share that is
    /// not one, or shares that do not belong together or rebuild nothing, are bad data (65).
    package var exitStatus: ExitStatus {
        switch self {
        case .emptySecret, .secretTooLarge, .badCounts, .tooFew: return .usage
        case .invalidShare, .mixedSplits, .inconsistent, .duplicate, .checksum: return .dataError
        }
    }

    package var hints: [String] {
        switch self {
        case .tooFew(_, let needed): return ["give \(needed) different shares of the same split; fewer reveal nothing of the secret"]
        case .mixedSplits: return ["every share names its split on its \"split:\" line: give shares with the same one"]
        case .secretTooLarge: return ["split a key instead: encrypt the file with vfs-encrypt to a new identity and escrow that identity"]
        default: return []
        }
    }
}

extension BundleSignatureError: ReportableError {
    public var exitStatus: ExitStatus {
        switch self {
        case .malformed: return .dataError
        case .wrongUser, .unknownDevice, .badSignature, .unaddressed, .notForThisDevice, .replayed, .tooOld: return .permissionDenied
        }
    }
}

extension PrivateScratchFile.Failure: ReportableError {
    public var exitStatus: ExitStatus { .cannotCreate }
    public var hints: [String] {
        ["a secret is edited only on a memory file system, so no copy reaches a disk: mount a tmpfs at /dev/shm, or point XDG_RUNTIME_DIR at one",
         "or replace it without an editor: vfs-keychain set --update SERVICE ACCOUNT"]
    }
}

extension ExternalEditor.Failure: ReportableError {
    public var exitStatus: ExitStatus { .no }
    public var hints: [String] { ["the editor comes from VISUAL, else EDITOR, else vi; the temporary copy was removed"] }
}

extension Clipboard.Failure: ReportableError {
    /// 69: the clipboard is a service that is not there (sysexits' EX_UNAVAILABLE).
    public var exitStatus: ExitStatus { .unavailable }
    public var hints: [String] {
        switch self {
        case .noTool: return ["install wl-clipboard (Wayland), xclip or xsel (X11), or leave out -c to print the secret"]
        case .toolFailed: return ["nothing is on the clipboard; leave out -c to print the secret"]
        }
    }
}

extension SizeText.ParseError: ReportableError {
    public var exitStatus: ExitStatus { .usage }
    public var hints: [String] {
        ["write bytes (1048576) or a number with a unit, powers of 1024: 512K, 512M, 10G, 1.5T, 1P"]
    }
}
