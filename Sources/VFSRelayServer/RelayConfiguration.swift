import Foundation

/// Everything `serve` can be told; the defaults are the documented ones.
public struct RelayConfiguration: Sendable {
    /// The data folder: `relay.sqlite` and the blob folders.
    public var dataFolder: URL
    public var host: String
    /// 0 picks a free port (the ready line says which).
    public var port: Int
    /// The largest single upload, in bytes.
    public var maxUploadSize: Int64 = 8 << 30
    /// What one user may hold at once: uploads, waiting transfers and cloud files.
    public var userQuota: Int64 = 32 << 30
    /// How long an undelivered transfer waits, unless its sender says otherwise.
    public var transferLifetime: TimeInterval = 7 * 86400
    /// The longest lifetime a sender may ask for.
    public var maxTransferLifetime: TimeInterval = 90 * 86400
    /// How long an unfinished upload is kept.
    public var uploadLifetime: TimeInterval = 86400
    /// How long an enrolment code works.
    public var enrolmentCodeLifetime: TimeInterval = 15 * 60
    /// How long an admin web page sign-in code works, and how long its session lasts.
    public var loginCodeLifetime: TimeInterval = 10 * 60
    public var adminSessionLifetime: TimeInterval = 8 * 3600
    /// How long events are kept for devices that are offline.
    public var eventRetention: TimeInterval = 30 * 86400
    /// The comment that keeps idle event streams open through proxies.
    public var keepAliveInterval: Duration = .seconds(15)
    /// How often expired transfers and uploads and orphan blobs are collected.
    public var sweepInterval: Duration = .seconds(600)
    /// How often the server looks for events stored by other processes (admin alerts).
    public var watchInterval: Duration = .seconds(1)
    /// How long `/v1/health` waits for the database before answering 503 (a pool that
    /// waits to reconnect must not hold a load balancer's check up).
    public var healthDatabaseTimeout: Duration = .seconds(2)
    /// Wrong enrolment codes in a row from one address before it must wait.
    public var enrolmentFailureLimit = 5
    public var enrolmentLockout: TimeInterval = 15 * 60
    /// Files younger than this are never taken for orphans (a blob being made).
    public var orphanGrace: TimeInterval = 60
    /// A connection that sends nothing for this long (no request head, a stalled body, an
    /// idle keep-alive) is closed; a request being answered (an event stream, a download)
    /// is not idle.
    public var idleTimeout: Duration = .seconds(30)
    /// Connections open at once; more wait in the listen backlog until one closes. Each
    /// connection may hold a second descriptor (a blob it streams), so `serve` keeps this
    /// under half its open-file limit.
    public var maxConnections = 4096
    /// Event streams one device may hold open at once; one more is answered 429.
    public var maxEventStreamsPerDevice = 8
    /// How long a stop waits for requests in flight before cancelling them.
    public var shutdownGrace: Duration = .seconds(5)

    /// A PostgreSQL database instead of DIR/relay.sqlite: several instances share it.
    public var database: PostgresLocation?
    /// Where blob and upload files live (default: the data folder). With several
    /// instances, a folder every instance mounts (NFS, CephFS).
    public var blobFolder: URL?

    /// PEM files of the certificate chain and its private key: serve HTTPS when set.
    public var tls: (certificate: String, key: String)?

    public init(dataFolder: URL, host: String = "127.0.0.1", port: Int = 8787) {
        self.dataFolder = dataFolder
        self.host = host
        self.port = port
    }

    public var databasePath: String { dataFolder.appendingPathComponent("relay.sqlite").path }
}
