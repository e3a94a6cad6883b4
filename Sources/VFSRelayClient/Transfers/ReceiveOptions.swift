#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore

/// What vfs-fetch does with a transfer it receives.
package struct ReceiveOptions {
    /// Unpack into this folder (nil: the current one).
    package var directory: String?
    /// Release the content only if the policy approves this app.
    package var app: String?
    /// Write the content of a one-file transfer to standard output.
    package var toStandardOutput = false
    /// Write the ciphertext, as downloaded, to standard output, without acknowledging.
    package var raw = false
    /// Name the verified sender and list what is unpacked, on stderr.
    package var verbose = false
    /// Unpack a transfer whose sender does not verify, saying so.
    package var allowUnverified = false
    /// Refuse a transfer from another user whose safety code was not confirmed.
    package var verifiedOnly = false
    /// The most bytes taken of a transfer still uploading (`RangeDownloader.followLimit`):
    /// bounds what --raw and --allow-unverified write, which nothing checks as it arrives.
    package var followLimit: Int64 = .max
    /// Give up on a transfer still uploading that gets no byte for this long
    /// (`RangeDownloader.followIdle`: vfs-fetch --all); nil: wait as long as the relay keeps it.
    package var followIdle: Duration?
    /// The `followLimit` of what nobody checks as it arrives (vfs-fetch --raw,
    /// --allow-unverified) unless told otherwise: 8 GiB, the relay's default largest
    /// upload (vfs-relay serve --max-upload).
    package static let uncheckedFollowLimit: Int64 = 8 << 30
    /// Mark what is written to be left out of backups (`--no-backup`).
    package var noBackup = false
    /// Progress, warnings and notes.
    package var report: ClientReport
    /// The approved-apps gate for `app`: throws to refuse the bundle's `paths` of `group`.
    package var authorize: (_ app: String, _ group: String?, _ paths: [String]) throws -> Void
    /// Says what an extraction into `folder` could not mark nodump.
    package var reportMarks: (_ marks: BackupMarks, _ folder: String) -> Void

    package init(report: ClientReport, authorize: @escaping (_ app: String, _ group: String?, _ paths: [String]) throws -> Void,
                 reportMarks: @escaping (_ marks: BackupMarks, _ folder: String) -> Void) {
        (self.report, self.authorize, self.reportMarks) = (report, authorize, reportMarks)
    }

    /// `HOME/incoming` (the session's home: `$VFS_HOME`): where a transfer is downloaded
    /// to, as `ID.age`, until it was received (`TransferReceiver`) or withdrawn (`Inbox`).
    package static func incoming(home: String) -> String { home + "/incoming" }
}
