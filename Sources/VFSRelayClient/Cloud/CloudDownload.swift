#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// `vfs-cloud get`: cloud files down with HTTP Range into `$VFS_HOME/cloud-incoming`,
/// decrypted as they arrive (`StreamedDownload`); a file appears only once complete and
/// authenticated, standard output gets the plaintext at once. A folder comes down as it
/// went up, every name checked before anything is written.
package struct CloudDownload {
    let session: RelaySession
    let client: RelayClient
    /// Write the ciphertext as stored, without decrypting.
    let raw: Bool
    /// Replace files that exist.
    let force: Bool
    let report: ClientReport
    /// Opens the output: the path, or standard output when nil (the tool's checks).
    let openOutput: (String?) throws -> any DownloadOutput

    package init(session: RelaySession, client: RelayClient, raw: Bool, force: Bool, report: ClientReport,
                 openOutput: @escaping (String?) throws -> any DownloadOutput) {
        (self.session, self.client, self.raw, self.force, self.report, self.openOutput) = (session, client, raw, force, report, openOutput)
    }

    /// The cloud folder `path` into the local folder `top`, with everything in it.
    package func folder(_ path: String, to top: String) async throws {
        // The whole tree first: every name is checked before anything is written.
        var folders = [top], files: [(CloudEntry, String)] = []
        var locals = [path: top]
        for (folder, child) in try await CloudTree(client: client).listing(under: path) {
            guard !["", ".", ".."].contains(child.name), !child.name.contains("/"), !child.name.contains("\0"), let parent = locals[folder] else {
                throw RelayClientError.badAnswer(url: folder, reason: "a bad name \"\(DisplayText.printable(child.name))\"")
            }
            if child.kind == .folder {
                folders.append(parent + "/" + child.name)
                locals[child.path] = parent + "/" + child.name
            } else {
                files.append((child, parent + "/" + child.name))
            }
        }
        files.sort { $0.1 < $1.1 }
        for (_, local) in files { try Self.refuseExisting(local, force: force) }
        // By their bytes: a name vfs-cloud put stored from one that is not UTF-8 holds
        // RawName's stand-ins, and is made under the bytes it stands for (as push and wrap
        // carry such names).
        do { try FileManager.default.createDirectory(atPath: top, withIntermediateDirectories: true) } catch {
            throw CloudError.cannotCreateFolder(top)
        }
        for folder in folders.dropFirst() {
            var info = stat()
            guard mkdir(RawName.cString(folder), 0o777) == 0
                    || (errno == EEXIST && stat(RawName.cString(folder), &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR) else {
                throw CloudError.cannotCreateFolder(folder)
            }
        }
        for (file, local) in files {
            try await download(file, to: local)
        }
    }

    /// An existing file is kept (73) unless -f; devices and pipes are written to.
    static func refuseExisting(_ path: String, force: Bool) throws {
        var info = stat()
        guard !force, lstat(RawName.cString(path), &info) == 0 else { return }
        let kind = info.st_mode & S_IFMT
        if kind == S_IFREG || kind == S_IFLNK || kind == S_IFDIR {
            throw CloudError.localFileExists(path)
        }
    }

    /// One file: to `target`, or standard output when nil. `version` downloads that kept
    /// version of it (`CloudVersion.id`) instead of the current one, and records no base
    /// for the next put (the device did not get the head).
    package func download(_ entry: CloudEntry, to target: String?, version: String? = nil) async throws {
        let path = entry.path
        guard let size = entry.size, let sha256 = entry.sha256 else { throw RelayClientError.badAnswer(url: path, reason: "no size or digest") }
        if let target { try Self.refuseExisting(target, force: force) }
        let out = try openOutput(target)
        let incoming = session.home + "/cloud-incoming"
        try FileManager.default.createDirectory(atPath: incoming, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let partial = incoming + "/" + sha256 + ".age"
        let route = version.map(RelayClient.cloudVersionRoute) ?? RelayClient.cloudRoute(path)
        let download = RangeDownloader.Target(route: route, label: path, size: size, sha256: sha256)
        // The reader follows the download (DownloadFeed): it decrypts as bytes arrive,
        // age authenticating each 64 KiB chunk before it is written, and hashes the
        // ciphertext, ending only once the whole matched the relay's SHA-256.
        let feed = try DownloadFeed(path: partial, target: download)
        let identity = session.credentials.identity
        let raw = self.raw
        let sink = Handoff(value: out.sink)
        let bar = target == nil ? nil : report.progress(entry.name, Int(size))
        defer { bar?.finish() }
        do {
            let read = try await StreamedDownload.run(feed, read: { source in
                if raw {
                    try source.copy(to: sink.value)
                } else {
                    guard let identity else { throw RelayClientError.missingCredential(what: "identity", place: "this run") }
                    let decryptor = try AgeDecryptor(source: source, armored: false)
                    let fileKey: SecretBytes
                    do {
                        fileKey = try decryptor.fileKey(identities: [identity])
                    } catch AgeError.noMatch {
                        throw CloudError.cannotOpen(path)
                    }
                    try decryptor.decrypt(fileKey: fileKey, to: sink.value)
                }
                try sink.value.finish()
            }) {
                try await RangeDownloader(client: client).download(download, to: partial, feed: feed, progress: progress(bar))
            }
            do {
                try read.get()
            } catch {
                // Complete but not authentic (or not this device's): downloading
                // the same bytes again would not help; the next get starts over.
                unlink(partial)
                throw error
            }
        } catch {
            out.abandon()
            throw error
        }
        try out.commit(exclusive: !force && target.map { !Self.isSpecial($0) } ?? false)
        unlink(partial)
        // What this device's next put of the path is based on (the bytes hashed to the
        // entry's SHA-256, so they are that version's).
        if version == nil { try CloudBases(home: session.home).record(entry.version, for: path) }
    }

    static func isSpecial(_ path: String) -> Bool {
        var info = stat()
        return stat(RawName.cString(path), &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG
    }
}
