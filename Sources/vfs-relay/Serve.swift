import ArgumentParser
import Foundation
import Logging
import VFSCommandLine
import VFSCore
import VFSRelayServer

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the relay API in the foreground until SIGTERM or SIGINT.",
        discussion: """
        Prints one line on stdout once listening (`vfs-relay: listening on http://HOST:PORT`; \
        --listen 127.0.0.1:0 picks a free port). Logs warnings and errors on stderr; \
        --log-level info adds one line per request (method, path, status, time, peer).

        With --database postgres://…, several relays share one PostgreSQL database and one \
        --blobs folder (NFS, CephFS: every instance mounts it) behind a load balancer; serve \
        migrates the schema at start under an advisory lock, and GET /v1/health answers 503 \
        when the database does not. With --blobs s3://…, serve first lists the bucket once         and exits 69 when the S3 store does not answer, 77 when it refuses the key, 66 when         there is no such bucket.
        """)

    @OptionGroup var data: DataOptions

    @Option(help: ArgumentHelp("The address and port to listen on.", valueName: "host:port"))
    var listen = "127.0.0.1:8787"

    @Option(help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (with --tls-key).", valueName: "file"), completion: .file())
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"), completion: .file())
    var tlsKey: String?

    @Option(help: ArgumentHelp("The largest upload: bytes, or with a unit K, M, G, T (powers of 1024): 512M, 10G, 1.5T.", valueName: "size"))
    var maxUpload: String?

    @Option(help: ArgumentHelp("What one user may store at once: bytes, or with a unit K, M, G, T (powers of 1024): 10G.", valueName: "size"))
    var quota: String?

    @Option(help: ArgumentHelp("Uploads one user may hold at once, unfinished or not yet sent; one more is refused with 429.", valueName: "count"))
    var maxOpenUploads: Int = 100

    @Option(help: ArgumentHelp("Cloud files and folders one user may hold; one more is refused with 507 (too_many_entries).", valueName: "count"))
    var maxCloudEntries: Int = 100_000

    @Option(help: ArgumentHelp("Free space to keep on the disk of the blobs: a size (1G) or a share (5%); uploads past it are refused with 507 so the database and deletes still work (default: 5%, at most 1G).", valueName: "size|percent"))
    var diskReserve: String?

    @Option(help: ArgumentHelp("Seconds between keep-alive comments on event streams.", valueName: "seconds"))
    var keepAlive: Int = 15

    @Option(help: ArgumentHelp("Seconds between sweeps for expired transfers and orphan blobs.", valueName: "seconds"))
    var sweepInterval: Int = 600

    @Option(help: ArgumentHelp("Expire an upload that gets no bytes for this many seconds (an interrupted or abandoned push): its bytes and quota are freed and the transfer made of it while it uploaded expires for its targets (at the next sweep).", valueName: "seconds"))
    var uploadIdleExpiry: Int = 3600

    @Option(name: .customLong("trusted-proxy"), help: ArgumentHelp("A proxy in front of the relay (nginx), as an address or range: 127.0.0.1, 10.0.0.0/8, ::1. Only from these peers is --proxy-header taken as the client's address (for the wrong-code throttle, the log and --metrics). Repeatable; goes with --proxy-header.", valueName: "cidr"))
    var trustedProxies: [String] = []

    @Option(name: .customLong("proxy-header"), help: ArgumentHelp("The one header the --trusted-proxy sets to the client's address: x-forwarded-for (the shipped nginx site), x-real-ip or forwarded. Every other forwarding header is ignored, and without this option all are.", valueName: "name"))
    var proxyHeader: String?

    @Flag(help: ArgumentHelp("Serve GET /metrics in the Prometheus text format (requests and latencies by route, upload and download bytes, event streams, errors) to loopback clients and --metrics-from addresses."))
    var metrics = false

    @Option(name: .customLong("metrics-from"), help: ArgumentHelp("Another address or range (CIDR) that may read /metrics. Repeatable.", valueName: "cidr"))
    var metricsFrom: [String] = []

    @Option(help: ArgumentHelp("What to log on stderr: error, warning, info (adds a line per request), debug or trace.", valueName: "level"))
    var logLevel: LogLevel = .warning

    @Option(help: ArgumentHelp("Close a connection that sends nothing for this many seconds: no request, a stalled upload, an idle keep-alive (event streams and downloads being answered are not idle).", valueName: "seconds"))
    var idleTimeout: Int = 30

    @Option(help: ArgumentHelp("Connections open at once; more wait until one closes (default: under half the open-file limit, at most 16384).", valueName: "count"))
    var maxConnections: Int?

    @Option(help: ArgumentHelp("Event streams one device may hold open at once; one more is refused with 429.", valueName: "count"))
    var maxEventStreams: Int = 8

    @Option(help: ArgumentHelp("Live devices one user may have (pending ones too); one more enrolment is refused with 403.", valueName: "count"))
    var maxDevices: Int = UsageLimits().devices

    @Option(help: ArgumentHelp("Live devices of all the users of one organisation; one more enrolment is refused with 403.", valueName: "count"))
    var maxOrgDevices: Int = UsageLimits().orgDevices

    @Option(help: ArgumentHelp("Unused invitation codes one user's devices may hold at once (vfs-device invite; the operator's are not counted); one more is refused with 429 until one is used or expires.", valueName: "count"))
    var maxOpenInvites: Int = UsageLimits().openInvites

    @Option(help: ArgumentHelp("Event streams all of one user's devices may hold open at once (on this relay instance); one more is refused with 429.", valueName: "count"))
    var maxUserEventStreams: Int = UsageLimits().userEventStreams

    @Option(help: ArgumentHelp("Event streams all the devices of one organisation may hold open at once (on this instance); one more is refused with 429.", valueName: "count"))
    var maxOrgEventStreams: Int = UsageLimits().orgEventStreams

    @Option(help: ArgumentHelp("Requests of one user's devices in progress at once, each holding a connection (an event stream for as long as it is open; on this instance); one more is refused with 429.", valueName: "count"))
    var maxUserRequests: Int = UsageLimits().userRequests

    @Option(help: ArgumentHelp("Requests of one organisation's devices in progress at once (on this instance); one more is refused with 429.", valueName: "count"))
    var maxOrgRequests: Int = UsageLimits().orgRequests

    /// Seconds between looks for events other processes stored (admin alerts; with
    /// PostgreSQL, NOTIFY wakes the streams at once and this is the fallback). Tests
    /// raise it to show that NOTIFY alone carries events between instances.
    @Option(name: .customLong("event-poll"), help: .hidden)
    var eventPoll: Int = 1

    /// A size option's bytes, or a usage error naming the option.
    static func size(_ text: String, option: String) throws -> Int64 {
        do {
            return try SizeText.bytes(text)
        } catch let error as SizeText.ParseError {
            throw ToolError.usage("invalid \(option) \"\(text)\": \(error.reason)", hints: error.hints)
        }
    }

    /// An address or range option, or a usage error naming it.
    static func range(_ text: String, option: String) throws -> CIDR {
        guard let range = CIDR(text) else {
            throw ToolError.usage("invalid \(option) \"\(text)\"", hints: ["write an address or a range: 127.0.0.1, 10.0.0.0/8, ::1, fd00::/8"])
        }
        return range
    }

    /// `--disk-reserve`: a size, or a whole percentage of the file system (0 to 99).
    static func reserve(_ text: String) throws -> DiskReserve {
        if text.hasSuffix("%") {
            guard let percent = Int64(text.dropLast()), (0...99).contains(percent), text.first != "+" else {
                throw ToolError.usage("invalid --disk-reserve \"\(text)\": a share is a whole percentage, 0% to 99%")
            }
            return DiskReserve(percent: percent)
        }
        return DiskReserve(bytes: try size(text, option: "--disk-reserve"))
    }

    /// One `serve` per SQLite data folder (PostgreSQL relays share theirs on purpose): the
    /// lock `serve.lock` in it, held while serving, names the pid holding it. The kernel
    /// drops it when the process dies, so a killed relay leaves nothing stale.
    static func lockDataFolder(_ folder: URL) throws -> FileLock {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ToolError("cannot create the data folder \"\(folder.path)\": \(error.localizedDescription)", exit: .cannotCreate)
        }
        let base = folder.appendingPathComponent("serve").path
        do {
            let lock = try FileLock(for: base, exclusive: true, wait: false)
            lock.record("\(getpid())\n")
            return lock
        } catch {
            guard let failure = error as? IOError, failure.code == EWOULDBLOCK else {
                throw ToolError("cannot lock the data folder \"\(folder.path)\": \(error)", exit: .ioError)
            }
            let holder = (try? String(contentsOfFile: base + ".lock", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let who = holder.flatMap { Int32($0) }.map { "another vfs-relay serve (pid \($0))" } ?? "another vfs-relay serve"
            throw ToolError("\(who) is using the data folder \"\(folder.path)\"", exit: .temporaryFailure,
                            hints: ["stop it first, or serve another folder with --data DIR; admin commands work beside it"])
        }
    }

    /// The bucket of `--blobs s3://…` answers and the key may use it, or one line saying
    /// which of the three it is (69 unreachable, 77 refused, 66 no such bucket), before
    /// anything listens: not a 500 on the first upload.
    static func checkBucket(_ settings: ObjectStoreSettings) async throws {
        do {
            try await S3BlobStore.checkAccess(settings)
        } catch let error as ObjectStoreUnusable {
            switch error.reason {
            case .unreachable:
                throw ToolError("\(error)", exit: .unavailable, hints: ["check endpoint= in --blobs, and that the S3 service runs there"])
            case .denied:
                throw ToolError("\(error)", exit: .permissionDenied,
                                hints: ["check the key ($AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY, or --s3-credentials) and that it may list and write the bucket"])
            case .noSuchBucket:
                throw ToolError("\(error)", exit: .noInput, hints: ["create the bucket first, or check its name in --blobs s3://BUCKET"])
            }
        }
    }

    func run() async throws {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
              (0...65535).contains(port), colon != listen.startIndex else {
            throw ToolError.usage("invalid --listen \"\(listen)\"", hints: ["write HOST:PORT, such as 127.0.0.1:8787 (port 0: any free port)"])
        }
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ToolError.usage("--tls-cert and --tls-key go together")
        }
        for file in [tlsCert, tlsKey].compactMap({ $0 }) where !FileManager.default.isReadableFile(atPath: file) {
            throw ToolError("cannot read \"\(file)\"", exit: .noInput)
        }
        guard keepAlive > 0, sweepInterval > 0, eventPoll > 0, idleTimeout > 0, uploadIdleExpiry > 0 else { throw ToolError.usage("intervals must be at least 1 second") }
        guard maxEventStreams > 0, (maxConnections ?? 1) > 0, maxOpenUploads > 0, maxCloudEntries > 0 else {
            throw ToolError.usage("--max-connections, --max-event-streams, --max-open-uploads and --max-cloud-entries must be at least 1")
        }
        let caps = [("--max-devices", maxDevices), ("--max-org-devices", maxOrgDevices), ("--max-open-invites", maxOpenInvites),
                    ("--max-user-event-streams", maxUserEventStreams), ("--max-org-event-streams", maxOrgEventStreams),
                    ("--max-user-requests", maxUserRequests), ("--max-org-requests", maxOrgRequests)]
        if let bad = caps.first(where: { $0.1 < 1 }) { throw ToolError.usage("\(bad.0) must be at least 1") }
        let openFiles = OpenFileLimit.raise()
        // Each connection may hold a second descriptor (a blob it streams); keep room for the
        // database, the listening socket and the logs.
        let connectionRoom = max(1, (openFiles - 64) / 2)
        if let maxConnections, maxConnections > connectionRoom {
            Diagnostics.warn("--max-connections \(maxConnections) is over what \(openFiles) open files allow (\(connectionRoom)): raise the limit (ulimit -n, LimitNOFILE=) or the relay stops answering when they are all in use")
        }
        var host = String(listen[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        var configuration = try data.configuration()
        configuration.host = host
        configuration.port = port
        if let maxUpload { configuration.maxUploadSize = try Self.size(maxUpload, option: "--max-upload") }
        if let quota { configuration.userQuota = try Self.size(quota, option: "--quota") }
        if let diskReserve { configuration.diskReserve = try Self.reserve(diskReserve) }
        configuration.trustedProxies = try trustedProxies.map { try Self.range($0, option: "--trusted-proxy") }
        if let proxyHeader {
            guard let header = ProxyHeader(rawValue: proxyHeader.lowercased()) else {
                throw ToolError.usage("invalid --proxy-header \"\(proxyHeader)\"", hints: ["name the header your proxy sets: x-forwarded-for, x-real-ip or forwarded"])
            }
            configuration.proxyHeader = header
        }
        guard trustedProxies.isEmpty == (proxyHeader == nil) else {
            throw ToolError.usage("--trusted-proxy and --proxy-header go together",
                                  hints: ["name the proxy and the one header it sets: --trusted-proxy 127.0.0.1 --proxy-header x-forwarded-for (docs/nginx-relay.conf)"])
        }
        configuration.metricsFrom = try metricsFrom.map { try Self.range($0, option: "--metrics-from") }
        guard metrics || metricsFrom.isEmpty else { throw ToolError.usage("--metrics-from goes with --metrics") }
        configuration.idleTimeout = .seconds(idleTimeout)
        configuration.maxConnections = maxConnections ?? min(16384, connectionRoom)
        configuration.maxEventStreamsPerDevice = maxEventStreams
        configuration.limits.devices = maxDevices
        configuration.limits.orgDevices = maxOrgDevices
        configuration.limits.openInvites = maxOpenInvites
        configuration.limits.userEventStreams = maxUserEventStreams
        configuration.limits.orgEventStreams = maxOrgEventStreams
        configuration.limits.userRequests = maxUserRequests
        configuration.limits.orgRequests = maxOrgRequests
        configuration.maxOpenUploads = maxOpenUploads
        configuration.maxCloudEntries = maxCloudEntries
        configuration.keepAliveInterval = .seconds(keepAlive)
        configuration.sweepInterval = .seconds(sweepInterval)
        configuration.uploadIdleExpiry = TimeInterval(uploadIdleExpiry)
        configuration.watchInterval = .seconds(eventPoll)
        if let tlsCert, let tlsKey {
            do {
                try checkTLSFiles(certificate: tlsCert, key: tlsKey)
            } catch {
                throw ToolError("\(error)", exit: .dataError, hints: ["--tls-cert takes a PEM certificate chain, --tls-key its PEM private key"])
            }
            configuration.tls = (tlsCert, tlsKey)
        }
        let scheme = configuration.tls == nil ? "http" : "https"
        if !["127.0.0.1", "::1", "localhost"].contains(host) && !host.hasPrefix("127.") {
            Diagnostics.warn("listening on \(host), beyond loopback\(configuration.tls == nil ? " without TLS: put it behind a TLS proxy or give --tls-cert/--tls-key" : "")")
        }

        if metrics { configuration.metrics = RelayMetricsSystem.bootstrap() }
        LoggingSystem.bootstrap { label in RelayLogHandler.standardError(label: label, level: logLevel.level) }
        let folderLock = configuration.database == nil ? try Self.lockDataFolder(configuration.dataFolder) : nil
        defer { folderLock?.unlock() }
        if let settings = configuration.objectStore { try await Self.checkBucket(settings) }
        let relay: RelayServer
        do {
            let shown = host.contains(":") ? "[\(host)]" : host
            relay = try await buildRelay(configuration, logger: Logger(label: "vfs-relay")) { port in
                // The ready line: tests and scripts wait for it to learn the port.
                FileHandle.standardOutput.write(Data("vfs-relay: listening on \(scheme)://\(shown):\(port)\n".utf8))
            }
        } catch let error as DatabaseUnavailable {
            throw ToolError("cannot open \(data.describedStore): \(error)", exit: .unavailable,
                            hints: ["is PostgreSQL running, and does the database exist?"])
        } catch {
            throw ToolError("cannot open the relay data in \"\(configuration.dataFolder.path)\": \(error)", exit: .ioError)
        }
        do {
            try await relay.run()
        } catch {
            let text = "\(error)"
            if text.contains("Address already in use") {
                throw ToolError("cannot serve on \(listen): the address is in use", exit: .unavailable,
                                hints: ["another program listens there: choose another port (--listen \(host):0 picks a free one)"])
            }
            if text.contains("Cannot assign requested address") {
                throw ToolError("cannot serve on \(listen): no such local address", exit: .unavailable)
            }
            throw ToolError("cannot serve on \(listen): \(text)", exit: .unavailable)
        }
    }
}

/// The process's open-file limit.
enum OpenFileLimit {
    /// Raises the soft limit to the hard one, as servers do at start, and returns it.
    static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur == rlim_t.max ? 1 << 20 : Int(clamping: limit.rlim_cur)
    }
}

/// `--log-level`: swift-log's levels as people write them (nginx's and syncthing's words).
enum LogLevel: String, CaseIterable, ExpressibleByArgument {
    case error, warning, info, debug, trace

    var level: Logger.Level {
        switch self {
        case .error: .error
        case .warning: .warning
        case .info: .info
        case .debug: .debug
        case .trace: .trace
        }
    }
}
