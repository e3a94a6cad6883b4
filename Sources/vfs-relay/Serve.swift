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

    @Option(help: ArgumentHelp("Connections one client address may hold at once; one more is closed as soon as it opens, so one address cannot fill --max-connections (--trusted-proxy addresses are not counted; raise it for many devices behind one NAT address).", valueName: "count"))
    var maxConnectionsPerAddress: Int = 256

    @Option(help: ArgumentHelp("Close a connection whose first request has not arrived this many seconds after it opened (at most --idle-timeout).", valueName: "seconds"))
    var firstRequestTimeout: Int = 10

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

    func run() async throws {
        var (configuration, host) = try relayConfiguration()
        let scheme = configuration.tls == nil ? "http" : "https"
        if metrics { configuration.serveMetrics() }
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
