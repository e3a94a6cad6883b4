import HTTPTypes
import Testing
@testable import VFSRelayServer

@Suite("client addresses behind trusted proxies")
struct ClientAddressTests {
    @Test("CIDR ranges: IPv4, IPv6, single addresses, IPv4-mapped IPv6; nonsense refused")
    func ranges() throws {
        let ten = try #require(CIDR("10.0.0.0/8"))
        #expect(ten.contains("10.255.1.2") && !ten.contains("11.0.0.1") && !ten.contains("::1"))
        #expect(ten.contains("::ffff:10.1.2.3"))
        let one = try #require(CIDR("127.0.0.1"))
        #expect(one.contains("127.0.0.1") && !one.contains("127.0.0.2"))
        let v6 = try #require(CIDR("2001:db8::/32"))
        #expect(v6.contains("2001:db8:1::5") && !v6.contains("2001:db9::1"))
        #expect(try #require(CIDR("192.168.1.0/23")).contains("192.168.0.200"))
        #expect(!(try #require(CIDR("192.168.1.0/24")).contains("192.168.0.200")))
        #expect(try #require(CIDR("0.0.0.0/0")).contains("203.0.113.9"))
        for bad in ["", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0/8", "::1/129", "host", "10.0.0.0/8/8", "10.0.0.0/"] {
            #expect(CIDR(bad) == nil, "\(bad)")
        }
        #expect(ten.description == "10.0.0.0/8")
    }

    @Test("the client is the right-most address that is not a trusted proxy in the one header chosen; headers from untrusted peers are ignored")
    func resolving() {
        let trusted = [CIDR("127.0.0.1")!, CIDR("10.0.0.0/8")!]
        let xff = ClientAddressResolver(trusted: trusted, header: .xForwardedFor)
        // Not from a trusted peer: the peer, whatever the header says.
        #expect(xff.client(peer: "203.0.113.5", value: "1.2.3.4") == "203.0.113.5")
        // From nginx on loopback.
        #expect(xff.client(peer: "127.0.0.1", value: "198.51.100.7") == "198.51.100.7")
        // A spoofed left part is skipped: the right-most untrusted entry is the client.
        #expect(xff.client(peer: "127.0.0.1", value: "6.6.6.6, 198.51.100.7, 10.1.1.1") == "198.51.100.7")
        #expect(xff.client(peer: "127.0.0.1", value: "bogus, 10.0.0.9") == "10.0.0.9")
        // No header: the proxy itself.
        #expect(xff.client(peer: "127.0.0.1", value: nil) == "127.0.0.1")
        // Forwarded, with quotes, brackets and ports.
        let forwarded = ClientAddressResolver(trusted: trusted, header: .forwarded)
        #expect(forwarded.client(peer: "127.0.0.1", value: #"for="[2001:db8::17]:4711";proto=https, for=10.2.2.2"#) == "2001:db8::17")
        #expect(forwarded.client(peer: "127.0.0.1", value: "for=192.0.2.60:8080") == "192.0.2.60")
        // `unknown` or garbage stops the walk at the last address known.
        #expect(forwarded.client(peer: "127.0.0.1", value: "for=unknown") == "127.0.0.1")
        #expect(ClientAddressResolver(trusted: trusted, header: .xRealIP).client(peer: "127.0.0.1", value: " 192.0.2.9 ") == "192.0.2.9")
    }

    @Test("only the header the operator chose counts: a client's own Forwarded (or X-Real-IP) beside the proxy's X-Forwarded-For is ignored; no header chosen, none is believed")
    func oneHeader() {
        let trusted = [CIDR("127.0.0.1")!]
        // What nginx passed on before: the client's Forwarded as it wrote it, and nginx's X-Forwarded-For.
        let headers: HTTPFields = [.forwarded: "for=203.0.113.66", .xRealIP: "203.0.113.67", .xForwardedFor: "198.51.100.7"]
        #expect(ClientAddressResolver(trusted: trusted, header: .xForwardedFor).client(peer: "127.0.0.1", headers: headers) == "198.51.100.7")
        #expect(ClientAddressResolver(trusted: trusted, header: .forwarded).client(peer: "127.0.0.1", headers: headers) == "203.0.113.66")
        #expect(ClientAddressResolver(trusted: trusted, header: nil).client(peer: "127.0.0.1", headers: headers) == "127.0.0.1")
        #expect(ClientAddressResolver(trusted: [], header: .xForwardedFor).client(peer: "127.0.0.1", headers: headers) == "127.0.0.1")
        // Two lines of the header are one list, in order.
        var twice: HTTPFields = [:]
        twice.append(HTTPField(name: .xForwardedFor, value: "6.6.6.6"))
        twice.append(HTTPField(name: .xForwardedFor, value: "198.51.100.8"))
        #expect(ClientAddressResolver(trusted: trusted, header: .xForwardedFor).client(peer: "127.0.0.1", headers: twice) == "198.51.100.8")
    }

    @Test("paths name a route only as written: empty and dot segments are not canonical")
    func canonicalPaths() {
        // A percent-encoded dot is left to the routes: it names none but a cloud path's, refused 400 there (RobustnessTests).
        for good in ["/", "/metrics", "/v1/health", "/admin/", "/v1/cloud/a%20b/c.txt", "/v1/cloud/..x", "/v1/cloud/f/%2E%2E"] {
            #expect(CanonicalPathMiddleware.isCanonical(good), "\(good)")
        }
        for bad in ["//metrics", "/./metrics", "/v1/../metrics", "/v1//health", "/metrics/.", "/..", "", "metrics"] {
            #expect(!CanonicalPathMiddleware.isCanonical(bad), "\(bad)")
        }
    }
}
