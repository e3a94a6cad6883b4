#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Where a device keeps its relay token and keys outside the keychain (issue 48, item 4:
/// a server's cron job, with no keychain and no passcode): the files `--token-file` and
/// `--identity-file` name (the signing key beside the identity, `PATH.ed25519`), else a
/// systemd unit's credentials. A unit's `LoadCredential=vfs-token:PATH`,
/// `LoadCredential=vfs-identity:PATH` and `LoadCredential=vfs-identity.ed25519:PATH` put
/// copies of root's files in `$CREDENTIALS_DIRECTORY` (0400, the service's alone); a tool
/// run there reads them when its options name no file
/// (packaging/systemd/vfs-push-send@.service).
///
/// Each file that holds a secret must be its owner's alone (0600 or 0400): one that its
/// group or others may read is refused (77) before anything is read or sent.
public enum CredentialFiles {
    public static let token = "vfs-token"
    public static let identity = "vfs-identity"
    /// Where systemd put this run's credentials (`$CREDENTIALS_DIRECTORY`), if it did.
    public static var directory: String? { ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"] }

    /// The token and identity files: those given, else the credentials in `directory` (nil
    /// or empty: none) that exist; each one there, and its signing key, checked
    /// (`checkPrivate`).
    public static func resolve(token given: String?, identity givenIdentity: String?,
                               directory: String?) throws -> (token: String?, identity: String?) {
        var token = given, identity = givenIdentity
        if let directory, !directory.isEmpty {
            let folder = directory.hasSuffix("/") ? directory : directory + "/"
            func credential(_ name: String) -> String? {
                FileManager.default.fileExists(atPath: folder + name) ? folder + name : nil
            }
            token = token ?? credential(Self.token)
            identity = identity ?? credential(Self.identity)
        }
        if let token { try checkPrivate(token) }
        if let identity {
            // A plugin's stub holds no secret (its key is in hardware): the user's file, as it is.
            if holdsSecretKey(identity) { try checkPrivate(identity) }
            try checkPrivate(identity + ".ed25519")
        }
        return (token, identity)
    }

    /// Refuses `path` when its group or others may read or write it (not 0600, 0400…): it
    /// is a key to the relay. A file not there yet (an enrolment makes it, 0600) passes.
    public static func checkPrivate(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        let mode = Int(info.st_mode) & 0o7777
        guard mode & 0o077 != 0 else { return }
        let octal = String(mode, radix: 8)
        throw ToolError("\"\(path)\" may be read by others (mode \(String(repeating: "0", count: max(0, 4 - octal.count)) + octal)); a device's token and keys must be its owner's alone",
                        exit: .permissionDenied,
                        hints: ["chmod 600 \(path) (a systemd credential is 0400 already: chmod 600 the file LoadCredential= names)"])
    }

    /// True unless `path` holds a plugin's identity stub and no secret key.
    static func holdsSecretKey(_ path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else { return true }
        let text = String(decoding: data, as: UTF8.self)
        return text.contains("AGE-SECRET-KEY-") || !text.contains("AGE-PLUGIN-")
    }
}
