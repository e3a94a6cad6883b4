import Foundation
import Testing
import VFSTestSupport

/// A path the relay serves, asked with a method it does not take: 405 with `Allow`
/// (RFC 9110), as schemathesis's default checks expect (issue 25, the API).
@Suite("vfs-relay 405 and Allow")
struct RelayRoutesTests {
    @Test("wrong methods on real routes are 405 with the route's methods in Allow, with or without a token; unknown paths stay 404")
    func methodNotAllowed() throws {
        let setup = try RelayTests.Setup()
        let token = setup.laptop.token
        let transfer = try setup.client.send(upload: try setup.client.upload(Array("x".utf8), token: token), to: [setup.phone.id], token: token)
        let cases: [(method: String, path: String, token: String?, allow: [String])] = [
            ("DELETE", "/v1/health", nil, ["GET"]),
            ("POST", "/v1/health", token, ["GET"]),
            ("PUT", "/v1/transfers/\(transfer)/content", token, ["GET"]),
            ("PUT", "/v1/transfers/\(transfer)/content", nil, ["GET"]),
            ("DELETE", "/v1/enroll", nil, ["POST"]),
            ("PUT", "/v1/cloud", token, ["GET"]),
            ("PUT", "/v1/devices/\(setup.phone.id)", token, ["DELETE", "GET", "PATCH"]),
        ]
        for (method, path, token, allow) in cases {
            let answer = try setup.client.request(method, path, token: token)
            #expect(answer.status == 405, "\(method) \(path) → \(answer.status) \(answer.text)")
            let listed = (answer.headers["allow"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            for method in allow { #expect(listed.contains(method), "\(path) Allow: \(answer.headers["allow"] ?? "none")") }
            #expect(!listed.contains(method))
            #expect(answer.text.contains("\"error\":\"method_not_allowed\""), "\(answer.text)")
        }
        for (method, path) in [("GET", "/v1/nothing"), ("DELETE", "/v2/health"), ("GET", "/v1/transfers/\(transfer)/content/more")] {
            #expect(try setup.client.request(method, path, token: token).status == 404, "\(method) \(path)")
        }
        // The routes themselves still answer.
        #expect(try setup.client.request("GET", "/v1/transfers/\(transfer)/content", token: setup.phone.token).status == 200)
        #expect(setup.relay.stop() == 0)
    }
}
