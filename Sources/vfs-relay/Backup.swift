import ArgumentParser
import Foundation
import VFSCommandLine

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write an online, consistent copy of the relay database (the blob folder is copied separately).")

    @OptionGroup var data: DataOptions
    @Option(name: [.customShort("o", allowingJoined: true), .long], help: ArgumentHelp("The copy to write (must not exist).", valueName: "file"), completion: .file())
    var output: String

    func run() async throws {
        guard data.database == nil else {
            throw ToolError.usage("backup copies the embedded SQLite database", hints: ["back a PostgreSQL relay database up with pg_dump"])
        }
        guard !FileManager.default.fileExists(atPath: output) else {
            throw ToolError("\"\(output)\" already exists", exit: .cannotCreate, hints: ["remove it or choose another name"])
        }
        let (store, _) = try await data.open()
        let partial = output + ".partial"
        unlink(partial)
        do {
            try await store.backup(to: partial)
            guard rename(partial, output) == 0 else { throw ToolError("cannot write \"\(output)\"", exit: .cannotCreate) }
        } catch {
            unlink(partial)
            if let error = error as? ToolError { throw error }
            throw ToolError("cannot write \"\(output)\": \(error)", exit: .cannotCreate)
        }
    }
}
