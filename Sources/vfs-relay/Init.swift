import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore

struct Init: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create the relay's data folder and database (serve also creates them).",
        discussion: """
        Only `init` and `serve` create a relay database; every other command refuses (66) \
        when there is none, so a command given the wrong folder never starts a second, \
        empty relay. The folder is --data, else $VFS_RELAY_DATA, else $VFS_HOME/relay. \
        With --database, init brings the PostgreSQL schema up to date (as `migrate`). \
        Running it again on an existing relay changes nothing.
        """)

    @OptionGroup var data: DataOptions

    func run() async throws {
        let configuration = try data.configuration()
        let existed = configuration.database == nil && FileManager.default.fileExists(atPath: configuration.databasePath)
        _ = try await data.open(create: true)
        let what = data.describedStore
        FileHandle.standardError.write(Data("vfs-relay: \(existed ? "already there" : "created"): \(what)\n".utf8))
    }
}
