import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore
import VFSRelayClient
import VFSRelayCommandLine
import VFSRelayProtocol

extension CloudTool {
    struct Rekey: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-encrypt every cloud file's key to your current devices, without uploading the files again.",
            discussion: """
            For each file this device can open, rekey reads the file's age header, unwraps the \
            file key with this device's identity and writes a new header wrapping the same key \
            for every active device (keys checked against the pins) and your recovery key, if \
            you made one (vfs-device recovery-key), with a new header MAC. The \
            relay puts it in front of the unchanged payload: only the header travels. The \
            earlier versions the relay keeps of those paths (vfs-cloud log, trash) are rekeyed \
            the same way, each stored content once. Run it after enrolling a device, so it can \
            read the existing files, and after revoking one, so its key is dropped from every \
            file and every version kept. Copies a revoked device already fetched are out of \
            reach: rekeying cannot take them back.

            Files and versions this device cannot open are left as they are, with a warning \
            (exit 1).

            Example:
              vfs-device revoke old-phone && vfs-cloud rekey
            """)
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("Rekey only this folder or file.", valueName: "path")) var path = "/"

        func run() async throws {
            let root = try CloudPath.normal(path)
            let skipped = try await options.run(identity: true, retry: retry) { session, client -> Int in
                guard let identity = session.credentials.identity else {
                    throw RelayClientError.missingCredential(what: "identity", place: "this run")
                }
                let recipients = try await session.cloudRecipients(client, warn: { Diagnostics.warn($0) })
                return try await CloudRekey(client: client, identity: identity, recipients: recipients, report: .terminal(quiet: false)).rekey(root)
            }
            if skipped > 0 {
                throw ToolError("\(skipped) file\(skipped == 1 ? " was" : "s were") left as they are", exit: .no,
                                hints: ["a device that can open them (one that was enrolled when they were stored) can rekey them"])
            }
        }
    }
}
