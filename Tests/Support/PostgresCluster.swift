import Foundation
import Synchronization

/// A private PostgreSQL cluster for the tests: Debian's binaries (/usr/lib/postgresql/NN/bin),
/// `initdb` in a temp folder, a server that listens only on a unix socket in that folder
/// (no TCP port at all), trust authentication for the user `relay`. One cluster serves
/// the whole test process; each test takes a fresh database from it. initdb refuses to
/// run as root, so as root the cluster runs as nobody (65534) in a folder it owns.
/// Stopped and removed at exit; a cluster left by a test process that was killed is
/// stopped and removed by the next one.
public final class PostgresCluster: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let folder: String
    let bin: String
    let runAsNobody: Bool
    private let counter = Mutex(0)
    private let stopped = Mutex(false)

    static let prefix = "vfs-pg-"
    private static let shared = Mutex<Result<PostgresCluster, Failure>?>(nil)

    /// The process's cluster, started on first use.
    public static func start() throws -> PostgresCluster {
        try shared.withLock { shared in
            if let shared { return try shared.get() }
            let result: Result<PostgresCluster, Failure>
            do {
                let cluster = try PostgresCluster()
                atexit { PostgresCluster.stopShared() }
                result = .success(cluster)
            } catch let error as Failure {
                result = .failure(error)
            } catch {
                result = .failure(Failure(description: "\(error)"))
            }
            shared = result
            return try result.get()
        }
    }

    static func stopShared() {
        if case .success(let cluster)? = shared.withLock({ $0 }) { cluster.stop() }
    }

    /// The folder of Debian's PostgreSQL programs (the newest installed).
    static func binaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted()
        guard let newest = versions.last(where: { FileManager.default.isExecutableFile(atPath: "\(root)/\($0)/bin/initdb") }) else {
            throw Failure(description: "no PostgreSQL in \(root): install Debian's postgresql package (make deps does)")
        }
        return "\(root)/\(newest)/bin"
    }

    init() throws {
        Self.removeAbandoned()
        bin = try Self.binaries()
        runAsNobody = getuid() == 0
        var template = Array("/tmp/\(Self.prefix)XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "cannot make a temp folder") }
        folder = String(cString: made)
        try "\(getpid())".write(toFile: "\(folder)/owner.pid", atomically: true, encoding: .utf8)
        if runAsNobody {
            chown(folder, 65534, 65534)
            chmod(folder, 0o700)
        }
        do {
            try run("initdb", ["-D", "\(folder)/data", "-U", "relay", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"])
            // Not through a pipe: the server it leaves running would hold the pipe open.
            try run("pg_ctl", ["-D", "\(folder)/data", "-l", "\(folder)/server.log", "-w", "-t", "60", "-o",
                               "-k \(folder) -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300",
                               "start"], capture: false)
        } catch {
            stop()
            throw error
        }
    }

    /// A URL for a new, empty database.
    public func newDatabase() throws -> String { url(database: try createDatabase()) }

    /// A new, empty database; returns its name.
    public func createDatabase() throws -> String {
        let name = "relay_\(getpid())_\(counter.withLock { n in n += 1; return n })"
        try run("createdb", ["-h", folder, "-U", "relay", name])
        return name
    }

    public func url(database: String) -> String {
        "postgres://relay@/\(database)?host=\(folder)"
    }

    /// Runs a SQL statement with psql (for tests that look at rows directly).
    @discardableResult
    public func psql(_ database: String, _ sql: String) throws -> String {
        try run("psql", ["-h", folder, "-U", "relay", "-d", database, "-At", "-v", "ON_ERROR_STOP=1", "-c", sql])
    }

    /// Runs a file of SQL with psql (a dump: a database older code made).
    public func psql(_ database: String, file: String) throws {
        try run("psql", ["-h", folder, "-U", "relay", "-d", database, "-q", "-v", "ON_ERROR_STOP=1", "-f", file])
    }

    /// Runs one of the PostgreSQL programs (as nobody when we are root) and waits with
    /// waitpid; its output goes to a file, never a pipe (pg_ctl leaves a server running
    /// that would hold a pipe open).
    @discardableResult
    func run(_ tool: String, _ arguments: [String], capture: Bool = true) throws -> String {
        // From / (nobody may not be able to read the test's folder).
        let argv = ["/usr/bin/env", "-C", "/"] + (runAsNobody
            ? ["/usr/bin/setpriv"] + OtherUser.setpriv + ["\(bin)/\(tool)"] + arguments
            : ["\(bin)/\(tool)"] + arguments)
        let outputPath = "/tmp/vfs-pg-run-\(getpid())-\(UUID().uuidString)"
        defer { unlink(outputPath) }
        let ran: (text: String, succeeded: Bool, status: Int32)
        do {
            ran = try spawnAndWait(argv, output: capture ? outputPath : "/dev/null")
        } catch {
            throw Failure(description: "\(error)")
        }
        guard ran.succeeded else { throw Failure(description: "\(tool) failed (status \(ran.status)): \(ran.text.suffix(600))") }
        return ran.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stops the server (immediately) and removes the folder; idempotent.
    public func stop() {
        guard stopped.withLock({ done in defer { done = true }; return !done }) else { return }
        if FileManager.default.fileExists(atPath: "\(folder)/data/postmaster.pid") {
            _ = try? run("pg_ctl", ["-D", "\(folder)/data", "-m", "immediate", "-w", "stop"])
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Clusters whose test process is gone (killed before its exit handler ran).
    static func removeAbandoned() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? [] where name.hasPrefix(prefix) {
            let folder = "/tmp/\(name)"
            guard let text = try? String(contentsOfFile: "\(folder)/owner.pid", encoding: .utf8),
                  let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            if let server = try? String(contentsOfFile: "\(folder)/data/postmaster.pid", encoding: .utf8),
               let line = server.split(separator: "\n").first, let postmaster = Int32(line) {
                kill(postmaster, SIGQUIT)
                for _ in 0..<50 where kill(postmaster, 0) == 0 { usleep(100_000) }
            }
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
}
