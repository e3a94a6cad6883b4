import Foundation
import HummingbirdTesting
import Logging
import Testing
import VFSCore
import VFSRelayClient
import VFSRelayProtocol
import VFSRelayServer
import VFSTestSupport

/// The relay the workflow tests drive: built as vfs-relay serve builds it (`buildRelay`)
/// and run in this process by Hummingbird's live test framework on 127.0.0.1, port 0.
/// The client's HTTP goes through AsyncHTTPClient, which needs a socket, so it cannot be
/// pointed at the router alone. Users and their codes come from `vfs-relay user add` and
/// `vfs-relay invite` on the relay's data folder; each device is a session in a home of
/// its own, made as `vfs-device enroll` makes it (credentials in files).
final class WorkflowRelay: @unchecked Sendable {
    let folder: TestFolder
    let data: URL
    let url: String
    private var organisations: Set<String> = []

    /// A device of a user as the tests hold it: its session and its keys.
    struct Member: Sendable {
        var session: RelaySession
        let identity: AgeIdentity
        let signingKey: Ed25519.SigningKey
        var recipient: String { identity.recipient.string }
        var fingerprint: String { Fingerprint.device(signingKey: signingKey.publicKey, recipient: recipient) }
        var home: String { session.home }
    }

    private init(folder: TestFolder, data: URL, url: String) {
        (self.folder, self.data, self.url) = (folder, data, url)
    }

    /// Runs `body` against a new relay, stopped when it returns.
    static func run(_ body: @escaping @Sendable (WorkflowRelay) async throws -> Void) async throws {
        let folder = try TestFolder("workflow")
        let data = folder.url.appendingPathComponent("relay")
        var logger = Logger(label: "workflow-relay")
        // Its stop cancels the connections still open (said at .error): not the tests' concern.
        logger.logLevel = .critical
        let relay = try await buildRelay(RelayConfiguration(dataFolder: data, port: 0), logger: logger)
        try await relay.application.test(.live) { client in
            let port = try #require(client.port)
            try await body(WorkflowRelay(folder: folder, data: data, url: "http://127.0.0.1:\(port)"))
        }
    }

    /// What `vfs-relay ARGUMENTS --data DIR` prints (its last line: a code).
    func relayTool(_ arguments: [String]) throws -> String {
        let run = try Tools.run("vfs-relay", arguments + ["--data", data.path])
        try #require(run.status == 0, "vfs-relay \(arguments): \(run.stderr)")
        return String(run.out.split(separator: "\n").last ?? "")
    }

    /// A new user's first device, which starts the user's device chain.
    func firstDevice(_ email: String, name: String, org: String = "acme") async throws -> Member {
        if !organisations.contains(org) {
            _ = try relayTool(["org", "add", org])
            organisations.insert(org)
        }
        let code = try relayTool(["user", "add", email, "--org", org])
        return try await enrol(code: code, name: name, acceptance: .refuse)
    }

    /// Another device of `email`, pending until `approve`: it takes the user's chain on
    /// the fingerprint of `existing` (`--accept-chain`).
    func anotherDevice(of email: String, name: String, accepting existing: Member) async throws -> Member {
        let code = try relayTool(["invite", email])
        return try await enrol(code: code, name: name, acceptance: .fingerprint(existing.fingerprint))
    }

    func enrol(code: String, name: String, acceptance: ChainAcceptance) async throws -> Member {
        let home = folder.path(name)
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let identity = AgeIdentity.x25519(try X25519Identity.generate())
        let key = try Ed25519.SigningKey()
        let answer = try await RelayClient.with(baseURL: url, token: nil) {
            try await $0.enroll(EnrollRequest(code: code, name: name, platform: "linux", recipient: identity.recipient.string))
        }
        let place = CredentialPlace(tokenFile: home + "/token", identityFile: home + "/identity.txt", keychainPath: home + "/keychain",
                                    passcode: { throw ToolFailure("no keychain in these tests") })
        try DeviceCredentials.save(place, token: answer.token, identity: identity, signingKey: key)
        try DeviceConfig(relay: url, device: answer.device.id, name: answer.device.name).save(home: home)
        var session = try RelaySession.open(home: home, place: place, identity: true, signingKey: true)
        session.warn = { _ in }
        let joining = session
        _ = try await joining.withClient {
            try await joining.joinChain($0, key: key, recipient: identity.recipient.string, enrolling: true, acceptance: acceptance)
        }
        return Member(session: session, identity: identity, signingKey: key)
    }

    /// `approver` adds `device` to their user's chain (`vfs-device approve`).
    func approve(_ device: Member, by approver: Member) async throws {
        let session = approver.session
        try await session.withClient { client in
            let trust = try await session.deviceTrust(client)
            let entry = DeviceChain.DeviceEntry(id: device.session.config.device, name: device.session.config.name,
                                                recipient: device.recipient, signingKey: device.signingKey.publicKey)
            _ = try await session.append(.add(entry), to: trust, key: approver.signingKey, client: client)
        }
    }
}

/// A report that keeps what the workflow said.
final class KeptReport: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    var said: [String] { lock.withLock { lines } }

    var report: ClientReport {
        ClientReport(info: { self.keep("info: " + $0) }, warn: { self.keep("warning: " + $0) }, error: { self.keep("error: " + $0) },
                     write: { self.keep($0) }, progress: { _, _ in nil }, reportable: { _ in false })
    }

    private func keep(_ line: String) { lock.withLock { lines.append(line) } }
}

struct ToolFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
