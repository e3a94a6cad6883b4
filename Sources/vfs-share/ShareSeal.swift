#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSBundle
import VFSCore
import VFSRelayClient
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// What a link shares, sealed into a private spool folder (`$VFS_HOME/share-outgoing/RANDOM`,
/// 0700, the file 0600) and uploaded from there with tus, resuming from the relay's offset
/// after a dropped connection; the folder goes when the run ends, whatever its end. The
/// key is never written: a run that dies leaves an upload the relay expires.
struct ShareSeal {
    enum Output: Equatable {
        /// One file, its plaintext as it was (the name the command writes it to).
        case file(String)
        /// Several files or a folder: an uncompressed pax archive (the vfs-wrap format).
        case bundle
    }

    let paths: [String]
    let dir: String
    let output: Output
    /// Names left out of a bundle (each named in a warning).
    private(set) var refused = 0
    let warn: (String) -> Void

    var file: String { dir + "/file.age" }

    init(paths: [String], home: String, warn: @escaping (String) -> Void) throws {
        self.paths = paths
        self.warn = warn
        var info = stat()
        if paths.count == 1, stat(RawName.cString(paths[0]), &info) == 0, info.st_mode & S_IFMT == S_IFREG {
            output = .file(URL(fileURLWithPath: RawName.escaped(paths[0])).lastPathComponent)
        } else {
            output = .bundle
        }
        let parent = home + "/share-outgoing"
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        dir = parent + "/" + (try SecureRandom.bytes(16)).hexString
        guard mkdir(dir, 0o700) == 0 else { throw IOError("cannot create", path: dir) }
    }

    /// Encrypts the paths to `recipient` into the spool.
    mutating func seal(to recipient: Recipient) throws {
        let out = try AtomicOutputFile(path: file, mode: 0o600)
        switch output {
        case .file:
            let fd = open(RawName.cString(paths[0]), O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw IOError("cannot open", path: RawName.escaped(paths[0])) }
            try AgeEncryptor.encrypt(to: [recipient], from: FileDescriptorSource(fd: fd, name: RawName.escaped(paths[0]), owned: true), to: out)
        case .bundle:
            let plan = try BundlePlan(paths: paths, warning: warn)
            refused = plan.refused.count
            // Uncompressed: plain tar reads it from a pipe, as the printed command does.
            try BundleWriter.seal(plan, manifest: plan.manifest(group: nil, accessID: nil, sender: nil), compress: false,
                                  recipients: [recipient], to: out)
        }
        try out.commit()
    }

    /// Uploads the sealed file (resuming after a dropped connection, or once more from the
    /// start if the relay let the upload expire) and makes the link `request` describes.
    func upload(client: RelayClient, report: ClientReport, request: (String) -> ShareCreate) async throws -> Share {
        let length = try FileSize.of(file)
        let uploader = TusUploader(client: client)
        var location: String?
        do {
            location = try await uploader.upload(file: file, length: length, at: nil, label: "sharing", report: report) { location = $0 }
            return try await client.createShare(request(String(location!.split(separator: "/").last ?? "")))
        } catch {
            // Never a half-made link: the upload goes with the run.
            if let location { try? await uploader.terminate(location) }
            throw error
        }
    }

    func remove() {
        unlink(file)
        rmdir(dir)
    }
}
