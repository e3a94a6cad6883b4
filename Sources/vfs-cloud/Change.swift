import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCommandLine
import VFSCore
import VFSRelayClient
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

extension CloudTool {
    struct MakeFolder: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "mkdir", abstract: "Make cloud folders.",
            discussion: "An existing name is exit 73, unless -p.\n\nExample:\n  vfs-cloud mkdir -p /docs/2026")
        @Flag(name: .short, help: "Make missing parent folders too; an existing folder is fine.") var parents = false
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("Folders to make.", valueName: "path")) var paths: [String]

        func run() async throws {
            try await options.run(retry: retry) { _, client in
                for text in paths {
                    let path = try CloudPath.normal(text)
                    if parents {
                        try await CloudTree(client: client).makeFolders(path)
                    } else {
                        _ = try await client.cloudMakeFolder(path)
                    }
                }
            }
        }
    }

    struct Move: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "mv", abstract: "Rename or move a cloud file or folder.",
            discussion: """
            A destination that is a folder receives the source under its own name. An existing \
            name is exit 73 unless -f, which first removes it (a file, or a folder with everything \
            in it). A folder cannot move into itself or its own subfolders.

            Examples:
              vfs-cloud mv /docs/2026 /archive/2026
              vfs-cloud mv /a.pdf /docs/
            """)
        @Flag(name: .short, help: "Replace what exists at the destination.") var force = false
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("The file or folder to move.", valueName: "source")) var source: String
        @Argument(help: ArgumentHelp("Its new path, or a folder to move it into.", valueName: "destination")) var destination: String

        func run() async throws {
            let from = try CloudPath.normal(source)
            var to = try CloudPath.normal(destination)
            guard from != "/" else { throw ToolError.usage("the root folder cannot be moved") }
            try await options.run(retry: retry) { session, client in
                if try await client.cloudLookup(to)?.kind == .folder, to != from {
                    to = CloudPath.join(to, CloudPath.name(from))
                }
                if to == from || to.hasPrefix(from + "/") {
                    throw ToolError("cannot move \"\(from)\" into itself (\"\(to)\")", exit: .cannotCreate)
                }
                let bases = CloudBases(home: session.home)
                if force, try await client.cloudLookup(to) != nil {
                    try await client.cloudDelete(to)
                    bases.forget(to)
                }
                _ = try await client.cloudMove(from, to: to)
                bases.moved(from, to: to)
            }
        }
    }

    struct Remove: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove cloud files, and folders with -r.",
            discussion: """
            The relay deletes a file's ciphertext when nothing else refers to it. Removing a \
            folder (-r) asks for confirmation on a terminal unless -f; without a terminal to \
            ask on, -r needs -f.

            Example:
              vfs-cloud rm -r -f /archive/old
            """)
        @Flag(name: .short, help: "Remove folders and everything in them.") var recursive = false
        @Flag(name: .short, help: "Do not ask; a missing path is not an error.") var force = false
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("Files or folders to remove.", valueName: "path")) var paths: [String]

        func run() async throws {
            let paths = try self.paths.map(CloudPath.normal)
            if paths.contains("/") { throw ToolError.usage("the root folder cannot be removed") }
            try await options.run(retry: retry) { session, client in
                for path in paths {
                    let entry: CloudEntry?
                    do {
                        entry = try await client.cloudEntry(path)
                    } catch RelayClientError.rejected(404, _, _) where force {
                        continue
                    }
                    if entry?.kind == .folder {
                        guard recursive else {
                            throw ToolError("\"\(path)\" is a folder", exit: .usage, hints: ["use -r to remove it and everything in it"])
                        }
                        if !force { try confirm(path) }
                    }
                    try await client.cloudDelete(path)
                    CloudBases(home: session.home).forget(path)
                }
            }
        }

        /// Asks on the terminal; no terminal, or any answer but y/yes, stops (exit 1 or 64).
        func confirm(_ path: String) throws {
            guard Terminal.stdinIsTerminal else {
                throw ToolError.usage("not removing folder \"\(path)\" without confirmation", hints: ["add -f to remove it and everything in it"])
            }
            try? writeAll(fd: STDERR_FILENO, Array("vfs-cloud: remove folder \"\(path)\" and everything in it? [y/N] ".utf8))
            let answer = (readLine() ?? "").trimmingUnicodeWhitespace().lowercased()
            guard answer == "y" || answer == "yes" else { throw ToolError("\"\(path)\" was not removed", exit: .no) }
        }
    }
}
