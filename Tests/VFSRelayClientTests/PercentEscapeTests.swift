import Testing
@testable import VFSRelayClient

/// Paths to the relay are escaped by the client itself (FoundationEssentials has no
/// addingPercentEncoding with a character set): RFC 3986's unreserved ASCII stays, every
/// other UTF-8 byte becomes %XX.
@Suite("percent escaping of relay paths")
struct PercentEscapeTests {
    @Test("cloud paths: each name escaped, the slashes between them kept")
    func cloudRoute() {
        #expect(RelayClient.cloudRoute("/docs/a b.pdf", base: "/v1/cloud") == "/v1/cloud/docs/a%20b.pdf")
        #expect(RelayClient.cloudRoute("/", base: "/v1/cloud") == "/v1/cloud")
        #expect(RelayClient.cloudRoute("/Été/x~y_z-1.txt", base: "/v1/cloud") == "/v1/cloud/%C3%89t%C3%A9/x~y_z-1.txt")
        #expect(RelayClient.cloudRoute("/a%2F?#", base: "/c") == "/c/a%252F%3F%23")
    }

    @Test("group names: letters, digits, dot, underscore and hyphen kept; ~ and the rest escaped")
    func groupName() {
        #expect(RelayClient.escape("finance-2027_q1.x") == "finance-2027_q1.x")
        #expect(RelayClient.escape("a/b c~") == "a%2Fb%20c%7E")
        #expect(RelayClient.escape("日") == "%E6%97%A5")
    }
}
