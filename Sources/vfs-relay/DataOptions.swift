import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore
import VFSRelayServer

/// `--data DIR`, `--database URL` and `--blobs DIR`, shared by `serve` and the admin commands.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("data"), help: ArgumentHelp("The relay's data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).", valueName: "dir"), completion: .directory)
    var folder: String?

    @Option(help: ArgumentHelp("A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.",
                               valueName: "url"))
    var database: String?

    @Option(help: ArgumentHelp("Where blob and upload files live (default: the data folder); with several relays, a folder they all mount.",
                               valueName: "dir"), completion: .directory)
    var blobs: String?

    var url: URL {
        get throws {
            if let folder { return URL(fileURLWithPath: folder) }
            if let named = ProcessInfo.processInfo.environment["VFS_RELAY_DATA"], !named.isEmpty { return URL(fileURLWithPath: named) }
            return URL(fileURLWithPath: try VFSPaths.current.relayData)
        }
    }

    /// The --database location, checked.
    func location() throws -> PostgresLocation? {
        guard let database else { return nil }
        guard let location = PostgresLocation(url: database) else {
            throw ToolError.usage("invalid --database \"\(Self.redacted(database))\"",
                                  hints: ["write postgres://USER@HOST:PORT/DATABASE or postgres://USER@/DATABASE?host=/run/postgresql"])
        }
        return location
    }

    /// A URL as it may be shown: without its password.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? text
    }

    func configuration() throws -> RelayConfiguration {
        var configuration = RelayConfiguration(dataFolder: try url)
        configuration.database = try location()
        if let blobs { configuration.blobFolder = URL(fileURLWithPath: blobs) }
        return configuration
    }

    /// What the errors call the store.
    var describedStore: String {
        if let database { return "the relay database \"\(Self.redacted(database))\"" }
        return "the relay database in \"\((try? url.path) ?? "?")\""
    }

    /// The database a change went to, as the line reporting it names it.
    var changedStore: String {
        if let database { return Self.redacted(database) }
        return (try? configuration().databasePath) ?? "?"
    }

    /// The line on stderr that says what an admin command changed, and where: an operator
    /// with two relays sees which one.
    func report(_ change: String) {
        FileHandle.standardError.write(Data("vfs-relay: \(change) (in \(changedStore))\n".utf8))
    }

    /// The store of an existing data folder or database: admin commands never create a
    /// relay by accident; only `init` (and `serve`) pass `create`.
    func open(create: Bool = false) async throws -> (any RelayStore, FileBlobStore) {
        let configuration = try configuration()
        if configuration.database == nil, !create,
           !FileManager.default.fileExists(atPath: configuration.databasePath) {
            throw ToolError("no relay database in \"\(configuration.dataFolder.path)\"", exit: .noInput,
                            hints: ["give the folder of the relay with --data DIR (or VFS_RELAY_DATA), or make a new relay there with `vfs-relay init`"])
        }
        do {
            return try await openRelayStore(configuration)
        } catch {
            throw ToolError("cannot open \(describedStore): \(error)", exit: configuration.database == nil ? .ioError : .unavailable,
                            hints: configuration.database == nil ? [] : ["is PostgreSQL running, and does the database exist?"])
        }
    }
}
