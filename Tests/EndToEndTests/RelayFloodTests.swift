import Foundation
import Testing
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// One address holding idle connections (issue 45, item 9): a cap per client address
/// (`--max-connections-per-address`, nginx's `limit_conn`) and a deadline for a
/// connection's first request (`--first-request-timeout`, nginx's `client_header_timeout`)
/// keep the relay answering everyone else while the flood goes on.
@Suite("vfs-relay connection flood", .serialized)
struct RelayFloodTests {
    /// Which of `connections` the peer has closed (end of stream or reset); the others are
    /// open with nothing to read. Does not wait.
    static func closed(_ connections: [RawConnection]) -> [Bool] {
        connections.map { connection in
            var byte: UInt8 = 0
            let n = recv(connection.fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
            return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
        }
    }

    /// Waits (poll(2), no sleeps) until `count` of `connections` are closed by the peer, or
    /// `seconds` pass; the number closed then.
    static func waitForClosed(_ connections: [RawConnection], count: Int, seconds: Double) -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let done = closed(connections).filter { $0 }.count
            guard done < count, Date() < deadline else { return done }
            var fds = zip(connections, closed(connections)).filter { !$0.1 }.map { pollfd(fd: $0.0.fd, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 1000)
        }
    }

    /// A sample of the relay's /metrics, read from 127.0.0.2 (not the flood's address).
    static func metric(port: Int, _ sample: String) throws -> Double? {
        let connection = try RawConnection(port: port, from: "127.0.0.2")
        try connection.sendHead("GET", "/metrics", headers: ["Connection": "close"])
        return RelayMetricsTests.value(try connection.readAnswer(method: "GET").text, sample)
    }

    @Test("60 idle connections from one address with --max-connections 30 and --max-connections-per-address 20: the relay keeps 20 and closes the other 40 as they open, and another address's GET /v1/health is answered within 2 s while the flood stays open; one more from the flood's address is closed (each counted in /metrics), and a flood connection that goes gives its place back")
    func floodFromOneAddress() throws {
        // Idle and first-request timeouts far beyond the test: only the per-address cap can
        // make room for another client (without it the 30 places are all the flood's, and
        // /v1/health waits in the backlog for 600 s).
        let setup = try RelayTests.Setup(arguments: ["--max-connections", "30", "--max-connections-per-address", "20",
                                                     "--idle-timeout", "600", "--first-request-timeout", "600", "--metrics"])
        var flood = try (0..<60).map { _ in try RawConnection(port: setup.relay.port) }
        #expect(Self.waitForClosed(flood, count: 40, seconds: 120) == 40)
        #expect(Self.closed(flood).filter { !$0 }.count == 20, "the flood holds 20 connections")

        // Another client (127.0.0.2) is answered at once, the flood still open.
        let start = ContinuousClock.now
        let other = try RawConnection(port: setup.relay.port, timeout: 20, from: "127.0.0.2")
        try other.sendHead("GET", "/v1/health", headers: [:])
        #expect(try other.readAnswer(method: "GET").status == 200)
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < .seconds(2), "answered after \(elapsed)")
        #expect(Self.closed(flood).filter { !$0 }.count == 20, "the flood is still open")

        // The flood's address gets no 21st connection.
        let more = try RawConnection(port: setup.relay.port)
        #expect(more.closedByPeer())
        #expect(try Self.metric(port: setup.relay.port, #"vfs_relay_connections_closed_total{reason="address_cap"}"#) == 41)

        // Five of the flood go: their address may open five again (the relay sees the closes
        // as they arrive, so a connection it closed at once is tried again).
        flood = zip(flood, Self.closed(flood)).filter { !$0.1 }.map(\.0)
        flood.removeLast(5)
        let deadline = Date().addingTimeInterval(120)
        var answered = 0
        while answered < 5, Date() < deadline {
            let again = try RawConnection(port: setup.relay.port)
            if (try? again.sendHead("GET", "/v1/health", headers: [:])) != nil, let answer = try? again.readAnswer(method: "GET") {
                #expect(answer.status == 200)
                flood.append(again)
                answered += 1
            }
        }
        #expect(answered == 5)
        #expect(setup.relay.isRunning)
        #expect(setup.relay.stop() == 0)
    }

    @Test("a connection that sends no request, or half a request head, is closed --first-request-timeout after it opened, long before --idle-timeout (counted in /metrics); one that sent its request stays open for the next")
    func firstRequestDeadline() throws {
        let setup = try RelayTests.Setup(arguments: ["--idle-timeout", "600", "--first-request-timeout", "1", "--metrics"])
        let used = try RawConnection(port: setup.relay.port)
        try used.sendHead("GET", "/v1/health", headers: [:])
        #expect(try used.readAnswer(method: "GET").status == 200)
        let silent = try RawConnection(port: setup.relay.port)
        let slow = try RawConnection(port: setup.relay.port)
        try slow.send(Array("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
        // Each read waits at most 120 s for the close; the idle timeout would take 600.
        #expect(silent.closedByPeer(), "the silent connection is still open")
        #expect(slow.closedByPeer(), "the connection with half a head is still open")
        #expect(try Self.metric(port: setup.relay.port, #"vfs_relay_connections_closed_total{reason="first_request_timeout"}"#) == 2)
        // `used` opened before them: had its deadline not ended with its first request, it
        // would be closed by now.
        try used.sendHead("GET", "/v1/health", headers: [:])
        #expect(try used.readAnswer(method: "GET").status == 200)
        #expect(setup.relay.stop() == 0)

        for option in ["--max-connections-per-address", "--first-request-timeout"] {
            let zero = try Tools.run("vfs-relay", ["serve", "--data", setup.scratch.url.appendingPathComponent("other").path,
                                                   "--listen", "127.0.0.1:0", option, "0"])
            #expect(zero.status == 64 && zero.stderr.contains(option == "--first-request-timeout" ? "at least 1 second" : "\(option)"),
                    "\(option): \(zero.stderr)")
        }
    }

    @Test("a --trusted-proxy's connections are not counted against --max-connections-per-address: its clients are many")
    func trustedProxyNotCapped() throws {
        let setup = try RelayTests.Setup(arguments: ["--max-connections-per-address", "2", "--trusted-proxy", "127.0.0.1",
                                                     "--proxy-header", "x-forwarded-for"])
        let held = try (0..<4).map { _ in try RawConnection(port: setup.relay.port) }
        for connection in held {
            try connection.sendHead("GET", "/v1/health", headers: [:])
            #expect(try connection.readAnswer(method: "GET").status == 200)
        }
        // From an address that is not the proxy, the third is closed.
        let direct = try (0..<3).map { _ in try RawConnection(port: setup.relay.port, from: "127.0.0.2") }
        #expect(Self.waitForClosed(direct, count: 1, seconds: 120) == 1)
        #expect(setup.relay.stop() == 0)
    }
}
