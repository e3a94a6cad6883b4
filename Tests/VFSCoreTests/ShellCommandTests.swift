import Foundation
import Testing
@testable import VFSCore
import VFSTestSupport

/// `sh -c` hooks without Foundation's Process (posix_spawn).
@Suite("shell command")
struct ShellCommandTests {
    @Test("exit status, the environment given and nothing else, and a signal as 128 + its number")
    func statusAndEnvironment() throws {
        #expect(try ShellCommand.run("exit 0", environment: [:]) == 0)
        #expect(try ShellCommand.run("exit 3", environment: [:]) == 3)
        #expect(try ShellCommand.run("kill -9 $$", environment: [:]) == 137)
        #expect(try ShellCommand.run("[ \"$VFS_X\" = 'a b' ] && [ -z \"$HOME\" ]", environment: ["VFS_X": "a b"]) == 0)
        let folder = try TestFolder("shell")
        let file = folder.path + "/out"
        #expect(try ShellCommand.run("printf %s \"$VFS_X\" > \"$OUT\"", environment: ["VFS_X": "é;$(x)", "OUT": file]) == 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "é;$(x)")
        withExtendedLifetime(folder) {}
    }
}
