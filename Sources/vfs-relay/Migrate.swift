import ArgumentParser
import Foundation
import VFSCommandLine
import VFSRelayServer

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring the relay database's schema up to date (serve also does it at start).",
        discussion: """
        With --database, runs the PostgreSQL migrations not yet applied, under an advisory \
        lock so that relays starting at the same time migrate once; prints one line per \
        migration applied. Without it, the SQLite database in --data DIR.
        """)

    @OptionGroup var data: DataOptions

    func run() async throws {
        let configuration = try data.configuration()
        guard let database = configuration.database else {
            _ = try await data.open()
            print("up to date")
            return
        }
        let store: PostgresRelayStore
        do {
            store = try await PostgresRelayStore(location: database, migrate: false)
        } catch {
            throw ToolError("cannot open \(data.describedStore): \(PostgresRelayStore.describe(error))", exit: .unavailable,
                            hints: ["is PostgreSQL running, and does the database exist?"])
        }
        let applied: [String]
        do {
            applied = try await store.migrate()
        } catch {
            throw ToolError("cannot migrate \(data.describedStore): \(PostgresRelayStore.describe(error))", exit: .ioError)
        }
        for name in applied { print("applied \(name)") }
        if applied.isEmpty { print("up to date") }
        await store.shutdown()
    }
}
