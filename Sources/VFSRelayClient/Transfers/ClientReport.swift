import VFSCore

/// How the client workflows tell the person running them what happens: the tool
/// supplies it (its stderr notes, warnings and progress bars, VFSRelayCommandLine's
/// `ClientReport.terminal`), so this library holds no words about terminals.
package struct ClientReport: Sendable {
    /// A note (`tool: …`).
    package var info: @Sendable (String) -> Void
    package var warn: @Sendable (String) -> Void
    /// An error that does not end the run.
    package var error: @Sendable (String) -> Void
    /// Text as it is (a listing of what was unpacked).
    package var write: @Sendable (String) -> Void
    /// A progress display of `total` bytes labelled `label`; nil for none.
    package var progress: @Sendable (_ label: String, _ total: Int) -> ProgressReport?
    /// Whether the tool can report `error` as one failure among others (a transfer
    /// `--watch` goes on after, a push kept to resume); the others end the run as they are.
    package var reportable: @Sendable (any Error) -> Bool

    package init(info: @escaping @Sendable (String) -> Void, warn: @escaping @Sendable (String) -> Void,
                 error: @escaping @Sendable (String) -> Void, write: @escaping @Sendable (String) -> Void,
                 progress: @escaping @Sendable (_ label: String, _ total: Int) -> ProgressReport?,
                 reportable: @escaping @Sendable (any Error) -> Bool) {
        (self.info, self.warn, self.error, self.write, self.progress, self.reportable) = (info, warn, error, write, progress, reportable)
    }
}

/// One progress display: `update` with the bytes done, `finish` once.
package struct ProgressReport: Sendable {
    package var update: @Sendable (Int) -> Void
    package var finish: @Sendable () -> Void

    package init(update: @escaping @Sendable (Int) -> Void, finish: @escaping @Sendable () -> Void) {
        (self.update, self.finish) = (update, finish)
    }
}

/// Where a cloud download writes (the tool's output file or standard output).
package protocol DownloadOutput {
    var sink: ByteSink { get }
    func commit(exclusive: Bool) throws
    func abandon()
}
