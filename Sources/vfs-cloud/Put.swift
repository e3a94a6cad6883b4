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
            path. A file of the same name is replaced only when this device got the version \
            there now ("vfs-cloud get" records it, and a put that replaced it records its own), \
            or when --base names it; otherwise it is exit 73 unless -f, which replaces whatever \
            version is there (every name is checked before anything is made or uploaded). A \
            folder of that name is exit 73.

            When another device put a newer version meanwhile (or made a file of that name), \
            the relay refuses the put: both are kept. The other version stays at the path and \
            this one is stored beside it as "NAME (conflict DEVICE DATE).EXT" (this device's \
            name, the time in UTC); the put says so and exits 3 once the rest went. \
            "vfs-cloud conflicts" lists the copies; resolve one with "put -f" or "rm".

            \
            A name the relay can't store (a control character such as a newline), a file or \
            folder that can't be read, or one that is neither, is left out with a warning \
            that names it, and the rest goes; the put then exits 1 (as tar goes on and exits \
            2). Names that are not UTF-8 keep their bytes as vfs-push and vfs-wrap keep them \
            (the cloud name holds the characters U+F780 to U+F7FF in their place).

            Exit status: 0 success; 1 some were left out (each named; the rest was stored); \
            3 a newer version was there: this put is kept as a conflict copy (each named); \
            64 usage; 66 no such file; 69 relay unreachable; 73 a file or folder of that name \
            exists, or the quota; 75 temporary; 77 a revoked token or a wrong passcode.

            Each file is encrypted into $VFS_HOME/cloud-outgoing first and uploaded with a \
            resumable upload: a put killed or cut off halfway continues from the relay's offset \
            when the same command is run again (the source unchanged).

            Examples:
              vfs-cloud put report.pdf /docs/2026/
              vfs-cloud put -r photos notes.txt /docs/2026/
              vfs-cloud put draft.txt /docs/final.txt
              vfs-cloud put --base 9f2c… notes.txt /docs/notes.txt
            """)
        @Flag(name: .shortAndLong, help: "Put folders with everything in them.") var recursive = false
        @Flag(name: .shortAndLong, help: "Replace cloud files that exist, whatever version is there.") var force = false
        @Option(help: ArgumentHelp("Replace the cloud file only if it is still at VERSION (ls --json shows it).", valueName: "version"))
        var base: String?
        @OptionGroup var progressOptions: ProgressOptions
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("Files or folders (with -r), then the cloud destination.", valueName: "path"), completion: .file())
        var paths: [String] = []

        func check() throws {
            guard paths.count >= 2 else {
                throw ToolError.usage("put needs a source and a cloud destination", hints: ["vfs-cloud put FILE… /FOLDER/"])
            }
            if let base {
                guard !force else { throw ToolError.usage("choose one of -f (whatever version is there) and --base VERSION") }
                guard paths.count == 2, !recursive else { throw ToolError.usage("--base names the version of one file: put one file with it") }
                guard !base.isEmpty, base.utf8.count <= 64, base.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                    throw ToolError.usage("\"\(base)\" is not a version", hints: ["vfs-cloud ls --json shows each file's version"])
                }
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
                let left = try await CloudUploader(client: client, home: session.home, recipients: recipients, force: force, base: base,
                                                   device: session.config.name, report: .terminal(quiet: progressOptions.quiet))
                    .put(Array(paths.dropLast()), to: destination, asFolder: paths.last!.hasSuffix("/") || destination == "/" || paths.count > 2)
                // The rest went; what could not go is an error all the same (exit 1).
                if left > 0 { throw ToolError.namesLeftOut(left, holder: "the cloud") }
            }
        }
    }
}
