import Foundation
import Testing
import VFSTestSupport

/// The OpenAPI document against the built relay: served byte for byte as committed, and
/// every documented operation answered with a documented status, headers and body
/// (schemathesis and openapi-spec-validator, from PyPI; `make deps` installs the pinned
/// versions).
@Suite("vfs-relay OpenAPI", .serialized)
struct OpenAPITests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let document = repository.appendingPathComponent("Sources/VFSRelayServer/Resources/openapi.yaml")
    static let tools = repository.appendingPathComponent("Tests/tools")

    /// A relay with an admin (laptop, phone), a transfer to the laptop, a group, a cloud
    /// file, an unfinished upload and a policy item: the schemathesis settings name them
    /// (RELAY_* variables), so generated requests meet real things, not only 404.
    struct Setup {
        let scratch: TestFolder
        let relay: RelayProcess
        let client: RelayClient
        let laptop: (id: String, token: String)
        let things: [String: String]

        init() throws {
            scratch = try TestFolder("openapi")
            let data = scratch.url.appendingPathComponent("data")
            let admin = RelayAdmin(data: data)
            let code = try admin.addUser("alice@acme.example", org: "acme", admin: true)
            relay = try RelayProcess(data: data)
            client = RelayClient(port: relay.port)
            laptop = try client.enroll(code: code, name: "laptop")
            let phone = try client.enroll(code: try admin.invite("alice@acme.example"), name: "phone")
            let token = laptop.token
            let transfer = try client.send(upload: try client.upload(Array("ciphertext".utf8), token: token), to: [laptop.id], token: token)
            let group = try client.request("POST", "/v1/groups", token: token, json: #"{"name":"both","members":["\#(laptop.id)","\#(phone.id)"]}"#)
            let file = try client.upload(Array("sealed".utf8), token: token)
            let put = try client.request("PUT", "/v1/cloud/a.age", token: token, json: #"{"upload":"\#(file)"}"#)
            let unfinished = try client.createUpload(length: 100, token: token)
            let item = try client.request("POST", "/v1/items", token: token, json: #"{"app":"evince","types":["pdf"]}"#)
            guard group.status == 201, put.status == 201, item.status == 201,
                  let itemID = (try JSONSerialization.jsonObject(with: Data(item.body)) as? [String: Any])?["id"] as? String else {
                throw HarnessError("setup: group \(group.status), cloud \(put.status), item \(item.status)")
            }
            things = [
                "RELAY_UPLOAD": String(unfinished.split(separator: "/").last!), "RELAY_DEVICE": phone.id, "RELAY_GROUP": "both",
                "RELAY_TRANSFER": transfer, "RELAY_CLOUD_FILE": "a.age", "RELAY_ITEM": itemID,
            ]
        }
    }

    /// schemathesis writes its report folder in the working folder: the scratch one.
    func scratchReport(_ setup: Setup) -> URL { setup.scratch.url }

    @Test("GET /v1/openapi.yaml serves the committed document, without a token")
    func served() throws {
        let setup = try Setup()
        let answer = try setup.client.request("GET", "/v1/openapi.yaml")
        #expect(answer.status == 200)
        #expect(answer.headers["content-type"] == "application/yaml")
        #expect(Data(answer.body) == (try Data(contentsOf: Self.document)))
        #expect(answer.text.hasPrefix("openapi: 3.1.0\n"))
    }

    @Test("the served document is OpenAPI 3.1 to a YAML parser and openapi-spec-validator, and no description is cut short (a comma in a plain flow scalar ends it)")
    func validDocument() throws {
        let setup = try Setup()
        let check = try Tools.run("python3", [Self.tools.appendingPathComponent("check-openapi.py").path,
                                              "http://127.0.0.1:\(setup.relay.port)/v1/openapi.yaml"])
        #expect(check.status == 0, "\(check.out)\(check.stderr)")
    }

    @Test("schemathesis finds no disagreement between the document and the relay")
    func conformance() throws {
        let setup = try Setup()
        let version = try Tools.run("schemathesis", ["--version"])
        #expect(version.status == 0, "schemathesis is not installed; make deps installs it")
        guard version.status == 0 else { return }
        let base = "http://127.0.0.1:\(setup.relay.port)"
        let run = try Tools.run("schemathesis", [
            "--config-file", Self.tools.appendingPathComponent("schemathesis.toml").path,
            "run", "\(base)/v1/openapi.yaml", "--url", base,
            "-H", "Authorization: Bearer \(setup.laptop.token)",
            // Every check (schemathesis's default). What a schema cannot state (an expiry in the
            // future, a whole age header, tus's "not both length headers", a precondition or a
            // range that does not hold) is allowed per operation in schemathesis.toml.
            "--checks", "all",
            "--phases", "examples,coverage,fuzzing,stateful",
            // The event stream never ends (tested live in RelayTests); logging the
            // test's own device out would leave nothing to test with. A POST naming
            // another method takes that method's headers, which no schema can tie to the
            // override's value (tuspy tries it: RelayHTTPStandardsTests).
            "--exclude-operation-id", "events", "--exclude-operation-id", "invalidateDevice",
            "--exclude-operation-id", "overrideUpload",
            "--max-examples", "20", "--seed", "12", "--workers", "2", "--request-timeout", "20",
            "--no-color", "--suppress-health-check", "all",
        ], cwd: scratchReport(setup), environment: setup.things.merging(["SCHEMATHESIS_HOOKS": "schemathesis_hooks", "PYTHONPATH": Self.tools.path]) { $1 })
        #expect(run.status == 0, "schemathesis failed:\n\(run.out.suffix(12000))\n\(run.stderr.suffix(4000))")
        // Every selected operation was tried (38 of 40 at the time of writing).
        #expect(run.out.range(of: #"Tested: [1-9][0-9]"#, options: .regularExpression) != nil, "\(run.out.suffix(3000))")
        // The run reached real things: a cloud file and an item answered 200.
        let log = setup.relay.stderrText
        #expect(log.contains("GET /v1/cloud/a.age 200") || log.contains("GET /v1/cloud/a.age 206"))
        #expect(log.range(of: #"GET (/v1)?/items/[0-9a-f]{8} 200"#, options: .regularExpression) != nil, "an item made by the run was read")
        #expect(log.range(of: #"GET /v1/groups/[^ /]+ 200"#, options: .regularExpression) != nil, "a group made by the run was read")
    }
}
