import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore
import VFSRelayServer

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
        // The copy holds every token hash and recipient: 0600 whatever the umask, written
        // into a file we created (O_EXCL|O_NOFOLLOW, never through a planted link), and put
        // in place with link(2), which never replaces a file that appeared meanwhile.
        let partial = output + ".partial"
        do {
            try PrivateFile.create(partial, existing: .refuse)
        } catch let error as POSIXError {
            throw ToolError(IOError("cannot create", path: partial, code: error.code.rawValue).description, exit: .cannotCreate,
                            hints: error.code == .EEXIST ? ["a file or link is there already (an interrupted backup?): remove it if it is yours"] : [])
        }
        do {
            try await store.backup(to: partial)
            guard link(partial, output) == 0 else {
                throw ToolError(IOError("cannot write", path: output).description, exit: .cannotCreate)
            }
            unlink(partial)
        } catch {
            unlink(partial)
            if let error = error as? ToolError { throw error }
            throw ToolError("cannot write \"\(output)\": \(error)", exit: .cannotCreate)
        }
    }
}
