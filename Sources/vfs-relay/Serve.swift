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
        --listen 127.0.0.1:0 picks a free port) and logs one line per request on stderr.

        With --database postgres://…, several relays share one PostgreSQL database and one \
        --blobs folder (NFS, CephFS: every instance mounts it) behind a load balancer; serve \
        migrates the schema at start under an advisory lock, and GET /v1/health answers 503 \
        when the database does not.
        """)

    @OptionGroup var data: DataOptions

    @Option(help: ArgumentHelp("The address and port to listen on.", valueName: "host:port"))
    var listen = "127.0.0.1:8787"

    @Option(help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (with --tls-key).", valueName: "file"), completion: .file())
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"), completion: .file())
    var tlsKey: String?

    @Option(help: ArgumentHelp("The largest upload, in bytes.", valueName: "bytes"))
    var maxUpload: Int64?

    @Option(help: ArgumentHelp("What one user may store at once, in bytes.", valueName: "bytes"))
    var quota: Int64?

    @Option(help: ArgumentHelp("Seconds between keep-alive comments on event streams.", valueName: "seconds"))
    var keepAlive: Int = 15

    @Option(help: ArgumentHelp("Seconds between sweeps for expired transfers and orphan blobs.", valueName: "seconds"))
    var sweepInterval: Int = 600

    /// Seconds between looks for events other processes stored (admin alerts; with
    /// PostgreSQL, NOTIFY wakes the streams at once and this is the fallback). Tests
    /// raise it to show that NOTIFY alone carries events between instances.
    @Option(name: .customLong("event-poll"), help: .hidden)
    var eventPoll: Int = 1

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
        guard keepAlive > 0, sweepInterval > 0, eventPoll > 0 else { throw ToolError.usage("intervals must be at least 1 second") }
        var host = String(listen[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        var configuration = try data.configuration()
        configuration.host = host
        configuration.port = port
        if let maxUpload { configuration.maxUploadSize = maxUpload }
        if let quota { configuration.userQuota = quota }
        configuration.keepAliveInterval = .seconds(keepAlive)
        configuration.sweepInterval = .seconds(sweepInterval)
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

        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
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
