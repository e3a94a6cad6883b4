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
            discussion: "Examples:\n  vfs-cloud ls /docs\n  vfs-cloud ls -l -R /\n  vfs-cloud ls -R --json / | jq -r '.[] | select(.kind == \"file\") | .path'")
        @Flag(name: .short, help: "Long format: kind, size, modification time, path.") var long = false
        @Flag(name: .customShort("R"), help: "List folders recursively.") var recursive = false
        @Flag(help: "Print a JSON array of entries (id, name, path, kind, size, sha256, created, updated).") var json = false
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("The cloud folder or file.", valueName: "path")) var path = "/"

        func run() async throws {
            let path = try CloudPath.normal(self.path)
            let entries = try await options.run { _, client -> [CloudEntry] in
                if let entry = try await client.cloudEntry(path), entry.kind == .file { return [entry] }
                var out: [CloudEntry] = []
                var pending = [path]
                while !pending.isEmpty {
                    let folder = pending.removeFirst()
                    let children = try await client.cloudList(folder)
                    out += children
                    if recursive { pending += children.filter { $0.kind == .folder }.map(\.path) }
                }
                return recursive ? out.sorted { $0.path < $1.path } : out
            }
            if json { return try JSONOutput.print(entries) }
            var text = ""
            for entry in entries {
                let shown = DisplayText.printable(recursive ? entry.path : entry.name) + (entry.kind == .folder ? "/" : "")
                if long {
                    text += "\(entry.kind == .folder ? "d" : "-")\t\(entry.size.map(String.init) ?? "-")\t\(DateText.iso8601(entry.updated))\t\(shown)\n"
                } else {
                    text += shown + "\n"
                }
            }
            print(text, terminator: "")
        }
    }

    struct Usage: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "du", abstract: "Show what your cloud files use on the relay, and your quota.",
            discussion: "Everything you hold on the relay counts against the quota: cloud files, pushes not yet fetched and unfinished uploads.\n\nExample:\n  vfs-cloud du --json | jq .used")
        @Flag(help: "Print JSON (files, folders, bytes, used, quota).") var json = false
        @OptionGroup var options: CloudOptions

        func run() async throws {
            let usage = try await options.run { _, client in try await client.cloudUsage() }
            if json { return try JSONOutput.print(usage) }
            let percent = usage.quota > 0 ? Double(usage.used) * 100 / Double(usage.quota) : 0
            print("""
                \(usage.files) files in \(usage.folders) folders: \(usage.bytes) bytes (\(ProgressBar.size(Int(usage.bytes))))
                used \(usage.used) of \(usage.quota) bytes (\(DecimalText.oneDecimal(percent))% of the quota)
                """)
        }
    }
}
