import VFSCommandLine
import VFSRelayClient

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
        case .refused:
            return ["the relay will never take it for these targets (a person disabled or removed, a device revoked): vfs-device users and vfs-device list show who and what can receive; an operator lets a disabled person back in with vfs-relay user enable"]
        case .loggedOutByRelay:
            return ["its token no longer works: the relay's operator can say why (a disabled user, a revoked token)",
                    "to erase a lost device, run \"vfs-device revoke NAME\" on one of your approved devices"]
        }
    }
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
        }
    }

    public var hints: [String] {
        switch self {
        case .badPath: return ["cloud paths are absolute, such as /docs/2026/report.pdf"]
        case .notFound: return ["vfs-cloud ls shows what exists"]
        case .conflict: return ["choose another name, or see the command's -p or -f"]
        case .overQuota: return ["vfs-cloud du shows what your files use and the quota; remove files with vfs-cloud rm"]
        case .changed: return ["the file changed meanwhile: run the command again"]
        case .cloudFileExists: return ["use -f to replace it, or choose another cloud name"]
        case .localFileExists: return ["use -f to replace it, or choose another name with -o or -C"]
        case .cannotOpen: return ["it was stored before this device was enrolled: run \"vfs-cloud rekey\" on a device that can"]
        case .isAFile, .cannotCreateFolder, .noSuchFile: return []
        }
    }
}
