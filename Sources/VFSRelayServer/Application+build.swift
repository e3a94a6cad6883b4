import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOSSL
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle
import VFSRelayProtocol

/// The relay as the executable runs it: the HTTP application plus the services beside it.
public struct RelayServer: Sendable {
    public let application: Application<RouterResponder<RelayRequestContext>>
    /// The event watcher and the sweeper.
    public let services: [any Service]
    let shutdownGrace: Duration

    /// Runs until SIGTERM or SIGINT. The event streams close first, so the HTTP server
    /// then stops without waiting on them; unfinished uploads stay resumable.
    public func run() async throws {
        var configuration = ServiceGroupConfiguration(
            services: [application] + services, gracefulShutdownSignals: [.sigterm, .sigint],
            logger: application.logger)
        // A request that never ends (a stalled PATCH) must not hold the stop up forever;
        // what it wrote so far is kept.
        configuration.maximumGracefulShutdownDuration = shutdownGrace
        configuration.maximumCancellationDuration = .seconds(5)
        try await ServiceGroup(configuration: configuration).run()
    }
}

/// Opens the data folder (database and blobs) with the embedded SQLite store.
public func openStore(_ configuration: RelayConfiguration) throws -> (SQLiteRelayStore, FileBlobStore) {
    try FileManager.default.createDirectory(at: configuration.dataFolder, withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o700])
    // SQLite would create the database under the umask (0644 under 022), readable by every
    // local user even in a 0755 folder: create it first, 0600 (its -wal and -shm follow it).
    // An existing database is the operator's, left as it is.
    try PrivateFile.create(configuration.databasePath, existing: .keep)
    return (try SQLiteRelayStore(path: configuration.databasePath), try FileBlobStore(root: configuration.dataFolder))
}

/// Opens the configured store: PostgreSQL when `database` is set (migrating it under
/// the advisory lock when `migrate`), else the data folder's SQLite database; blobs
/// under `blobFolder` or the data folder.
public func openRelayStore(_ configuration: RelayConfiguration, migrate: Bool = true,
                           logger: Logger = Logger(label: "vfs-relay")) async throws -> (any RelayStore, any BlobStore) {
    guard let database = configuration.database else {
        let (store, blobs) = try openStore(configuration)
        return (store, configuration.objectStoreInUse.map { S3BlobStore($0, records: store) } ?? blobs)
    }
    func postgres() async throws -> PostgresRelayStore {
        do {
            return try await PostgresRelayStore(location: database, migrate: migrate, logger: logger)
        } catch {
            throw DatabaseUnavailable(message: PostgresRelayStore.describe(error))
        }
    }
    // Blobs in a bucket keep uploads in progress in the database: nothing on the disk.
    if let settings = configuration.objectStoreInUse {
        let store = try await postgres()
        return (store, S3BlobStore(settings, records: store))
    }
    let folder = configuration.blobFolder ?? configuration.dataFolder
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let files = try FileBlobStore(root: folder)
    return (try await postgres(), files)
}

/// The database could not be reached or refused us; `message` says why in one line.
public struct DatabaseUnavailable: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Builds the relay. `onReady` gets the bound port once the server listens.
public func buildRelay(_ configuration: RelayConfiguration, logger: Logger = Logger(label: "vfs-relay"),
                       onReady: @escaping @Sendable (Int) async -> Void = { _ in }) async throws -> RelayServer {
    let (store, blobs) = try await openRelayStore(configuration, logger: logger)
    configuration.ballast?.ensure(room: configuration.diskRoom)
    let hub = EventHub()
    let router = buildRouter(store: store, blobs: blobs, hub: hub, configuration: configuration, logger: logger)
    let application = Application(
        router: router, server: try serverBuilder(configuration),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil,
                             availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections, logger: logger)),
        onServerRunning: { channel in await onReady(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
    let maintenance = RelayMaintenance(store: store, blobs: blobs, configuration: configuration)
    let services: [any Service] = [
        EventWatcher(hub: hub, store: store, interval: configuration.watchInterval),
        SweeperService(maintenance: maintenance, interval: configuration.sweepInterval, logger: logger),
        EventListener(notifications: store.eventNotifications, hub: hub, logger: logger),
    ]
    return RelayServer(application: application, services: services, shutdownGrace: configuration.shutdownGrace)
}

/// HTTP/1.1, inside TLS when a certificate and key are configured; idle connections
/// (half-open, slow headers, stalled bodies) closed after `idleTimeout`, one without its
/// first request after `firstRequestTimeout`, and one address's connections past
/// `maxConnectionsPerAddress` at once (`ConnectionGate`).
func serverBuilder(_ configuration: RelayConfiguration) throws -> HTTPServerBuilder {
    let seconds = configuration.idleTimeout.components.seconds
    let connections = ConnectionsByAddress(limit: configuration.maxConnectionsPerAddress)
    let exempt = configuration.trustedProxies
    let firstRequest = TimeAmount(min(configuration.firstRequestTimeout, configuration.idleTimeout))
    // The served registry's counters (the same ones the router's RelayMetrics holds).
    let metrics = RelayMetrics(registry: configuration.metrics ?? PrometheusCollectorRegistry())
    let http1 = HTTPServerBuilder.http1(configuration: .init(
        additionalChannelHandlers: [ConnectionGate(connections: connections, exempt: exempt, firstRequestTimeout: firstRequest,
                                                   metrics: metrics)],
        idleTimeout: .seconds(max(1, seconds))))
    guard let tls = configuration.tls else { return http1 }
    let chain = try NIOSSLCertificate.fromPEMFile(tls.certificate).map { NIOSSLCertificateSource.certificate($0) }
    let key = try NIOSSLPrivateKey(file: tls.key, format: .pem)
    let settings = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
    return try .tls(http1, tlsConfiguration: settings)
}

/// Every route, its controller and middleware: request log and metrics outermost (they
/// see the final answer), then HEAD's bodies dropped and tus's `Tus-Resumable` added,
/// then errors as JSON, then (for all but health, enrolment, tus discovery and the admin
/// web page, which has its own session cookie) the device token. Every GET route also
/// answers HEAD.
public func buildRouter(store: any RelayStore, blobs: any BlobStore, hub: EventHub, configuration: RelayConfiguration,
                        logger: Logger) -> Router<RelayRequestContext> {
    // The composition root: each controller gets the repositories it calls (docs/relay.md, "Repositories").
    let services = RelayServices(uploads: store, blobs: blobs, hub: hub, configuration: configuration)
    // HEAD runs a GET route's handler (RFC 9110: a general-purpose server MUST support HEAD).
    let router = Router(context: RelayRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.addMiddleware {
        ClientAddressMiddleware(resolver: ClientAddressResolver(trusted: configuration.trustedProxies, header: configuration.proxyHeader))
        RequestLogMiddleware(logger: logger, metrics: services.metrics)
        HeadMiddleware()
        TusResumableMiddleware()
        ErrorMiddleware(metrics: services.metrics)
        CanonicalPathMiddleware()
    }
    if let registry = configuration.metrics {
        MetricsController(registry: registry, allowed: configuration.metricsFrom).addRoutes(to: router)
    }
    HealthController(store: store, databaseTimeout: configuration.healthDatabaseTimeout).addRoutes(to: router)
    OpenAPIController().addRoutes(to: router)
    EnrollController(services: services, store: store,
                     throttle: EnrolmentThrottle(store: store, limit: configuration.enrolmentFailureLimit,
                                                 lockout: configuration.enrolmentLockout)).addRoutes(to: router)
    AdminController(services: services, store: store,
                    items: ItemController(services: services, store: store, base: RelayPaths.items)).addRoutes(to: router)
    let authenticated = router.group().add(middleware: AuthMiddleware(store: store))
        .add(middleware: TokenScopeMiddleware())
        .add(middleware: UsageLimitMiddleware(counts: services.usage, limits: configuration.limits))
    DeviceController(services: services, store: store).addRoutes(to: authenticated)
    ChainController(store: store).addRoutes(to: authenticated)
    InviteController(services: services, store: store).addRoutes(to: authenticated)
    AdminLoginCodeController(services: services, store: store).addRoutes(to: authenticated)
    GroupController(store: store).addRoutes(to: authenticated)
    OrgGroupController(store: store).addRoutes(to: authenticated)
    let uploads = UploadController(services: services, store: store)
    uploads.addRoutes(discovery: router, to: authenticated)
    TransferController(services: services, store: store,
                       follower: UploadFollower(store: store, hub: hub, recheck: configuration.watchInterval)).addRoutes(to: authenticated)
    EventController(services: services, store: store).addRoutes(to: authenticated)
    CloudController(services: services, store: store).addRoutes(to: authenticated)
    CloudHistoryController(services: services, store: store).addRoutes(to: authenticated)
    ItemController(services: services, store: store, base: RelayPaths.items).addRoutes(to: authenticated)
    ItemController(services: services, store: store, base: RelayPaths.legacyItems).addRoutes(to: authenticated)
    PolicySettingsController(store: store).addRoutes(to: authenticated)
    ShareController(services: services, store: store).addRoutes(public: router, to: authenticated)
    FileRequestController(services: services, store: store, uploads: uploads).addRoutes(public: router, to: authenticated)
    // Last: it wraps only the not-found answer, and knows every route by now.
    router.addMiddleware {
        MethodNotAllowedMiddleware(routes: RouteMethods(router.routes.map { ($0.path.description, $0.method.rawValue) }))
    }
    return router
}

/// A new file only its owner reads, whatever the umask: created with
/// `O_EXCL|O_NOFOLLOW` (never through a link, never over a file) and mode 0600.
public enum PrivateFile {
    public enum Existing: Sendable { case keep, refuse }

    /// Creates the empty file at `path`; false when something is already there and `existing`
    /// is `.keep`. Throws `POSIXError` otherwise (EEXIST for a file or link already there).
    @discardableResult
    public static func create(_ path: String, existing: Existing) throws -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            if code == EEXIST, existing == .keep { return false }
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        defer { close(fd) }
        guard fchmod(fd, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return true
    }
}
