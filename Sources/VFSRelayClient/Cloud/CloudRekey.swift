#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol

/// `vfs-cloud rekey`: each cloud file's age header written again for `recipients` (the
/// same file key, unwrapped with this device's identity, and a new header MAC); the
/// relay puts it in front of the unchanged payload, so only the header travels.
package struct CloudRekey {
    let client: RelayClient
    let identity: AgeIdentity
    let recipients: [AgeRecipient]
    let report: ClientReport

    package init(client: RelayClient, identity: AgeIdentity, recipients: [AgeRecipient], report: ClientReport) {
        (self.client, self.identity, self.recipients, self.report) = (client, identity, recipients, report)
    }

    /// Rekeys the file `root`, or every file under the folder `root`; a file this device
    /// cannot open is left as it is with a warning. Returns how many were left.
    package func rekey(_ root: String) async throws -> Int {
        let files = try await CloudTree(client: client).entries(under: root).filter { $0.kind == .file }
        var skipped = 0, done = 0
        for file in files.sorted(by: { $0.path < $1.path }) {
            guard let size = file.size, let sha256 = file.sha256 else { continue }
            do {
                let (length, header) = try await newHeader(file.path, size: size)
                _ = try await client.cloudReplaceHeader(file.path, CloudHeaderReplace(
                    header: Data(header).base64EncodedString(), length: Int64(length), sha256: sha256))
                done += 1
            } catch let error as AgeError {
                report.warn("left \"\(DisplayText.printable(file.path))\" as it is: \(error)")
                skipped += 1
            }
        }
        report.info("rekeyed \(done) file\(done == 1 ? "" : "s") for \(recipients.count) device\(recipients.count == 1 ? "" : "s")")
        return skipped
    }

    /// The old header's length and the new header, from the file's first bytes (more
    /// of them when the header is longer than the first read).
    func newHeader(_ path: String, size: Int64) async throws -> (Int, [UInt8]) {
        let decryptor = try await CloudTree(client: client).header(path, size: size)
        let fileKey = try decryptor.fileKey(identities: [identity])
        return (decryptor.headerLength, try decryptor.rewrappedHeader(fileKey: fileKey, recipients: recipients))
    }
}
