#if canImport(Glibc)
import Glibc
#endif
import VFSCore
import VFSRelayProtocol

/// What the transfer workflows (vfs-push, vfs-fetch) refuse, with its data; the exit
/// statuses and hints are the tools' (VFSRelayCommandLine's ErrorReporting).
package enum TransferError: Error, CustomStringConvertible {
    /// Every device addressed was revoked.
    case noLiveDevice
    /// `--cloud PATH` names a cloud file that exists.
    case cloudFileExists(String)
    /// `--to-group NAME` names no group of people this user can see.
    case noPeopleGroup(String)
    /// `--verified-only` and people whose safety code was not confirmed (the first one
    /// named in `first`).
    case notVerified(names: [String])
    /// `vfs-fetch --verified-only` and a transfer from another user whose safety code was
    /// not confirmed; nothing was unpacked.
    case senderNotConfirmed(user: String, transfer: String)
    /// A transfer without the sender's signature.
    case notSigned(transfer: String)
    /// The sender's signature failed to verify (`reason`); nothing was unpacked.
    case unverifiedSender(reason: any Error)
    /// A push failed after its sealed spool was kept (`vfs-push resume` finishes it).
    case kept(any Error)
    /// `vfs-push resume` ended with pushes it could not send: `dropped` can never be (each
    /// reported and removed), `kept` can later (kept; `cause` the first one's error).
    case resumeIncomplete(dropped: Int, kept: Int, cause: (any Error)?)
    /// A spool killed before its bundle was sealed (removed).
    case interruptedBeforeSealed(spool: String)
    /// A spool whose upload the relay lost, with the first `base` bytes of its bundle.
    case uploadLost(spool: String, base: Int64)
    /// No push.json in the spool folder.
    case noPendingPush(spool: String)
    /// A pending push whose transfer its sender cancelled meanwhile (its spool removed).
    case withdrawn(transfer: String)
    /// The relay refused the transfer for good (a target gone or disabled): the push was
    /// not kept.
    case refused(any Error)
    /// Sent, but the cloud copy was refused by the relay.
    case cloudCopyNotKept(transfer: String, cloud: String, RelayClientError)
    /// The watched device was logged out while this machine was enrolled again.
    case loggedOutReenrolled(name: String, device: String, newName: String, newDevice: String)
    /// The relay logged the watched device out, but its user's verified device chain does
    /// not remove it (or could not be read: `reason`): nothing was erased.
    case loggedOutByRelay(name: String, device: String, reason: String?)
    /// An external transfer (a file sent in through a file request) that this fetch does
    /// not take: `why` names the option.
    case externalRefused(transfer: String, why: String)
    /// An external transfer's file could not be placed at `path` (it exists: EEXIST).
    case externalNotPlaced(path: String, errno: Int32)

    package var description: String {
        switch self {
        case .noLiveDevice: return "no live device to push to"
        case .cloudFileExists(let path): return "the cloud file \"\(DisplayText.printable(path))\" already exists"
        case .noPeopleGroup(let name): return "no group of people \"\(DisplayText.printable(name))\" that you can see"
        case .notVerified(let names): return "not verified: \(names.map { DisplayText.printable($0) }.joined(separator: ", ")); nothing was sent"
        case .notSigned(let transfer): return "transfer \(transfer) is not signed by its sender"
        case let .senderNotConfirmed(user, transfer):
            return "transfer \(transfer) is from \(DisplayText.printable(user)), whose safety code you have not confirmed: nothing was unpacked"
        case .unverifiedSender(let reason): return "\(reason): nothing was unpacked"
        case .kept(let error): return "\(error)"
        case let .resumeIncomplete(dropped, kept, _):
            let parts = [dropped > 0 ? "\(dropped) could never be sent and \(dropped == 1 ? "was" : "were") dropped" : nil,
                         kept > 0 ? "\(kept) could not be sent now and \(kept == 1 ? "is" : "are") kept" : nil].compactMap { $0 }
            return "\(dropped + kept) interrupted push\(dropped + kept == 1 ? "" : "es") not sent: " + parts.joined(separator: ", ")
        case .interruptedBeforeSealed(let dir): return "the push in \"\(dir)\" was interrupted before its bundle was sealed"
        case let .uploadLost(dir, base):
            return "the relay no longer has the upload of the push in \"\(dir)\", and its bundle's first \(base) bytes went only there"
        case .noPendingPush(let dir): return "no pending push in \"\(dir)\""
        case .withdrawn(let transfer): return "transfer \(transfer) was cancelled: it is not sent again"
        case .refused(let error): return "\(error); nothing was sent, and the push was not kept"
        case let .cloudCopyNotKept(transfer, cloud, error): return "transfer \(transfer) was sent, but the cloud copy \"\(cloud)\" was not kept: \(error)"
        case let .loggedOutReenrolled(name, device, newName, newDevice):
            return "device \"\(DisplayText.printable(name))\" (\(device)) was logged out; this machine "
                + "is enrolled again as \"\(DisplayText.printable(newName))\" (\(newDevice)): nothing was erased"
        case let .externalRefused(transfer, why):
            return "transfer \(transfer) is external (sent in through your file request, signed by no device): \(why)"
        case let .externalNotPlaced(path, code):
            return code == EEXIST ? "\"\(DisplayText.printable(path))\" already exists: the external transfer was not placed"
                : "cannot write \"\(DisplayText.printable(path))\": \(String(cString: strerror(code)))"
        case let .loggedOutByRelay(name, device, reason):
            return "device \"\(DisplayText.printable(name))\" (\(device)) was logged out by the relay, but none of your devices "
                + "removed it from your device chain\(reason.map { " (\($0))" } ?? ""): its keys and files were kept"
        }
    }
}

/// What the cloud workflows (vfs-cloud) refuse, with its data; exit statuses and hints
/// are in VFSRelayCommandLine's ErrorReporting.
package enum CloudError: Error, CustomStringConvertible {
    /// A cloud path with a `.` or `..` name.
    case badPath(String, name: String)
    /// The relay's 404, 409, 413 and 412 on a cloud call, with its message.
    case notFound(String)
    case conflict(String)
    case overQuota(String)
    case changed(String)
    /// A file where a folder was wanted.
    case isAFile(String)
    /// A cloud file that exists (put without -f).
    case cloudFileExists(String)
    /// A local file that exists (get without -f).
    case localFileExists(String)
    case cannotCreateFolder(String)
    case noSuchFile(String)
    /// The file was not encrypted to this device.
    case cannotOpen(String)
    /// Puts another device's newer version won (issue 50): each kept as a conflict copy
    /// (and `leftOut` names left out, as `put -r` counts them).
    case keptAsConflicts([CloudConflict], leftOut: Int)

    package var description: String {
        switch self {
        case let .badPath(text, bad): return "\"\(text)\" has a \"\(bad)\" name"
        case .notFound(let message), .conflict(let message), .changed(let message): return message
        case .overQuota(let message): return "the relay refused the upload: \(message)"
        case .isAFile(let path): return "\"\(path)\" is a file"
        case .cloudFileExists(let path), .localFileExists(let path): return "\"\(DisplayText.printable(path))\" already exists"
        case .cannotCreateFolder(let path): return "cannot create folder \"\(DisplayText.printable(path))\""
        case .noSuchFile(let path): return "no such file \"\(path)\""
        case .cannotOpen(let path): return "this device cannot open \"\(path)\""
        case let .keptAsConflicts(conflicts, leftOut):
            let kept = conflicts.count == 1
                ? "\"\(DisplayText.printable(conflicts[0].path))\" changed on the relay since this device got it: this put is kept as \"\(DisplayText.printable(conflicts[0].copy))\""
                : "\(conflicts.count) files changed on the relay since this device got them: these puts are kept as conflict copies (each named above)"
            return kept + (leftOut > 0 ? "; \(leftOut) left out (each named above)" : "")
        }
    }
}

extension TransferError {
    /// How to confirm `user`'s safety code (a warning names it; `notVerified`'s hint).
    package static func verifyHint(_ user: String) -> String {
        "compare the safety code with them: vfs-device verify \(DisplayText.shellQuoted(user))"
    }
}

extension TransferError {
    /// A spool `vfs-push resume` removed (killed before it was sealed, its upload lost, its
    /// transfer cancelled).
    package var isUnsealedSpool: Bool {
        switch self {
        case .interruptedBeforeSealed, .uploadLost, .withdrawn: return true
        default: return false
        }
    }
}
