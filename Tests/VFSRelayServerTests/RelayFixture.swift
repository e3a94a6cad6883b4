import Foundation
import HTTPTypes
import Hummingbird
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

/// A relay in a temporary data folder, tested through its router (no socket).
final class RelayFixture: @unchecked Sendable {
    let folder: URL
    var configuration: RelayConfiguration
    let store: SQLiteRelayStore
    let blobs: FileBlobStore
    /// What the router serves blobs from: `blobs`, or an S3 bucket (uploads in progress recorded in `store`).
    let served: any BlobStore
    let hub = EventHub()

    init(objectStore: ObjectStoreSettings? = nil, configure: (inout RelayConfiguration) -> Void = { _ in }) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("relay-test-\(UUID().uuidString)")
        var configuration = RelayConfiguration(dataFolder: folder, port: 0)
        configure(&configuration)
        self.configuration = configuration
        let (store, files) = try openStore(configuration)
        (self.store, blobs) = (store, files)
        served = objectStore.map { S3BlobStore($0, records: store) } ?? files
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func application() -> some ApplicationProtocol {
        var logger = Logger(label: "relay-test")
        logger.logLevel = .warning
        let router = buildRouter(store: store, blobs: served, hub: hub, configuration: configuration, logger: logger)
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
    }

    /// Runs `body` against the router.
    func test<T: Sendable>(_ body: @escaping @Sendable (TestClient) async throws -> T) async throws -> T {
        try await application().test(.router) { client in try await body(TestClient(client: client, fixture: self)) }
    }

    /// Adds the organisation if needed and a user; returns a fresh enrolment code.
    func addUser(_ email: String, org: String, admin: Bool = false) async throws -> String {
        if try await !store.users().contains(where: { $0.org == org }) {
            try? await store.createOrganisation(name: org, now: Date())
        }
        try await store.createUser(email: email, organisation: org, admin: admin, now: Date())
        return try await code(for: email)
    }

    func code(for email: String, lifetime: TimeInterval = 900) async throws -> String {
        let code = RelayCodes.newEnrolmentCode()
        try await store.createEnrolmentCode(email: email, codeHash: RelayCodes.hash(enrolmentCode: code),
                                            expires: Date().addingTimeInterval(lifetime), now: Date())
        return code
    }

    func blobFiles() -> Set<String> { blobs.blobs(olderThan: Date.distantFuture) }
    func uploadFiles() -> Set<String> { blobs.uploads(olderThan: Date.distantFuture) }
}

/// A device as a test holds it.
struct TestDevice: Sendable {
    let device: Device
    let token: String
    var id: String { device.id }
}

/// The test client with the relay's conventions: bearer tokens and JSON.
struct TestClient: Sendable {
    let client: any TestClientProtocol
    let fixture: RelayFixture

    @discardableResult
    func request(_ method: HTTPRequest.Method, _ uri: String, token: String? = nil, json: String? = nil,
                 bytes: [UInt8]? = nil, headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(string: json)
        }
        if let bytes { body = ByteBuffer(bytes: bytes) }
        return try await client.execute(uri: uri, method: method, headers: headers, body: body)
    }

    func enroll(_ code: String, name: String = "laptop") async throws -> TestDevice {
        let response = try await request(.post, RelayPaths.enroll,
                                         json: #"{"code":"\#(code)","name":"\#(name)","platform":"linux","recipient":"age1test\#(name)"}"#)
        #expect(response.status == .created)
        let answer = try decode(EnrollResponse.self, response)
        return TestDevice(device: answer.device, token: answer.token)
    }

    /// A user with one enrolled device.
    func user(_ email: String, org: String, admin: Bool = false, device name: String = "laptop") async throws -> TestDevice {
        try await enroll(fixture.addUser(email, org: org, admin: admin), name: name)
    }

    /// Another device of an existing user.
    func device(of email: String, name: String) async throws -> TestDevice {
        try await enroll(fixture.code(for: email), name: name)
    }

    /// Uploads `content` with tus (create, then one PATCH); returns the upload id.
    /// `metadata`: its `Upload-Metadata`.
    func upload(_ content: [UInt8], token: String, metadata: String? = nil) async throws -> String {
        var headers: HTTPFields = [HTTPField.Name("Tus-Resumable")!: "1.0.0", HTTPField.Name("Upload-Length")!: "\(content.count)"]
        if let metadata { headers[HTTPField.Name("Upload-Metadata")!] = metadata }
        let created = try await request(.post, RelayPaths.uploads, token: token, headers: headers)
        #expect(created.status == .created)
        let location = try #require(created.headers[.location])
        let id = String(location.split(separator: "/").last!)
        if !content.isEmpty {
            let patched = try await request(.patch, location, token: token, bytes: content, headers: [
                HTTPField.Name("Tus-Resumable")!: "1.0.0", HTTPField.Name("Upload-Offset")!: "0",
                .contentType: "application/offset+octet-stream",
            ])
            #expect(patched.status == .noContent)
            #expect(patched.headers[HTTPField.Name("Upload-Offset")!] == "\(content.count)")
        }
        return id
    }
}

func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
    try RelayJSON.decoder().decode(T.self, from: Data(response.body.readableBytesView))
}

func errorCode(_ response: TestResponse) -> String? {
    (try? decode(RelayErrorBody.self, response))?.error
}

func bodyBytes(_ response: TestResponse) -> [UInt8] { Array(response.body.readableBytesView) }

func randomBytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }

func sha256Hex(_ bytes: [UInt8]) -> String {
    Secrets.hex(SHA256Digest.of(bytes))
}

import Crypto
enum SHA256Digest {
    static func of(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }
}
