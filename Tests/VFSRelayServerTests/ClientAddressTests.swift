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

    @Test("the client is the right-most address that is not a trusted proxy; headers from untrusted peers are ignored")
    func resolving() {
        let resolver = ClientAddressResolver(trusted: [CIDR("127.0.0.1")!, CIDR("10.0.0.0/8")!])
        // Not from a trusted peer: the peer, whatever the headers say.
        #expect(resolver.client(peer: "203.0.113.5", forwarded: "for=1.2.3.4", xForwardedFor: "1.2.3.4") == "203.0.113.5")
        // From nginx on loopback.
        #expect(resolver.client(peer: "127.0.0.1", forwarded: nil, xForwardedFor: "198.51.100.7") == "198.51.100.7")
        // A spoofed left part is skipped: the right-most untrusted entry is the client.
        #expect(resolver.client(peer: "127.0.0.1", forwarded: nil, xForwardedFor: "6.6.6.6, 198.51.100.7, 10.1.1.1") == "198.51.100.7")
        // Forwarded wins, with quotes, brackets and ports.
        #expect(resolver.client(peer: "127.0.0.1", forwarded: #"for="[2001:db8::17]:4711";proto=https, for=10.2.2.2"#,
                                xForwardedFor: "9.9.9.9") == "2001:db8::17")
        #expect(resolver.client(peer: "127.0.0.1", forwarded: "for=192.0.2.60:8080", xForwardedFor: nil) == "192.0.2.60")
        // `unknown` or garbage stops the walk at the last address known.
        #expect(resolver.client(peer: "127.0.0.1", forwarded: "for=unknown", xForwardedFor: nil) == "127.0.0.1")
        #expect(resolver.client(peer: "127.0.0.1", forwarded: nil, xForwardedFor: "bogus, 10.0.0.9") == "10.0.0.9")
        // No header: the proxy itself.
        #expect(resolver.client(peer: "127.0.0.1", forwarded: nil, xForwardedFor: nil) == "127.0.0.1")
        // Without trusted proxies nothing is taken from headers.
        #expect(ClientAddressResolver(trusted: []).client(peer: "127.0.0.1", forwarded: nil, xForwardedFor: "1.1.1.1") == "127.0.0.1")
    }
}
