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
    struct Get: AsyncVFSCommand, CheckedCommand {
        static let configuration = CommandConfiguration(
            commandName: "get", abstract: "Download and decrypt a cloud file (a folder with -r), streaming while it downloads.",
            discussion: """
            The ciphertext comes with HTTP Range into $VFS_HOME/cloud-incoming, and is decrypted \
            as it arrives: with --stdout the plaintext flows out at once; -o FILE (or -C DIR, \
            default the current folder, under the cloud name) appears only once complete and \
            authenticated. A get killed or cut off halfway continues from the bytes already \
            downloaded when run again. --raw writes the ciphertext itself (the age file, or the \
            sealed bundle a "vfs-push --cloud" kept, for vfs-unwrap).

            A file that exists is not replaced (exit 73) unless -f. With -r a cloud folder \
            comes down as it went up: DIR/NAME (or -o FOLDER) receives every file and folder \
            in it; every name is checked before anything is written. A name that was not \
            UTF-8 when put (held as U+F780 to U+F7FF in the cloud) is written back as its \
            bytes, as vfs-unwrap writes the names vfs-push and vfs-wrap carried.

            --at TIME gets the version the file at PATH had at that time, --version-id ID the \
            version of that id ("vfs-cloud log PATH" lists them), also of a file removed \
            since; such a get records nothing for the next put of PATH. TIME is \
            \(CloudTime.help).

            Examples:
              vfs-cloud get /docs/2026/report.pdf -C ~/Downloads
              vfs-cloud get -r /docs/2026 -C ~/Downloads
              vfs-cloud get /music/set.flac --stdout | mpv -
              vfs-cloud get /docs/notes.txt --at 2026-11-29T09:00:00Z -o notes-then.txt
            """)
        @Option(name: .short, help: ArgumentHelp("Write to FILE.", valueName: "file"), completion: .file()) var output: String?
        @Option(name: .customShort("C"), help: ArgumentHelp("Write into DIR under the cloud name.", valueName: "dir"), completion: .directory)
        var directory: String?
        @Flag(help: "Write to standard output, streaming.") var stdout = false
        @Flag(help: "Write the ciphertext as stored, without decrypting.") var raw = false
        @Flag(name: .shortAndLong, help: "Get a folder with everything in it.") var recursive = false
        @Flag(name: .shortAndLong, help: "Replace files that exist.") var force = false
        @Option(help: ArgumentHelp("Get the version the file had at this time.", valueName: "time")) var at: String?
        @Option(name: .customLong("version-id"), help: ArgumentHelp("Get this version of the file (vfs-cloud log lists them).", valueName: "id"))
        var version: String?
        @OptionGroup var progressOptions: ProgressOptions
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("The cloud file (or folder, with -r).", valueName: "path")) var path: String

        func check() throws {
            if [output != nil, directory != nil, stdout].filter({ $0 }).count > 1 {
                throw ToolError.usage("choose one of -o FILE, -C DIR and --stdout")
            }
            if recursive && stdout { throw ToolError.usage("-r writes files: use -C DIR or -o FOLDER, not --stdout") }
            if at != nil && version != nil { throw ToolError.usage("choose one of --at TIME and --version-id ID") }
            if recursive && (at != nil || version != nil) {
                throw ToolError.usage("--at and --version-id get one file", hints: ["\"vfs-cloud restore -r DIR --at TIME\" puts a folder's tree back as it was"])
            }
            if let at { _ = try CloudTime.required(at) }
        }

        func run() async throws {
            let path = try CloudPath.normal(self.path)
            try await options.run(identity: !raw, retry: retry, quiet: progressOptions.quiet) { session, client in
                let download = CloudDownload(session: session, client: client, raw: raw, force: force,
                                             report: .terminal(quiet: progressOptions.quiet)) { try ToolIO.openOutput($0 ?? "-", binary: true) }
                if at != nil || version != nil {
                    let time = try at.map { try CloudTime.required($0) }
                    let kept = try Self.pick(try await client.cloudLog(path), path: path, at: time, version: version)
                    let name = CloudPath.name(path)
                    let entry = CloudEntry(id: kept.id, name: name, path: path, kind: .file, size: kept.size, sha256: kept.sha256,
                                           created: kept.since, updated: kept.since, version: kept.version)
                    return try await download.download(entry, to: stdout ? nil : output ?? ((directory ?? ".") + "/" + name), version: kept.id)
                }
                let entry = try await client.cloudEntry(path)
                if let entry, entry.kind == .file {
                    return try await download.download(entry, to: stdout ? nil : output ?? ((directory ?? ".") + "/" + entry.name))
                }
                guard recursive else {
                    throw ToolError("\"\(path)\" is a folder", exit: .usage, hints: ["use -r to get a folder and everything in it"])
                }
                // The root's files go straight into DIR.
                try await download.folder(path, to: output ?? ((directory ?? ".") + (entry.map { "/" + $0.name } ?? "")))
            }
        }
    }
}
