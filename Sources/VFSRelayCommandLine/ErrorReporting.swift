import VFSCommandLine
import VFSRelayClient
import VFSRelayProtocol
import VFSCore

// The relay client workflows' errors get what only a command line needs here, as
// VFSCommandLine's ErrorReporting does for VFSCore's: the exit status each tool
// documents and the hints that name flags and commands.

extension TransferError: ReportableError {
    public var exitStatus: ExitStatus {
        switch self {
        case .noLiveDevice, .noPeopleGroup, .noPendingPush: return .noInput
        case .cloudFileExists: return .cannotCreate
        case .notVerified, .notSigned, .loggedOutReenrolled, .loggedOutByRelay, .senderNotConfirmed: return .permissionDenied
        case .unverifiedSender(let reason): return (reason as? ReportableError)?.exitStatus ?? .permissionDenied
        case .kept(let error): return (error as? ReportableError)?.exitStatus ?? .no
        case .withdrawn: return .no
        case .refused(let error): return (error as? ReportableError)?.exitStatus ?? .noInput
        // Nothing was corrupt: those pushes could not go on (1, as a clean "no").
        case .interruptedBeforeSealed, .uploadLost: return .no
        case .resumeIncomplete(_, _, let cause): return cause.map { ($0 as? ReportableError)?.exitStatus ?? .no } ?? .no
        case .cloudCopyNotKept(_, _, let error): return error.exitStatus
        case .externalRefused: return .permissionDenied
        case .externalNotPlaced: return .cannotCreate
        }
    }

    public var hints: [String] {
        switch self {
        case .noLiveDevice: return ["vfs-device list shows which are revoked"]
        case .cloudFileExists: return ["choose another path, or remove it first with vfs-cloud rm"]
        case .noPeopleGroup: return ["a group of people is visible to its members and the organisation's administrators"]
        case .notVerified(let names): return [TransferError.verifyHint(names[0])]
        case .senderNotConfirmed(let user, _): return [TransferError.verifyHint(user)]
        case .unverifiedSender: return ["fetch it anyway, marked unverified, with --allow-unverified, only if you know who sent it"]
        case .kept(let error):
            return ((error as? ReportableError)?.hints ?? []) + ["the sealed push was kept: \"vfs-push resume\" sends it once the relay takes it"]
        case .resumeIncomplete(let dropped, let kept, _):
            return (dropped > 0 ? ["push the files of those dropped again"] : [])
                + (kept > 0 ? ["\"vfs-push resume\" tries those kept again; \"vfs-push resume --list\" lists them, --drop ID withdraws one"] : [])
        case .interruptedBeforeSealed, .uploadLost: return ["it was removed: push the files again"]
        case .cloudCopyNotKept: return ["vfs-cloud ls shows the cloud folders; vfs-cloud mkdir -p makes one"]
        case .loggedOutReenrolled: return ["start vfs-fetch --watch again to watch for the new device"]
        case .notSigned, .noPendingPush, .withdrawn: return []
        case .externalRefused: return ["fetch it without that option: vfs-fetch ID -C DIR (it is placed as a plain file)"]
        case .externalNotPlaced: return ["move the file that is there, or fetch into another folder with -C DIR"]
        case .refused:
            return ["the relay will never take it for these targets (a person disabled or removed, a device revoked): vfs-device users and vfs-device list show who and what can receive; an operator lets a disabled person back in with vfs-relay user enable"]
        case .loggedOutByRelay:
            return ["its token no longer works: the relay's operator can say why (a disabled user, a revoked token)",
                    "to erase a lost device, run \"vfs-device revoke NAME\" on one of your approved devices"]
        }
    }
}

extension RetriesSpent: ReportableError {
    /// The last failure's: what it was is what the caller is told.
    public var exitStatus: ExitStatus { (last as? ReportableError)?.exitStatus ?? .temporaryFailure }
    public var hints: [String] { (last as? ReportableError)?.hints ?? [] }
}

extension UnseenChain: ReportableError {
    public var exitStatus: ExitStatus { .permissionDenied }

    public var hints: [String] {
        lines.map { "in it: " + $0 } + [
            "if they are all yours, compare one's fingerprint with what vfs-device fingerprint shows on it, then run: vfs-device list --accept-chain FINGERPRINT",
            "if one is not yours, someone else started your device chain: trust nothing of it, and ask your operator to reset it (vfs-relay user reset-chain)",
        ]
    }
}

extension CloudError: ReportableError {
    public var exitStatus: ExitStatus {
        switch self {
        case .badPath: return .usage
        case .notFound, .noSuchFile, .cannotOpen: return .noInput
        case .conflict, .overQuota, .isAFile, .cloudFileExists, .localFileExists, .cannotCreateFolder: return .cannotCreate
        case .changed: return .temporaryFailure
        case .keptAsConflicts: return .conflict
        }
    }

    public var hints: [String] {
        switch self {
        case .badPath: return ["cloud paths are absolute, such as /docs/2026/report.pdf"]
        case .notFound: return ["vfs-cloud ls shows what exists"]
        case .conflict: return ["choose another name, or see the command's -p or -f"]
        case .overQuota: return ["vfs-cloud du shows what your files use and the quota; remove files with vfs-cloud rm"]
        case .changed: return ["the file changed meanwhile: run the command again"]
        case .cloudFileExists: return ["use -f to replace it, or choose another cloud name",
                                       "to replace only the version you have, get it first (vfs-cloud get) or name it with --base VERSION (vfs-cloud ls --json)"]
        case .localFileExists: return ["use -f to replace it, or choose another name with -o or -C"]
        case .cannotOpen: return ["it was stored before this device was enrolled: run \"vfs-cloud rekey\" on a device that can"]
        case .keptAsConflicts:
            return ["both versions are kept: compare them, then keep one with \"vfs-cloud put -f FILE PATH\" or drop a copy with \"vfs-cloud rm COPY\"",
                    "\"vfs-cloud conflicts\" lists every conflict copy"]
        case .isAFile, .cannotCreateFolder, .noSuchFile: return []
        }
    }
}

extension RelayClientError: ReportableError {
    public var exitStatus: ExitStatus {
        switch self {
        case .unreachable: return .unavailable
        case .rejected(let status, let code, _):
            switch status {
            case 401, 403: return .permissionDenied
            case 507 where code == RelayErrorCode.tooManyEntries.rawValue: return .cannotCreate  // a cap: waiting won't help
            case 404: return .noInput
            case 409, 413: return .cannotCreate  // 409: it exists already (a group, a cloud name, an app's item)
            case 412, 429, 503: return .temporaryFailure
            case 500...: return .temporaryFailure
            default: return .dataError
            }
        case .badAnswer, .invalidAnswer, .corruptDownload, .pastLimit: return .dataError
        case .notEnrolled, .noSuchDevice, .noSuchGroup, .noSuchTransfer, .abandoned, .noSuchUser: return .noInput
        case .keyChanged, .missingCredential, .loggedOut, .pending: return .permissionDenied
        case .undelivered: return .no
        case .stalled: return .temporaryFailure
        case .ambiguous, .invalidURL, .cleartext: return .usage
        case .untrustedCertificate: return .permissionDenied
        case .badCAFile(_, let missing): return missing ? .noInput : .dataError
        }
    }

    public var hints: [String] {
        switch self {
        case .unreachable:
            return ["is the relay running? relay.json in VFS_HOME names it, VFS_RELAY overrides it; vfs-device status checks"]
        case .rejected(let status, let code, _):
            switch status {
            case 507 where code == RelayErrorCode.tooManyEntries.rawValue:
                return ["vfs-cloud rm removes what is no longer needed (vfs-cloud ls -R shows it all); the relay's operator sets the cap"]
            case 403 where code == RelayErrorCode.linkPolicy.rawValue:
                return ["the relay's operator sets what links may do (vfs-relay org set --links, --link-max-expiry, --link-max-downloads, --link-max-size)"]
            case 403 where code == RelayErrorCode.retained.rawValue:
                return ["your organisation keeps what its devices send (vfs-relay org set --min-retention); ask the relay's operator to remove it (vfs-relay transfers rm ID)"]
            case 401: return ["this device's token is not accepted: it may have been revoked; vfs-device status tells, vfs-device enroll enrols again"]
            case 404: return ["vfs-device list and vfs-fetch show what exists"]
            case 503 where code == RelayErrorCode.unavailable.rawValue:
                return ["the relay answers, but the storage it keeps files in does not: try again later (vfs-push resume goes on where a push stopped), or tell the relay's operator"]
            case 429, 503: return ["try again later"]
            case 507: return ["the relay's disk is nearly full: try again later (vfs-push resume goes on where it stopped), or tell its operator"]
            default: return []
            }
        case .invalidURL: return ["write it as http://HOST:PORT or https://HOST:PORT"]
        case .cleartext: return ["use https:// (vfs-relay serve --tls-cert, or TLS at a proxy); on a network you trust end to end (a VPN), enrol with --insecure-http"]
        case .untrustedCertificate:
            return ["a relay with a private CA: enrol with --cacert CA.pem (kept in VFS_HOME for later commands), or set VFS_RELAY_CACERT"]
        case .badCAFile:
            return ["it comes from --cacert, else VFS_RELAY_CACERT, else the copy enroll --cacert kept in VFS_HOME (relay-ca.pem)"]
        case .notEnrolled: return ["enrol this machine first: vfs-device enroll URL CODE --name NAME"]
        case .keyChanged(let device, _, _):
            // A relay that swapped the key would be pinned by `trust` alone: compare first.
            return ["the relay may have swapped it: compare \"\(device)\"'s fingerprint (vfs-device fingerprint, run there) with vfs-device list here",
                    "only if they match (it enrolled again), accept the new key: vfs-device trust \(DisplayText.shellQuoted(device))"]
        case .noSuchDevice: return ["vfs-device list shows the devices"]
        case .noSuchGroup: return ["vfs-device group list shows the groups"]
        case .noSuchTransfer: return ["vfs-fetch lists the inbox, vfs-push outbox what was sent"]
        case .abandoned: return ["its sender can push it again"]
        case .stalled(let id, _):
            return ["fetch it later (vfs-fetch \(id)): its sender may resume it (vfs-push resume), or the relay expires it once its upload is idle for the relay's --upload-idle-expiry"]
        case .pastLimit:
            return ["a transfer that large: vfs-fetch --max-size SIZE raises the limit, or fetch it once its upload ended (its size is listed then)"]
        case .noSuchUser: return ["send to the email address of a user of your organisation who has enrolled a device"]
        case .ambiguous(let what, _, _): return what == "device" ? ["name it by its id (vfs-device list --json shows them)"]
            : ["give more of the id"]
        case .missingCredential:
            return ["enrol again with vfs-device enroll, or name the files with --token-file and --identity-file"]
        case .corruptDownload: return ["nothing was extracted; fetch it again"]
        case .invalidAnswer: return ["the relay, or something between it and this machine, is not behaving as a vfs relay"]
        case .pending(let devices):
            return ["compare its fingerprint (vfs-device fingerprint, run on it) and approve it from an approved device: vfs-device approve \(DisplayText.shellQuoted(devices.first ?? "NAME"))"]
        case .loggedOut, .badAnswer, .undelivered: return []
        }
    }
}
