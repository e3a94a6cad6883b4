import Foundation
import Glibc
import VFSCore

/// Starts the tests' servers so that none outlives a test runner killed outright (a CI
/// timeout, `kill -9`, a crash), when no `stop()` or `deinit` runs: each runs under
/// `setpriv --pdeathsig KILL` (util-linux), and the kernel sends it SIGKILL when its parent
/// ends. The parent the kernel watches is the *thread* that forked it, so the servers are
/// started from one thread that lives as long as the runner: started from one of Swift's
/// pool threads, a server would be killed whenever that idle thread retired. KILL, not TERM: a
/// server may ignore or block SIGTERM (children inherit the runner's mask).
public enum ServerSpawner {
    /// `setpriv`, where util-linux installs it (a user's PATH may lack /usr/bin's siblings).
    static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The executable and arguments that run `executable arguments` with the parent-death
    /// signal set (unchanged when setpriv is missing).
    public static func command(_ executable: URL, _ arguments: [String]) -> (URL, [String]) {
        guard let setpriv else { return (executable, arguments) }
        return (URL(fileURLWithPath: setpriv), ["--pdeathsig", "KILL", "--", executable.path] + arguments)
    }

    /// Runs `process` (already configured) from the long-lived thread.
    public static func run(_ process: Process) throws {
        try thread.perform { try process.run() }
    }

    private static let thread = LongLivedThread(name: "test server spawner")
}

/// One thread, never ended, that runs the closures handed to it one at a time.
final class LongLivedThread: @unchecked Sendable {
    private let jobs = BlockingQueue<() -> Void>()

    init(name: String) {
        let thread = Thread { [jobs] in
            while let job = jobs.take() { job() }
        }
        thread.name = name
        thread.start()
    }

    /// Runs `body` on the thread and returns its result (or throws its error).
    func perform<T>(_ body: @escaping () throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        jobs.put { box.result = Result { try body() }; done.signal() }
        done.wait()
        return try box.result!.get()
    }

    private final class ResultBox<T>: @unchecked Sendable {
        var result: Result<T, Error>?
    }
}
