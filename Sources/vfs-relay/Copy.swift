import ArgumentParser
import Foundation
import VFSCommandLine
import VFSRelayServer

struct Copy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy an embedded relay's data (SQLite) into an empty PostgreSQL relay database.",
        discussion: """
        Copies every row of DIR/relay.sqlite (organisations, users, devices, groups, \
        transfers, cloud files, policy items, events, the audit log) in one transaction, \
        keeping ids, so tokens and Last-Event-ID values stay valid. Stop the embedded relay \
        first. The blob files stay in DIR: serve with --blobs DIR, or give --blobs NEW to \
        copy them there.

          vfs-relay copy --from /srv/relay --to postgres://relay@db/relay --blobs /srv/vfs-blobs
        """)

    @Option(help: ArgumentHelp("The embedded relay's data folder.", valueName: "dir"), completion: .directory)
    var from: String

    @Option(help: ArgumentHelp("The PostgreSQL database (postgres://USER@HOST[:PORT]/DB).", valueName: "url"))
    var to: String

    @Option(help: ArgumentHelp("Also copy the blob files into this folder (the one the PostgreSQL relays use).", valueName: "dir"),
            completion: .directory)
    var blobs: String?

    func run() async throws {
        guard let location = PostgresLocation(url: to) else {
            throw ToolError.usage("invalid --to \"\(DataOptions.redacted(to))\"",
                                  hints: ["write postgres://USER@HOST:PORT/DATABASE or postgres://USER@/DATABASE?host=/run/postgresql"])
        }
        let folder = URL(fileURLWithPath: from)
        let sourceConfiguration = RelayConfiguration(dataFolder: folder)
        guard FileManager.default.fileExists(atPath: sourceConfiguration.databasePath) else {
            throw ToolError("no relay database in \"\(from)\"", exit: .noInput, hints: ["--from takes the folder serve --data used"])
        }
        let source: SQLiteRelayStore
        do {
            source = try openStore(sourceConfiguration).0
        } catch {
            throw ToolError("cannot open the relay database in \"\(from)\": \(error)", exit: .ioError)
        }
        let target: PostgresRelayStore
        do {
            target = try await PostgresRelayStore(location: location)
        } catch {
            throw ToolError("cannot open the relay database \"\(DataOptions.redacted(to))\": \(PostgresRelayStore.describe(error))",
                            exit: .unavailable, hints: ["is PostgreSQL running, and does the database exist?"])
        }
        defer { Task { await target.shutdown() } }
        let counts: [(table: String, rows: Int)]
        do {
            counts = try await RelayCopy.copy(from: source, to: target)
        } catch let error as RelayCopy.Failure {
            throw ToolError("\(error)", exit: .cannotCreate, hints: ["copy only into a new, empty database"])
        } catch {
            throw ToolError("cannot copy: \(PostgresRelayStore.describe(error))", exit: .ioError,
                            hints: ["nothing was copied (one transaction)"])
        }
        if let blobs {
            let destination = URL(fileURLWithPath: blobs)
            var copied = 0
            do {
                for kind in ["blobs", "uploads"] {
                    let into = destination.appendingPathComponent(kind)
                    try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                    let here = folder.appendingPathComponent(kind)
                    for name in (try? FileManager.default.contentsOfDirectory(atPath: here.path)) ?? [] {
                        let target = into.appendingPathComponent(name)
                        if FileManager.default.fileExists(atPath: target.path) { continue }
                        try FileManager.default.copyItem(at: here.appendingPathComponent(name), to: target)
                        copied += 1
                    }
                }
            } catch {
                throw ToolError("cannot copy the blob files into \"\(blobs)\": \(error)", exit: .cannotCreate,
                                hints: ["the rows are copied; copy DIR/blobs and DIR/uploads by hand, or serve with --blobs \(from)"])
            }
            print("files \(copied)")
        }
        for (table, rows) in counts { print("\(table) \(rows)") }
    }
}
