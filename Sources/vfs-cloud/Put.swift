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
#if canImport(Glibc)
import Glibc
#endif

extension CloudTool {
    struct Put: AsyncVFSCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            commandName: "put", abstract: "Encrypt files (and folders with -r) to all your devices and store them in the cloud.",
            discussion: """
            The last path is the cloud destination: a folder (existing, or ending in /) receives \
            every source under its own name; otherwise a single source is stored under that \
            path. A file of the same name is exit 73 unless -f replaces it (every name is \
            checked before anything is made or uploaded); a folder of that name is exit 73. \
            A name the relay can't store (a control character such as a newline), a file or \
            folder that can't be read, or one that is neither, is left out with a warning \
            that names it, and the rest goes; the put then exits 1 (as tar goes on and exits \
            2). Names that are not UTF-8 keep their bytes as vfs-push and vfs-wrap keep them \
            (the cloud name holds the characters U+F780 to U+F7FF in their place).

            Exit status: 0 success; 1 some were left out (each named; the rest was stored); \
            64 usage; 66 no such file; 69 relay unreachable; 73 a file or folder of that name \
            exists, or the quota; 75 temporary; 77 a revoked token or a wrong passcode.

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
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("Files or folders (with -r), then the cloud destination.", valueName: "path"), completion: .file())
        var paths: [String] = []

        func check() throws {
            guard paths.count >= 2 else {
                throw ToolError.usage("put needs a source and a cloud destination", hints: ["vfs-cloud put FILE… /FOLDER/"])
            }
            for path in paths.dropLast() {
                var info = stat()
                guard stat(RawName.cString(path), &info) == 0 else {
                    throw ToolError("no such file \"\(RawName.escaped(path))\"", exit: .noInput)
                }
                if info.st_mode & S_IFMT == S_IFDIR && !recursive {
                    throw ToolError.usage("\"\(path)\" is a folder", hints: ["use -r to put a folder and everything in it"])
                }
            }
        }

        func run() async throws {
            let destination = try CloudPath.normal(paths.last!)
            try await options.run(retry: retry, quiet: progressOptions.quiet) { session, client in
                let recipients = try await session.cloudRecipients(client, warn: { Diagnostics.warn($0) })
                let left = try await CloudUploader(client: client, home: session.home, recipients: recipients, force: force, report: .terminal(quiet: progressOptions.quiet))
                    .put(Array(paths.dropLast()), to: destination, asFolder: paths.last!.hasSuffix("/") || destination == "/" || paths.count > 2)
                // The rest went; what could not go is an error all the same (exit 1).
                if left > 0 { throw ToolError.namesLeftOut(left, holder: "the cloud") }
            }
        }
    }
}
