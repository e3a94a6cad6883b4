import Foundation
import NIOCore
import Prometheus

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
    /// The uploads one user may hold at once (finished ones not yet sent count too).
    public var maxOpenUploads = 100
    /// The cloud files and folders one user may hold (an empty file or folder costs no
    /// quota, so this bounds them); one more is answered 507 `too_many_entries`.
    public var maxCloudEntries = 100_000
    /// How long an undelivered transfer waits, unless its sender says otherwise.
    var transferLifetime: TimeInterval = 7 * 86400
    /// The longest lifetime a sender may ask for.
    var maxTransferLifetime: TimeInterval = 90 * 86400
    /// How long an unfinished upload is kept.
    var uploadLifetime: TimeInterval = 86400
    /// An upload that gets no bytes for this long expires (its bytes and quota freed, the
    /// copies of a transfer made of it while it uploaded `expired`): an interrupted or
    /// abandoned push never holds space or keeps its receivers waiting for longer.
    public var uploadIdleExpiry: TimeInterval = 3600
    /// How long an enrolment code works.
    var enrolmentCodeLifetime: TimeInterval = 15 * 60
    /// How long an admin web page sign-in code works, and how long its session lasts.
    var loginCodeLifetime: TimeInterval = 10 * 60
    var adminSessionLifetime: TimeInterval = 8 * 3600
    /// How long events are kept for devices that are offline.
    var eventRetention: TimeInterval = 30 * 86400
    /// The comment that keeps idle event streams open through proxies.
    public var keepAliveInterval: Duration = .seconds(15)
    /// How often expired transfers and uploads and orphan blobs are collected.
    public var sweepInterval: Duration = .seconds(600)
    /// How often the server looks for events stored by other processes (admin alerts).
    public var watchInterval: Duration = .seconds(1)
    /// How long `/v1/health` waits for the database before answering 503 (a pool that
    /// waits to reconnect must not hold a load balancer's check up).
    public var healthDatabaseTimeout: Duration = .seconds(2)
    /// Where `GET /metrics` reads from (`serve --metrics`); nil: no such route.
    public var metrics: PrometheusCollectorRegistry?
    /// Clients besides loopback that may read the metrics.
    public var metricsFrom: [CIDR] = []
    /// Proxies whose `proxyHeader` names the client (nginx in front); from anyone else it
    /// is ignored.
    public var trustedProxies: [CIDR] = []
    /// The one header the trusted proxies name the client in; nil (the default): none is
    /// believed, whoever sends it.
    public var proxyHeader: ProxyHeader?
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
    /// Connections one client address may hold at once; one more is closed as soon as it
    /// opens (nginx's `limit_conn`), so one address cannot fill `maxConnections`. The
    /// `trustedProxies` are not counted (each carries many clients).
    public var maxConnectionsPerAddress = 256
    /// A connection whose first request head has not arrived this long after it opened is
    /// closed (nginx's `client_header_timeout`); never longer than `idleTimeout`.
    public var firstRequestTimeout: Duration = .seconds(10)
    /// Event streams one device may hold open at once; one more is answered 429.
    public var maxEventStreamsPerDevice = 8
    /// What one user, and all the users of one organisation, may hold at once, so that one
    /// token (which can mint devices, each with its streams) cannot take what every user
    /// shares. Live devices and unused invitation codes are counted in the database (every
    /// instance); requests in flight and event streams by each relay instance.
    public var limits = UsageLimits()
    /// Free space kept on the blob folder's disk: uploads stop with 507 before it, so the
    /// database (and everyone else's enrolments, deletes and gc) can still write.
    public var diskReserve = DiskReserve.standard
    /// How long a stop waits for requests in flight before cancelling them.
    public var shutdownGrace: Duration = .seconds(5)

    /// A PostgreSQL database instead of DIR/relay.sqlite: several instances share it.
    public var database: PostgresLocation?
    /// Where blob and upload files live (default: the data folder). With several
    /// instances, a folder every instance mounts (NFS, CephFS).
    public var blobFolder: URL?
    /// Blobs in an S3-compatible store instead (`--blobs s3://…`); uploads in progress
    /// are staged in the data folder.
    public var objectStore: ObjectStoreSettings?

    /// PEM files of the certificate chain and its private key: serve HTTPS when set.
    public var tls: (certificate: String, key: String)?

    public init(dataFolder: URL, host: String = "127.0.0.1", port: Int = 8787) {
        self.dataFolder = dataFolder
        self.host = host
        self.port = port
    }

    public var databasePath: String { dataFolder.appendingPathComponent("relay.sqlite").path }

    /// When an upload made at `created` expires if it gets no more bytes after `now`: after
    /// the idle expiry, and never past its whole lifetime.
    func uploadExpiry(created: Date, now: Date) -> Date {
        min(created.addingTimeInterval(uploadLifetime), now.addingTimeInterval(uploadIdleExpiry))
    }
}

extension RelayConfiguration {
    /// The S3 store's settings as the relay uses them: a request to the store (not a
    /// client's download) that gets no answer for two thirds of `idleTimeout` fails, and
    /// the relay answers 503 with Retry-After, before the idle timeout would cut the
    /// client's own connection (a PATCH waiting on a hung store answered nothing at all).
    public var objectStoreInUse: ObjectStoreSettings? {
        guard var settings = objectStore else { return nil }
        let idle = idleTimeout.components
        let bound = TimeAmount.milliseconds(max(1000, (idle.seconds * 1000 + idle.attoseconds / 1_000_000_000_000_000) * 2 / 3))
        settings.readTimeout = min(settings.readTimeout, bound)
        settings.connectTimeout = min(settings.connectTimeout, bound)
        return settings
    }

    /// Bytes that may still be written to the blob folder's disk before the reserve (0 or
    /// less: none).
    public var diskRoom: Int64 {
        let folder = blobFolder ?? dataFolder
        guard let space = DiskSpace(folder.path) else { return .max }
        return space.available - diskReserve.bytes(of: space.total)
    }

    /// The SQLite data folder's ballast; nil with PostgreSQL.
    public var ballast: Ballast? { database == nil ? Ballast(folder: dataFolder) : nil }
}

/// Space left free on the relay's disk: a size, or a share of the file system.
public struct DiskReserve: Sendable, Equatable {
    public var bytes: Int64?
    public var percent: Int64?
    /// The most a share may come to (the default's cap).
    public var cap: Int64 = .max

    /// 5 % of the file system, at most 1 GiB.
    public static let standard = DiskReserve(bytes: nil, percent: 5, cap: 1 << 30)

    public init(bytes: Int64? = nil, percent: Int64? = nil, cap: Int64 = .max) {
        self.bytes = bytes
        self.percent = percent
        self.cap = cap
    }

    /// The reserve on a file system of `total` bytes.
    public func bytes(of total: Int64) -> Int64 {
        if let bytes { return bytes }
        guard let percent else { return 0 }
        return min(cap, total / 100 * percent)
    }
}

/// What `statvfs` says of the file system holding a path.
struct DiskSpace {
    /// Bytes an unprivileged process may still write.
    let available: Int64
    let total: Int64

    init?(_ path: String) {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let unit = Int64(info.f_frsize)
        let (free, o1) = Int64(clamping: info.f_bavail).multipliedReportingOverflow(by: unit)
        let (size, o2) = Int64(clamping: info.f_blocks).multipliedReportingOverflow(by: unit)
        available = o1 ? .max : free
        total = o2 ? .max : size
    }
}

/// The caps on one user and one organisation (`serve --max-devices` and the others).
public struct UsageLimits: Sendable, Equatable {
    /// Live devices of one user (pending ones too); one more enrolment is 403.
    public var devices = 32
    /// Live devices of one organisation.
    public var orgDevices = 10_000
    /// Unused, unexpired invitation codes a user's devices asked for (POST /v1/invites);
    /// one more is 429 until one is used or expires. The operator's codes are not counted.
    public var openInvites = 10
    /// Event streams of all of one user's devices at once (each device also at most
    /// `maxEventStreamsPerDevice`); one more is 429.
    public var userEventStreams = 32
    public var orgEventStreams = 2048
    /// Requests of one user's devices in flight at once (each holds a connection while it
    /// is answered, an event stream for as long as it is open); one more is 429.
    public var userRequests = 64
    public var orgRequests = 2048

    public init() {}
}

extension RelayConfiguration {
    /// When a transfer or share link asked to expire at `asked` (nil: the default lifetime)
    /// expires: in the future and within the longest lifetime, else a 400 saying so.
    func expiry(asked: Date?, now: Date) throws -> Date {
        let expires = asked ?? now.addingTimeInterval(transferLifetime)
        guard expires > now, expires <= now.addingTimeInterval(maxTransferLifetime) else {
            throw RelayError.badRequest("expires must be in the future and at most \(Int(maxTransferLifetime / 86400)) days away")
        }
        return expires
    }
}
