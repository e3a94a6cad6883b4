import Foundation
import Testing
import VFSTestSupport

/// Behind a proxy, wrong enrolment codes are counted per client, not per proxy (issue 25,
/// defect 5), and the operator can lift a block.
@Suite("vfs-relay behind a trusted proxy", .serialized)
struct RelayProxyTests {
    static func enroll(_ setup: RelayTests.Setup, code: String, from address: String?) throws -> HTTPAnswer {
        try setup.client.request("POST", "/v1/enroll", json: #"{"code":"\#(code)","name":"n\#(UUID().uuidString.prefix(6))","platform":"linux","recipient":"age1x"}"#,
                                 headers: address.map { ["X-Forwarded-For": $0] } ?? [:])
    }

    @Test("with --trusted-proxy and --proxy-header x-forwarded-for, one client's five wrong codes block that client only; a valid code from another is accepted; unblock lifts it; the log shows the client")
    func perClient() throws {
        let setup = try RelayTests.Setup(arguments: ["--trusted-proxy", "127.0.0.1", "--proxy-header", "x-forwarded-for"])
        for _ in 0..<5 {
            #expect(try Self.enroll(setup, code: "AAAA-BBBB-CCCC-DDDD", from: "198.51.100.7").status == 401)
        }
        let blocked = try Self.enroll(setup, code: try setup.admin.invite("alice@acme.example"), from: "198.51.100.7")
        #expect(blocked.status == 429)
        #expect(try Self.enroll(setup, code: try setup.admin.invite("alice@acme.example"), from: "198.51.100.8").status == 201,
                "someone else's valid code")
        // A spoofed left part does not move the count off the real client.
        #expect(try Self.enroll(setup, code: "AAAA-BBBB-CCCC-DDDD", from: "203.0.113.1, 198.51.100.7").status == 429)

        let unblock = try setup.admin.run(["unblock", "198.51.100.7"])
        #expect(unblock.status == 0, "\(unblock.stderr)")
        #expect(unblock.stderr == "vfs-relay: 198.51.100.7 may enrol again (in \(setup.admin.data.path)/relay.sqlite)\n")
        #expect(try Self.enroll(setup, code: try setup.admin.invite("alice@acme.example"), from: "198.51.100.7").status == 201)
        let again = try setup.admin.run(["unblock", "198.51.100.7"])
        #expect(again.status == 1)
        #expect(again.stderr == "vfs-relay: 198.51.100.7 is not blocked\n")
        #expect(try setup.admin.run(["unblock", "10.0.0.0/8"]).status == 64)
        #expect(setup.relay.stop() == 0)
        #expect(setup.relay.stderrText.contains("POST /v1/enroll 401") && setup.relay.stderrText.contains("198.51.100.7"))
    }

    @Test("without --trusted-proxy the headers are ignored: rotating X-Forwarded-For does not escape the block")
    func untrusted() throws {
        let setup = try RelayTests.Setup()
        for index in 0..<5 {
            #expect(try Self.enroll(setup, code: "AAAA-BBBB-CCCC-DDDD", from: "198.51.100.\(index)").status == 401)
        }
        #expect(try Self.enroll(setup, code: "AAAA-BBBB-CCCC-DDDD", from: "198.51.100.99").status == 429)
        #expect(try setup.admin.run(["unblock", "127.0.0.1"]).status == 0)
        #expect(try setup.admin.run(["serve", "--trusted-proxy", "nonsense", "--proxy-header", "x-forwarded-for"]).status == 64)
        // A proxy without the one header it sets, or a header without its proxy, or a header not known: 64, nothing served.
        for arguments in [["--trusted-proxy", "127.0.0.1"], ["--proxy-header", "x-forwarded-for"],
                          ["--trusted-proxy", "127.0.0.1", "--proxy-header", "x-client"]] {
            let refused = try setup.admin.run(["serve", "--listen", "127.0.0.1:0"] + arguments)
            #expect(refused.status == 64, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.hasPrefix("vfs-relay: error: "), "\(refused.stderr)")
        }
        #expect(setup.relay.stop() == 0)
    }
}
