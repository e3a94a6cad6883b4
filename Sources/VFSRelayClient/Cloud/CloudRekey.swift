#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol

/// `vfs-cloud rekey`: each cloud file's age header written again for `recipients` (the
/// same file key, unwrapped with this device's identity, and a new header MAC); the
/// relay puts it in front of the unchanged payload, so only the header travels. The
/// earlier versions the relay keeps (issue 50) are rekeyed too, each blob once.
package struct CloudRekey {
    let client: RelayClient
    let identity: AgeIdentity
    let recipients: [AgeRecipient]
    let report: ClientReport

    package init(client: RelayClient, identity: AgeIdentity, recipients: [AgeRecipient], report: ClientReport) {
        (self.client, self.identity, self.recipients, self.report) = (client, identity, recipients, report)
    }

    /// Rekeys the file `root`, or every file under the folder `root`, and every earlier
    /// version kept of a path there; one this device cannot open is left as it is with a
    /// warning. Returns how many were left.
    package func rekey(_ root: String) async throws -> Int {
        let files = try await CloudTree(client: client).entries(under: root).filter { $0.kind == .file }
        var skipped = 0, done = 0
        var written = Set<String>()
        for file in files.sorted(by: { $0.path < $1.path }) {
            guard let size = file.size, let sha256 = file.sha256 else { continue }
            do {
                let (length, header) = try await newHeader(file.path, size: size)
                let rekeyed = try await client.cloudReplaceHeader(file.path, CloudHeaderReplace(
                    header: Data(header).base64EncodedString(), length: Int64(length), sha256: sha256))
                if let fresh = rekeyed.sha256 { written.insert(fresh) }
                done += 1
            } catch let error as AgeError {
                report.warn("left \"\(DisplayText.printable(file.path))\" as it is: \(error)")
                skipped += 1
            }
        }
        let (versions, left) = try await rekeyVersions(root, written: written)
        skipped += left
        report.info("rekeyed \(done) file\(done == 1 ? "" : "s") and \(versions) earlier version\(versions == 1 ? "" : "s") for "
                    + "\(recipients.count) device\(recipients.count == 1 ? "" : "s")")
        return skipped
    }

    /// Every earlier version kept of a path at or under `root`: each blob gets the new
    /// header once (the relay moves every version on it). Returns how many versions were
    /// rekeyed and how many left as they are. `written` are the SHA-256s of the files'
    /// new blobs: earlier versions on them (moved with their file's head) are done.
    func rekeyVersions(_ root: String, written: Set<String>) async throws -> (Int, Int) {
        let below = root == "/" ? "/" : root + "/"
        var done = Set<String>(), skipped = 0
        for version in try await client.cloudKeptVersions() where version.path == root || version.path.hasPrefix(below) {
            guard !done.contains(version.id), let size = version.size, let sha256 = version.sha256, !written.contains(sha256) else { continue }
            do {
                let decryptor = try await CloudTree.header(size: size) { try await client.cloudVersionPrefix(version.id, count: $0) }
                let header = try decryptor.rewrappedHeader(fileKey: try decryptor.fileKey(identities: [identity]), recipients: recipients)
                let moved = try await client.cloudReplaceVersionHeader(version.id, CloudHeaderReplace(
                    header: Data(header).base64EncodedString(), length: Int64(decryptor.headerLength), sha256: sha256))
                done.formUnion(moved.map(\.id))
            } catch let error as AgeError {
                let until = version.until.map { " (until \(PreciseTime.text($0)))" } ?? ""
                report.warn("left an earlier version of \"\(DisplayText.printable(version.path))\"\(until) as it is: \(error)")
                skipped += 1
            } catch RelayClientError.rejected(404, _, _) {
                // Dropped by the relay's retention meanwhile: nothing left to rekey.
            }
        }
        return (done.count, skipped)
    }

    /// The old header's length and the new header, from the file's first bytes (more
    /// of them when the header is longer than the first read).
    func newHeader(_ path: String, size: Int64) async throws -> (Int, [UInt8]) {
        let decryptor = try await CloudTree(client: client).header(path, size: size)
        let fileKey = try decryptor.fileKey(identities: [identity])
        return (decryptor.headerLength, try decryptor.rewrappedHeader(fileKey: fileKey, recipients: recipients))
    }
}
