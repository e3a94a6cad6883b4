import Testing
import VFSCommandLine
import VFSRelayClient
import VFSRelayCommandLine
import VFSRelayProtocol
import VFSCore

/// The relay client workflows' errors (TransferError, CloudError, in VFSRelayClient) as
/// the relay tools report them (VFSRelayCommandLine's ErrorReporting): message and
/// hints, as they were when the workflows threw ToolError (their exit statuses are in
/// ErrorReportingTests' list).
@Suite("relay workflow error reporting")
struct RelayErrorReportingTests {
    func report(_ error: Error) -> CommandFailure { ErrorReportingTests().report(error) }

    @Test("messages and hints read as the tools printed them")
    func words() {
        #expect(report(TransferError.notVerified(names: ["bob@example.com", "eve x"])).standardError ==
            "vfs-test: error: not verified: bob@example.com, eve x; nothing was sent\n"
            + "vfs-test: hint: compare the safety code with them: vfs-device verify bob@example.com\n")
        #expect(report(TransferError.resumeIncomplete(dropped: 1, kept: 0, cause: nil)).standardError ==
            "vfs-test: error: 1 interrupted push not sent: 1 could never be sent and was dropped\nvfs-test: hint: push the files of those dropped again\n")
        #expect(TransferError.resumeIncomplete(dropped: 2, kept: 1, cause: nil).description
            == "3 interrupted pushes not sent: 2 could never be sent and were dropped, 1 could not be sent now and is kept")
        #expect(report(CloudError.overQuota("quota 1 GiB")).standardError ==
            "vfs-test: error: the relay refused the upload: quota 1 GiB\n"
            + "vfs-test: hint: vfs-cloud du shows what your files use and the quota; remove files with vfs-cloud rm\n")
        #expect(report(TransferError.cloudCopyNotKept(transfer: "t1", cloud: "/c", RelayClientError.rejected(status: 404, code: "not_found", message: "no such folder"))).standardError.hasPrefix(
            "vfs-test: error: transfer t1 was sent, but the cloud copy \"/c\" was not kept: "))
    }

    @Test("the relay's storage (its S3 store) unavailable, answered 503 unavailable: said so, exit 75 (a temporary failure), not 'is the relay running?'")
    func storageUnavailable() {
        let failure = report(RelayClientError.rejected(status: 503, code: "unavailable",
                                                       message: "the relay's blob store does not answer now; try again (an upload resumes)"))
        #expect(failure.status == 75)
        #expect(failure.standardError.hasPrefix("vfs-test: error: the relay's storage is unavailable: "), "\(failure.standardError)")
        #expect(failure.standardError.contains("vfs-test: hint: the relay answers, but the storage it keeps files in does not: try again later"))
        #expect(!failure.standardError.contains("is the relay running"))
        // Another 503 (a proxy's, the database's) stays a plain refusal, also 75.
        let other = report(RelayClientError.rejected(status: 503, code: "internal", message: "the relay's database does not answer"))
        #expect(other.status == 75 && other.standardError.hasPrefix("vfs-test: error: the relay refused: "))
    }

    @Test("a changed key points at comparing fingerprints before vfs-device trust, which would pin a key the relay swapped")
    func keyChangedHint() {
        let failure = report(RelayClientError.keyChanged(device: "phone", pinned: "age1old", reported: "age1new"))
        #expect(failure.status == 77)
        let hints = failure.standardError.split(separator: "\n").filter { $0.hasPrefix("vfs-test: hint: ") }
        #expect(hints.count == 2)
        #expect(hints.first?.contains("compare \"phone\"'s fingerprint (vfs-device fingerprint, run there) with vfs-device list here") == true)
        #expect(hints.last?.hasPrefix("vfs-test: hint: only if they match") == true)
    }

    @Test("a kept push keeps its error's message, status and hints, and adds how to finish it")
    func kept() {
        let inner = CloudError.notFound("no such folder")
        let failure = report(TransferError.kept(inner))
        #expect(failure.status == 66)
        #expect(failure.standardError == "vfs-test: error: no such folder\nvfs-test: hint: vfs-cloud ls shows what exists\n"
            + "vfs-test: hint: the sealed push was kept: \"vfs-push resume\" sends it once the relay takes it\n")
    }

    @Test("an unverified sender takes the status of the reason it failed, 77 when that has none")
    func unverified() {
        struct Odd: Error, CustomStringConvertible { var description: String { "odd" } }
        let failure = report(TransferError.unverifiedSender(reason: Odd()))
        #expect(failure.status == 77)
        #expect(failure.standardError == "vfs-test: error: odd: nothing was unpacked\n"
            + "vfs-test: hint: fetch it anyway, marked unverified, with --allow-unverified, only if you know who sent it\n")
    }

    @Test("only spools killed before their bundle was sealed are dropped by vfs-push resume")
    func unsealed() {
        #expect(TransferError.interruptedBeforeSealed(spool: "/s").isUnsealedSpool)
        #expect(TransferError.uploadLost(spool: "/s", base: 1).isUnsealedSpool)
        #expect(!TransferError.noPendingPush(spool: "/s").isUnsealedSpool)
    }
}
