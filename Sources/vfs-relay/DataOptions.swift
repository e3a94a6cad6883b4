import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore
import VFSRelayServer

/// `--data DIR`, shared by `serve` and the admin commands.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("data"), help: ArgumentHelp("The relay's data folder (default: $VFS_HOME/relay).", valueName: "dir"), completion: .directory)
    var folder: String?

    var url: URL { get throws { URL(fileURLWithPath: try folder ?? VFSPaths.current.relayData) } }

    func configuration() throws -> RelayConfiguration { RelayConfiguration(dataFolder: try url) }

    /// The store of an existing data folder (admin commands never create one by accident,
    /// except `org add`, which starts a relay's life).
    func open(create: Bool = false) throws -> (SQLiteRelayStore, FileBlobStore) {
        let url = try url
        if !create, !FileManager.default.fileExists(atPath: url.appendingPathComponent("relay.sqlite").path) {
            throw ToolError("no relay database in \"\(url.path)\"", exit: .noInput,
                            hints: ["start with `vfs-relay org add NAME`, or give the folder with --data DIR"])
        }
        do {
            return try openStore(RelayConfiguration(dataFolder: url))
        } catch {
            throw ToolError("cannot open the relay database in \"\(url.path)\": \(error)", exit: .ioError)
        }
    }
}
