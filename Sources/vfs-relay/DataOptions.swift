import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore
import VFSObjectStore
import VFSRelayServer

/// `--data DIR`, `--database URL` and `--blobs DIR`, shared by `serve` and the admin commands.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("data"), help: ArgumentHelp("The relay's data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).", valueName: "dir"), completion: .directory)
    var folder: String?

    @Option(help: ArgumentHelp("A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.",
                               valueName: "url"))
    var database: String?

    @Option(help: ArgumentHelp("Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.",
                               valueName: "dir|s3-url"), completion: .directory)
    var blobs: String?

    @Option(name: .customLong("s3-credentials"),
            help: ArgumentHelp("With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.",
                               valueName: "file"), completion: .file())
    var s3Credentials: String?

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
        if let blobs, blobs.hasPrefix("s3://") {
            configuration.objectStore = try objectStore(blobs)
        } else if let blobs {
            configuration.blobFolder = URL(fileURLWithPath: blobs)
        }
        if s3Credentials != nil && configuration.objectStore == nil {
            throw ToolError.usage("--s3-credentials goes with --blobs s3://BUCKET…", hints: ["blobs in a folder need no credentials"])
        }
        return configuration
    }

    /// `--blobs s3://…` with its credentials, checked.
    func objectStore(_ text: String) throws -> ObjectStoreSettings {
        let location: S3BlobLocation
        switch S3BlobLocation.parse(text) {
        case .success(let parsed): location = parsed
        case .failure(let error):
            throw ToolError.usage("invalid --blobs \"\(text)\": \(error)",
                                  hints: ["write s3://BUCKET[/PREFIX]?endpoint=https://s3.example.net&region=us-east-1"])
        }
        let credentials: S3Credentials
        if let s3Credentials {
            guard let data = FileManager.default.contents(atPath: s3Credentials) else {
                throw ToolError("cannot read --s3-credentials \"\(s3Credentials)\"", exit: .noInput,
                                hints: ["give a readable file holding aws_access_key_id and aws_secret_access_key"])
            }
            guard let read = S3Credentials.file(String(decoding: data, as: UTF8.self)) else {
                throw ToolError("no aws_access_key_id and aws_secret_access_key in \"\(s3Credentials)\"", exit: .dataError,
                                hints: ["write them in its [default] section, one `name = value` a line"])
            }
            credentials = read
        } else if let read = S3Credentials.environment() {
            credentials = read
        } else {
            throw ToolError.usage("no S3 credentials for \"\(location.description)\"",
                                  hints: ["set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give --s3-credentials FILE (never the key itself on the command line)"])
        }
        return ObjectStoreSettings(location: location, credentials: credentials)
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
    func open(create: Bool = false) async throws -> (any RelayStore, any BlobStore) {
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
