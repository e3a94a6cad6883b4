import Crypto
import Foundation
import Logging
import PostgresNIO
import VFSPolicyModel
import VFSRelayProtocol

typealias PGRow = PostgresRandomAccessRow

/// One connection, in a transaction or not, with the few shapes of query the store uses.
/// Every value goes in as a bound parameter (PostgresQuery's interpolation), never into
/// the SQL text.
struct PGSession {
    let connection: PostgresConnection
    let logger: Logger

    func all(_ query: PostgresQuery) async throws -> [PGRow] {
        var rows = [PGRow]()
        for try await row in try await connection.query(query, logger: logger) { rows.append(row.makeRandomAccess()) }
        return rows
    }

    func one(_ query: PostgresQuery) async throws -> PGRow? { try await all(query).first }

    func run(_ query: PostgresQuery) async throws {
        for try await _ in try await connection.query(query, logger: logger) {}
    }

    func value<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self) async throws -> T? {
        guard let row = try await one(query), row[0].bytes != nil else { return nil }
        return try row[0].decode(T.self)
    }

    func values<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self) async throws -> [T] {
        try await all(query).map { try $0[0].decode(T.self) }
    }
}

/// Where a `postgres://` URL points: host and port or a unix socket folder
/// (`?host=/run/postgresql`), user, password, database, `sslmode`.
public struct PostgresLocation: Sendable, Equatable {
    public var host: String?
    public var port: Int
    var socketFolder: String?
    public var user: String
    public var password: String?
    public var database: String?
    var requireTLS: Bool

    /// nil when `text` is not a postgres:// or postgresql:// URL.
    public init?(url text: String) {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? "") else {
            return nil
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        host = components.host.flatMap { $0.isEmpty ? nil : $0 }
        port = components.port ?? Int(query["port"] ?? "") ?? 5432
        if let folder = query["host"], folder.hasPrefix("/") {
            socketFolder = folder
        } else if let name = query["host"], !name.isEmpty {
            host = name
        }
        guard host != nil || socketFolder != nil else { return nil }
        user = components.user ?? query["user"] ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        password = components.password ?? query["password"]
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? nil : path
        switch query["sslmode"] ?? "disable" {
        case "require", "verify-ca", "verify-full": requireTLS = true
        default: requireTLS = false
        }
    }

    var configuration: PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketFolder {
            configuration = .init(unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: password,
                                  database: database)
        } else {
            configuration = .init(host: host ?? "localhost", port: port, username: user, password: password, database: database,
                                  tls: requireTLS ? .require(.makeClientConfiguration()) : .disable)
        }
        configuration.options.maximumConnections = 16
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }
}

/// The store for several relay instances: one PostgreSQL database through postgres-nio's
/// connection pool. Every change that moves a reference count or a status runs in one
/// transaction that locks the rows it changes (`FOR UPDATE`, `UPDATE … RETURNING`), so
/// two instances racing on one transfer neither double-count nor lose a reference.
/// Events also go out, after their commit, as `NOTIFY vfs_events, 'DEVICE'` so other instances wake the
/// device's streams at once.
public final class PostgresRelayStore: SQLRelayStore, EventNotifications {
    let client: PostgresClient
    let logger: Logger
    private let runner: Task<Void, Never>
    static let eventChannel = "vfs_events"
    public var eventNotifications: any EventNotifications { self }
    public var sql: SQLHandle { SQLHandle(database: PostgresSQLDatabase(store: self), notify: { [self] in await notify($0) }) }

    /// Connects and runs the migrations (under the advisory lock) when `migrate` is set.
    public init(location: PostgresLocation, migrate: Bool = true, logger: Logger = Logger(label: "vfs-relay.postgres")) async throws {
        client = PostgresClient(configuration: location.configuration, backgroundLogger: logger)
        let client = self.client
        runner = Task { await client.run() }
        self.logger = logger
        do {
            // Fails fast when the database is not there (the pool itself would wait for it).
            try await Self.withTimeout(.seconds(30), "no answer from the database in 30 s") {
                _ = try await client.query("SELECT 1", logger: logger)
            }
            if migrate { try await PostgresMigrations.migrate(client, logger: logger) }
        } catch {
            runner.cancel()
            throw error
        }
    }

    deinit { runner.cancel() }

    struct Timeout: Error, CustomStringConvertible { let description: String }

    static func withTimeout(_ limit: Duration, _ message: String, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw Timeout(description: message)
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Closes the pool's connections.
    public func shutdown() async {
        runner.cancel()
        _ = await runner.value
    }

    /// Runs the migrations not yet applied; returns their names.
    public func migrate() async throws -> [String] { try await PostgresMigrations.migrate(client, logger: logger) }

    /// The connection an upload's writer lock is held on, by store: inside
    /// `withUploadWriteLock` this store's queries run on it, so a writer never waits for a
    /// second connection of the pool (long PATCHes holding every connection would wait forever).
    @TaskLocal static var lockConnection: (store: ObjectIdentifier, connection: PostgresConnection)?

    var heldConnection: PostgresConnection? {
        Self.lockConnection.flatMap { $0.store == ObjectIdentifier(self) ? $0.connection : nil }
    }

    func read<T: Sendable>(_ body: (PGSession) async throws -> T) async throws -> T {
        if let held = heldConnection { return try await body(PGSession(connection: held, logger: logger)) }
        return try await client.withConnection { connection in try await body(PGSession(connection: connection, logger: logger)) }
    }

    /// Runs `body` in a transaction, again (after a short random wait) when PostgreSQL
    /// chose it as a deadlock's victim or failed its serialization: a rolled-back
    /// transaction is safe to run again.
    func write<T: Sendable>(_ body: (PGSession) async throws -> T) async throws -> T {
        try await Self.retrying { try await transaction(body) }
    }

    func transaction<T: Sendable>(_ body: (PGSession) async throws -> T) async throws -> T {
        do {
            if let held = heldConnection {
                return try await held.withTransaction(logger: logger) { connection in
                    try await body(PGSession(connection: connection, logger: logger))
                }
            }
            return try await client.withTransaction(logger: logger) { connection in
                try await body(PGSession(connection: connection, logger: logger))
            }
        } catch let error as PostgresTransactionError {
            // The closure's own error (a StoreError) is what the caller wants to see.
            if let closure = error.closureError { throw Self.mapped(closure) }
            if let commit = error.commitError { throw Self.mapped(commit) }
            throw error
        } catch {
            throw Self.mapped(error)
        }
    }

    /// SQLSTATEs after which the whole transaction may simply run again: deadlock
    /// detected (one of the transactions waiting in a circle is rolled back) and
    /// serialization failure.
    static let retryableStates: Set<String> = ["40P01", "40001"]
    static let attempts = 5

    static func retrying<T>(_ attempt: () async throws -> T) async throws -> T {
        var failures = 0
        while true {
            do {
                return try await attempt()
            } catch let error as PSQLError where failures + 1 < attempts && retryableStates.contains(error.serverInfo?[.sqlState] ?? "") {
                failures += 1
                // Jitter: the transactions that met do not come back in step.
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(10 << failures))))
            }
        }
    }

    /// A unique violation is a conflict (two instances creating the same thing at once).
    static func mapped(_ error: any Error) -> any Error {
        if let error = error as? PSQLError, error.serverInfo?[.sqlState] == "23505" {
            return StoreError.conflict("already exists (\(error.serverInfo?[.constraintName] ?? "unique"))")
        }
        return error
    }

    /// One line for an error of postgres-nio (whose description hides the server's message).
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return message + (error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? "")
        }
        if let underlying = error.underlying { return "\(underlying)" }
        return "\(error.code)"
    }

    /// Tells every instance (LISTEN on `eventChannel`) that these devices have new events,
    /// after their commit. A NOTIFY that fails loses nothing: the events are stored, and
    /// every instance's poll finds them.
    func notify(_ devices: [String]) async {
        guard !devices.isEmpty else { return }
        do {
            try await read { db in
                try await db.run("SELECT pg_notify(\(Self.eventChannel), d) FROM (SELECT DISTINCT d FROM unnest(\(devices)::text[]) AS t(d)) AS u")
            }
        } catch {
            logger.warning("notify: \(Self.describe(error))")
        }
    }

    // MARK: - operator

    public func backup(to path: String) async throws {
        throw StoreError.invalid("a PostgreSQL relay is backed up with pg_dump, not vfs-relay backup")
    }

    // MARK: - events

    /// LISTEN on one pooled connection, for every instance's NOTIFYs; a lost connection
    /// ends it with an error.
    public func listenForEvents(_ wake: @escaping @Sendable (String) -> Void) async throws {
        try await client.withConnection { connection in
            try await connection.listen(on: Self.eventChannel) { notifications in
                for try await notification in notifications { wake(notification.payload) }
            }
        }
    }

    // MARK: - across instances

    public func withMaintenanceLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T? {
        try await client.withConnection { connection in
            let session = PGSession(connection: connection, logger: logger)
            guard try await session.value("SELECT pg_try_advisory_lock(\(PostgresMigrations.sweepKey))", as: Bool.self) == true else {
                return nil
            }
            do {
                let result = try await body()
                try await session.run("SELECT pg_advisory_unlock(\(PostgresMigrations.sweepKey))")
                return result
            } catch {
                try? await session.run("SELECT pg_advisory_unlock(\(PostgresMigrations.sweepKey))")
                throw error
            }
        }
    }

    /// An upload's advisory lock key: the first 8 bytes of SHA-256("vfs-upload:" + id).
    static func uploadLockKey(_ id: String) -> Int64 {
        SHA256.hash(data: Array("vfs-upload:\(id)".utf8)).prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }

    /// A session advisory lock on a connection of its own, held while `body` runs (a PATCH
    /// streams for as long as the client sends) and unlocked before the connection goes
    /// back to the pool. `body`'s queries run on that connection. A connection that cannot
    /// unlock is closed instead, which drops its locks: none outlives its request, and a
    /// relay that dies drops them with its connections.
    /// The writers' locks are PostgreSQL's (on any instance): none is known here, and an
    /// upload being written moves its expiry at least every sync, so none expires mid-PATCH.
    public func uploadsBeingWritten() -> Set<String> { [] }

    public func withUploadWriteLock<T: Sendable>(_ id: String, _ body: () async throws -> T) async throws -> T? {
        let key = Self.uploadLockKey(id)
        return try await client.withConnection { connection in
            let session = PGSession(connection: connection, logger: logger)
            guard try await session.value("SELECT pg_try_advisory_lock(\(key))", as: Bool.self) == true else { return nil }
            let result: Result<T, any Error>
            do {
                result = .success(try await Self.$lockConnection.withValue((ObjectIdentifier(self), connection)) { try await body() })
            } catch {
                result = .failure(error)
            }
            let unlocked = try? await session.value("SELECT pg_advisory_unlock(\(key))", as: Bool.self)
            if unlocked != true {
                logger.warning("upload \(id): its writer lock was not released on its connection; closing the connection")
                try? await connection.close()
            }
            return try result.get()
        }
    }
}
