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
    struct Put: AsyncVFSCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            commandName: "put", abstract: "Encrypt files (and folders with -r) to all your devices and store them in the cloud.",
            discussion: """
            The last path is the cloud destination: a folder (existing, or ending in /) receives \
            every source under its own name; otherwise a single source is stored under that \
            path. A file of the same name is exit 73 unless -f replaces it (every name is \
            checked before anything is uploaded); a folder of that name is exit 73.

            Each file is encrypted into $VFS_HOME/cloud-outgoing first and uploaded with a \
            resumable upload: a put killed or cut off halfway continues from the relay's offset \
            when the same command is run again (the source unchanged).

            Examples:
              vfs-cloud put report.pdf /docs/2026/
              vfs-cloud put -r photos notes.txt /docs/2026/
              vfs-cloud put draft.txt /docs/final.txt
            """)
        @Flag(name: .shortAndLong, help: "Put folders with everything in them.") var recursive = false
        @Flag(name: .shortAndLong, help: "Replace cloud files that exist.") var force = false
        @OptionGroup var progressOptions: ProgressOptions
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("Files or folders (with -r), then the cloud destination.", valueName: "path"), completion: .file())
        var paths: [String] = []

        func check() throws {
            guard paths.count >= 2 else {
                throw ToolError.usage("put needs a source and a cloud destination", hints: ["vfs-cloud put FILE… /FOLDER/"])
            }
            for path in paths.dropLast() {
                var isFolder = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                    throw ToolError("no such file \"\(path)\"", exit: .noInput)
                }
                if isFolder && !recursive {
                    throw ToolError.usage("\"\(path)\" is a folder", hints: ["use -r to put a folder and everything in it"])
                }
            }
        }

        func run() async throws {
            let destination = try CloudPath.normal(paths.last!)
            try await options.run { session, client in
                let recipients = try session.pinnedRecipients(try await session.cloudReaders(client, warn: { Diagnostics.warn($0) }))
                try await CloudUploader(client: client, recipients: recipients, force: force, report: .terminal(quiet: progressOptions.quiet))
                    .put(Array(paths.dropLast()), to: destination, asFolder: paths.last!.hasSuffix("/") || destination == "/" || paths.count > 2)
            }
        }
    }
}
