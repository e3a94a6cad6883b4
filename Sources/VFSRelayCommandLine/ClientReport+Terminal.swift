import VFSCommandLine
import VFSRelayClient

extension ClientReport {
    /// The workflows' reports on this tool's stderr: notes, warnings and errors in the
    /// toolkit's format (Diagnostics), progress bars unless `quiet`.
    package static func terminal(quiet: Bool) -> ClientReport {
        ClientReport(info: { Diagnostics.info($0) }, warn: { Diagnostics.warn($0) }, error: { Diagnostics.error($0) },
                     write: { Diagnostics.writeStandardError($0) }, progress: { label, total in
            ProgressBar.make(label: label, total: total, quiet: quiet).map { bar in
                ProgressReport(update: { bar.update($0) }, finish: { bar.finish() })
            }
        }, reportable: { $0 is ReportableError })
    }
}

extension ToolIO.Output: DownloadOutput {}

extension ReceiveOptions {
    /// vfs-fetch's receiving on this tool's stderr, with the approved-apps gate and
    /// `--no-backup`'s report.
    package static func terminal(quiet: Bool, backupOption: NoBackupOption) -> ReceiveOptions {
        var options = ReceiveOptions(report: .terminal(quiet: quiet),
                                     authorize: { try PolicyGate.authorize($0, group: $1, paths: $2) },
                                     reportMarks: { backupOption.report($0, folder: $1) })
        options.noBackup = backupOption.noBackup
        return options
    }
}
