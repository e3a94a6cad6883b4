import Foundation
import VFSCommandLine
import VFSCore
import VFSRelayServer

/// `serve`'s work before it listens, apart from its options (Serve.swift): the
/// configuration built from them, and the checks of the machine it starts on.
extension Serve {
    /// The relay's configuration from the options, each checked (a usage error names the
    /// option), and the host to listen on without its brackets.
    func relayConfiguration() throws -> (RelayConfiguration, host: String) {
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
        guard keepAlive > 0, sweepInterval > 0, eventPoll > 0, idleTimeout > 0, firstRequestTimeout > 0, uploadIdleExpiry > 0 else { throw ToolError.usage("intervals must be at least 1 second") }
        guard maxEventStreams > 0, (maxConnections ?? 1) > 0, maxConnectionsPerAddress > 0, maxOpenUploads > 0, maxCloudEntries > 0 else {
            throw ToolError.usage("--max-connections, --max-connections-per-address, --max-event-streams, --max-open-uploads and --max-cloud-entries must be at least 1")
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
        configuration.maxConnectionsPerAddress = maxConnectionsPerAddress
        configuration.firstRequestTimeout = .seconds(firstRequestTimeout)
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
        if !["127.0.0.1", "::1", "localhost"].contains(host) && !host.hasPrefix("127.") {
            Diagnostics.warn("listening on \(host), beyond loopback\(configuration.tls == nil ? " without TLS: put it behind a TLS proxy or give --tls-cert/--tls-key" : "")")
        }
        return (configuration, host)
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
