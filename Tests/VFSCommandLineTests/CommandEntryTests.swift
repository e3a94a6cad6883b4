import ArgumentParser
import Testing
import VFSCommandLine
import VFSCore

/// A sync and an async root command with the same options and checks: both entry
/// points must report the same way.
struct Greet: VFSCommand, CheckedCommand {
    static let configuration = CommandConfiguration(commandName: "vfs-greet")
    @Option(name: .shortAndLong) var name: String?
    @Flag var fail = false
    func check() throws {
        guard name != nil else { throw ToolError.usage("give a name with -n", hints: ["vfs-greet -n NAME"]) }
    }
    func run() throws {
        if fail { throw ToolError("\"\(name!)\" refused", exit: .permissionDenied) }
    }
}

struct AsyncGreet: AsyncVFSCommand, CheckedCommand {
    static let configuration = CommandConfiguration(commandName: "vfs-agreet")
    @Option(name: .shortAndLong) var name: String?
    @Flag var fail = false
    func check() throws {
        guard name != nil else { throw ToolError.usage("give a name with -n", hints: ["vfs-agreet -n NAME"]) }
    }
    func run() async throws {
        await Task.yield()
        if fail { throw ToolError("\"\(name!)\" refused", exit: .permissionDenied) }
    }
}

@Suite("command entry points")
struct CommandEntryTests {
    func failure<C: VFSCommand>(_ type: C.Type, _ arguments: [String]) -> CommandFailure? {
        do { try type.execute(arguments); return nil } catch { return CommandFailure(error, command: type) }
    }

    func failure<C: AsyncVFSCommand>(_ type: C.Type, _ arguments: [String]) async -> CommandFailure? {
        do { try await type.execute(arguments); return nil } catch { return CommandFailure(error, command: type) }
    }

    @Test("a run that succeeds reports nothing, sync and async")
    func success() async {
        #expect(failure(Greet.self, ["-n", "ann"]) == nil)
        #expect(await failure(AsyncGreet.self, ["-n", "ann"]) == nil)
    }

    @Test("check() runs after parsing and its error keeps its status and hints")
    func checkFails() async throws {
        let sync = try #require(failure(Greet.self, []))
        #expect(sync.status == 64)
        #expect(sync.standardError == "vfs-greet: error: give a name with -n\nvfs-greet: hint: vfs-greet -n NAME\n")
        let async = try #require(await failure(AsyncGreet.self, []))
        #expect(async.status == 64)
        #expect(async.standardError == "vfs-agreet: error: give a name with -n\nvfs-agreet: hint: vfs-agreet -n NAME\n")
    }

    @Test("an unknown option is reported as such, not as what check() would find missing")
    func unknownOption() async throws {
        for report in [failure(Greet.self, ["--nmae", "x"]), await failure(AsyncGreet.self, ["--nmae", "x"])] {
            let report = try #require(report)
            #expect(report.status == 64)
            #expect(report.standardError.contains(": error: unknown option '--nmae'. Did you mean '--name'?\n"))
            #expect(report.standardError.contains(": hint: usage: "))
            #expect(!report.standardError.contains("give a name"))
            #expect(report.standardOutput.isEmpty)
        }
    }

    @Test("an error from run() keeps its exit status, and the async one is awaited")
    func runFails() async throws {
        let sync = try #require(failure(Greet.self, ["-n", "ann", "--fail"]))
        #expect(sync == CommandFailure(standardOutput: "", standardError: "vfs-greet: error: \"ann\" refused\n", status: 77))
        let async = try #require(await failure(AsyncGreet.self, ["-n", "ann", "--fail"]))
        #expect(async == CommandFailure(standardOutput: "", standardError: "vfs-agreet: error: \"ann\" refused\n", status: 77))
    }

    @Test("--help goes to stdout with status 0")
    func help() async throws {
        let report = try #require(await failure(AsyncGreet.self, ["--help"]))
        #expect(report.status == 0)
        #expect(report.standardError.isEmpty)
        #expect(report.standardOutput.contains("USAGE: vfs-agreet"))
    }
}
