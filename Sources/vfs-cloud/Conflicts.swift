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
    struct Conflicts: AsyncVFSCommand {
        static let configuration = CommandConfiguration(
            commandName: "conflicts", abstract: "List the conflict copies puts kept beside newer versions.",
            discussion: """
            A put based on a version that another device replaced meanwhile is kept beside \
            the newer one as "NAME (conflict DEVICE DATE).EXT". This lists every such copy \
            under PATH (default the whole cloud) with the file it stands beside: a line per \
            copy, the file's path and the copy's, separated by a tab. --json prints an array \
            of {"path", "exists", "conflicts": [{"path", "device", "date"}]} ("exists" is \
            false when the file was removed since).

            Resolve a conflict by keeping the version you want at the path ("vfs-cloud put -f \
            FILE PATH", or "vfs-cloud mv -f COPY PATH") and removing the other copy \
            ("vfs-cloud rm COPY").

            Exit status: 0 listed (finding none is no error); 64 usage; 66 no such path; \
            69 relay unreachable; 75 temporary; 77 a revoked token or a wrong passcode.

            Examples:
              vfs-cloud conflicts
              vfs-cloud conflicts --json /docs | jq -r '.[].conflicts[].path'
            """)
        @Flag(help: "Print a JSON array of {path, exists, conflicts: [{path, device, date}]}.") var json = false
        @OptionGroup var retry: RetryOptions
        @OptionGroup var options: CloudOptions
        @Argument(help: ArgumentHelp("The cloud folder to look in.", valueName: "path")) var path = "/"

        func run() async throws {
            let root = try CloudPath.normal(path)
            let entries = try await options.run(retry: retry) { _, client in
                try await CloudTree(client: client).entries(under: root)
            }
            let pairs = ConflictPair.pairs(entries)
            if json { return try JSONOutput.print(pairs) }
            let lines = pairs.flatMap { pair in
                pair.conflicts.map { DisplayText.printable(pair.path) + "\t" + DisplayText.printable($0.path) + "\n" }
            }
            print(lines.joined(), terminator: "")
        }
    }
}
