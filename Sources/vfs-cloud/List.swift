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

extension CloudTool {
    struct List: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls", abstract: "List a cloud folder (or show one file).",
            discussion: """
            -l shows each file's plaintext size (its age header read from the relay; the \
            JSON's size is the ciphertext's). On a terminal the long listing has a header; \
            piped, its columns are separated by tabs.

            Examples:
              vfs-cloud ls /docs
              vfs-cloud ls -lh -R /
              vfs-cloud ls -R --json / | jq -r '.[] | select(.kind == "file") | .path'
            """, helpNames: [.long])
        @Flag(name: .short, help: "Long format: kind, plaintext size, modification time, path.") var long = false
        @OptionGroup var sizes: HumanSizeOption
        @Flag(name: .customShort("R"), help: "List folders recursively.") var recursive = false
        @Flag(help: "Print a JSON array of entries (id, name, path, kind, size, sha256, created, updated, and a file's version).") var json = false
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("The cloud folder or file.", valueName: "path")) var path = "/"

        func run() async throws {
            let path = try CloudPath.normal(self.path)
            var plaintext: [String: Int64] = [:]
            let entries = try await options.run(retry: retry) { _, client -> [CloudEntry] in
                let tree = CloudTree(client: client)
                let out = try await tree.entries(under: path, recursive: recursive)
                if long && !json {
                    for entry in out where entry.kind == .file {
                        guard let size = entry.size, size > 0 else { continue }
                        let header = try await tree.header(entry.path, size: size, first: 4 << 10).headerLength
                        plaintext[entry.path] = AgeDecryptor.plaintextLength(payload: size - Int64(header))
                    }
                }
                return recursive ? out.sorted { $0.path < $1.path } : out
            }
            if json { return try JSONOutput.print(entries) }
            let rows = entries.map { entry in
                let shown = DisplayText.printable(recursive ? entry.path : entry.name) + (entry.kind == .folder ? "/" : "")
                guard long else { return [shown] }
                return [entry.kind == .folder ? "d" : "-", plaintext[entry.path].map { Listing.size($0, human: sizes.human) } ?? "-",
                        DateText.iso8601(entry.updated), shown]
            }
            if long {
                Listing.print(["KIND", "SIZE", "MODIFIED", "NAME"], rows)
            } else {
                print(rows.map { $0[0] + "\n" }.joined(), terminator: "")
            }
        }
    }

    struct Usage: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "du", abstract: "Show what your cloud files use on the relay, and your quota.",
            discussion: """
            Everything you hold on the relay counts against the quota: cloud files, pushes not \
            yet fetched and unfinished uploads. With PATH, the files, folders and bytes are \
            those under PATH (a folder, or one file); used and quota stay the whole account's.

            Examples:
              vfs-cloud du --json | jq .used
              vfs-cloud du /docs/2026
            """)
        @Flag(help: "Print JSON (files, folders, bytes, used, quota).") var json = false
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("Count only this folder or file.", valueName: "path")) var path: String?

        func run() async throws {
            let root = try path.map(CloudPath.normal)
            let usage = try await options.run(retry: retry) { _, client -> CloudUsage in
                var usage = try await client.cloudUsage()
                guard let root, root != "/" else { return usage }
                (usage.files, usage.folders, usage.bytes) = (0, 0, 0)
                guard try await client.cloudEntry(root) != nil else { return usage }
                for entry in try await CloudTree(client: client).entries(under: root) {
                    if entry.kind == .file { (usage.files, usage.bytes) = (usage.files + 1, usage.bytes + (entry.size ?? 0)) } else { usage.folders += 1 }
                }
                return usage
            }
            if json { return try JSONOutput.print(usage) }
            let percent = usage.quota > 0 ? Double(usage.used) * 100 / Double(usage.quota) : 0
            print("""
                \(root.map { $0 == "/" ? "" : DisplayText.printable($0) + ": " } ?? "")\(usage.files) files in \(usage.folders) folders: \(usage.bytes) bytes (\(ProgressBar.size(Int(usage.bytes))))
                used \(usage.used) of \(usage.quota) bytes (\(DecimalText.oneDecimal(percent))% of the quota)
                """)
        }
    }
}
