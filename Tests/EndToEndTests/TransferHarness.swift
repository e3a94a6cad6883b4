import Foundation
import Testing
import VFSCore
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// One enrolled machine for the transfer tools: its own VFS_HOME, keychain (fast work
/// factor, passcode in VFS_PASSCODE) and agent folder.
final class Machine: @unchecked Sendable {
    let name: String
    let home: URL
    let passcode = "machine passcode"
    var relayURL: String?
    var id = ""

    init(_ name: String, in scratch: TestFolder) throws {
        self.name = name
        home = scratch.url.appendingPathComponent("home-\(name)")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("run"), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try Data((passcode + "\n").utf8).write(to: home.appendingPathComponent("passcode"))
        let made = try run("vfs-keychain", ["init", "--work-factor", "8", "--passcode-file", home.appendingPathComponent("passcode").path])
        guard made.status == 0 else { throw HarnessError("keychain init: \(made.stderr)") }
    }

    var path: String { home.path }
    var keychainPath: String { home.appendingPathComponent("keychain").path }

    var environment: [String: String] {
        // VFS_RETRY_FOR=0: a failure the tools would try again for minutes (the relay down,
        // 503, 507) is reported at once, as the tests of those failures expect; the tests of
        // the retry itself give --retry-for, which wins.
        var env = ["VFS_HOME": home.path, "VFS_PASSCODE": passcode, "XDG_RUNTIME_DIR": home.appendingPathComponent("run").path,
                   "VFS_RETRY_FOR": "0"]
        if let relayURL { env["VFS_RELAY"] = relayURL }
        return env
    }

    @discardableResult
    func run(_ tool: String, _ arguments: [String], stdin: Data? = nil, cwd: URL? = nil) throws -> Run {
        try Tools.run(tool, arguments, stdin: stdin, cwd: cwd, environment: environment)
    }

    /// Enrols with the relay on `port` using `code`. A user's later device finds a chain
    /// it has never seen and stops (77, issue 43, item 6): as its person would, this takes
    /// the chain with a fingerprint the refusal lists (vfs-device list --accept-chain).
    func enroll(port: Int, code: String, arguments: [String] = []) throws {
        let result = try run("vfs-device", ["enroll", "http://127.0.0.1:\(port)", code, "--name", name] + arguments)
        id = result.out.trimmingCharacters(in: .whitespacesAndNewlines)
        if result.status == 77, let fingerprint = Self.listedFingerprint(result.stderr) {
            let accepted = try run("vfs-device", ["list", "--accept-chain", fingerprint])
            guard accepted.status == 0 else { throw HarnessError("accept-chain \(name): \(accepted.stderr)") }
            return
        }
        guard result.status == 0 else { throw HarnessError("enroll \(name): \(result.stderr)") }
    }

    /// The first device fingerprint a refusal of an unseen chain lists ("in it: …").
    static func listedFingerprint(_ stderr: String) -> String? {
        for line in stderr.split(separator: "\n") where line.contains("hint: in it: ") {
            if let match = line.split(whereSeparator: { $0 == " " || $0 == "," }).first(where: { $0.count == 29 && $0.filter { $0 == "-" }.count == 4 }) {
                return String(match)
            }
        }
        return nil
    }

    /// The keychain's entries, opened in process with the passcode.
    func keychainEntries() throws -> [KeychainEntry] {
        let sealed = try KeychainStore(path: keychainPath).read()
        return try sealed.open(masterKey: try sealed.unlock(passcode: SecretBytes(copying: Array(passcode.utf8))))
    }

    /// The device identity exported from the keychain as an age identity file.
    func exportIdentity(to path: String) throws {
        guard let entry = try keychainEntries().first(where: { $0.kind == .identity && $0.service == "vfs-device" }) else {
            throw HarnessError("no vfs-device identity in \(name)'s keychain")
        }
        try Data(KeyFile.identityFileText(.x25519(try entry.identity()), created: "test").utf8).write(to: URL(fileURLWithPath: path))
    }

    /// This machine's fingerprint (vfs-device fingerprint).
    func fingerprint() throws -> String {
        let result = try run("vfs-device", ["fingerprint"])
        guard result.status == 0 else { throw HarnessError("fingerprint \(name): \(result.stderr)") }
        return result.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Approves `other` into this machine's user's device chain, comparing its fingerprint.
    func approve(_ other: Machine) throws {
        let result = try run("vfs-device", ["approve", other.name, "--fingerprint", try other.fingerprint()])
        guard result.status == 0 else { throw HarnessError("approve \(other.name): \(result.stderr)") }
    }

    /// Starts a tool in the background (a watcher, a --wait push); `stdin`: what it reads
    /// (nothing by default).
    func start(_ tool: String, _ arguments: [String], log: URL, stdin: FileHandle = .nullDevice) throws -> Process {
        let process = Process()
        process.executableURL = Tools.binDir.appendingPathComponent(tool)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for name in ["VFS_PASSPHRASE", "VFS_PASSCODE", "VFS_HOME", "VFS_KEYCHAIN", "VFS_POLICY", "VFS_RELAY"] { env.removeValue(forKey: name) }
        env.merge(environment) { _, new in new }
        process.environment = env
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardInput = stdin
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = process.standardOutput
        try process.run()
        return process
    }
}

/// A relay with alice's laptop, phone and tablet and bob's desktop enrolled.
final class Fleet: @unchecked Sendable {
    let scratch: TestFolder
    let data: URL
    let admin: RelayAdmin
    var relay: RelayProcess
    let laptop: Machine, phone: Machine, tablet: Machine, desktop: Machine
    /// The bucket of Ceph's RADOS Gateway the blobs are in (`storeArguments` name it), if not the data folder.
    let bucket: (gateway: RGWFixture, name: String)?

    /// `database`: a PostgreSQL URL the relay and its operator's commands use (else the
    /// data folder's SQLite). `storeArguments` (`--blobs s3://…`) go to the relay and to
    /// every admin command too; `bucket` is the bucket they name, if any.
    init(relayArguments: [String] = [], database: String? = nil, storeArguments: [String] = [],
         bucket: (gateway: RGWFixture, name: String)? = nil) throws {
        scratch = try TestFolder()
        data = scratch.url.appendingPathComponent("data")
        self.bucket = bucket
        let onStore = (database.map { ["--database", $0] } ?? []) + storeArguments
        admin = RelayAdmin(data: data, options: onStore)
        let alice = try admin.addUser("alice@acme.example", org: "acme")
        let bob = try admin.addUser("bob@acme.example", org: "acme")
        relay = try RelayProcess(data: data, arguments: relayArguments + onStore)
        laptop = try Machine("laptop", in: scratch)
        phone = try Machine("phone", in: scratch)
        tablet = try Machine("tablet", in: scratch)
        desktop = try Machine("desktop", in: scratch)
        try laptop.enroll(port: relay.port, code: alice)
        try phone.enroll(port: relay.port, code: try admin.invite("alice@acme.example"))
        // The tablet's code comes from the laptop (vfs-device invite), not the operator.
        let invite = try laptop.run("vfs-device", ["invite"])
        guard invite.status == 0 else { throw HarnessError("invite: \(invite.stderr)") }
        try tablet.enroll(port: relay.port, code: invite.out.trimmingCharacters(in: .whitespacesAndNewlines))
        try desktop.enroll(port: relay.port, code: bob)
        // The laptop, alice's first device, started her device chain; it approves the others.
        try laptop.approve(phone)
        try laptop.approve(tablet)
    }

    deinit { relay.stop() }

    /// Every file under the relay's data folder except the database: the stored blobs and
    /// uploads; with a bucket, a copy of each of its current objects (kept once copied).
    func storedFiles() -> [URL] {
        guard let bucket else { return relayStoredFiles(in: data) }
        let copies = scratch.url.appendingPathComponent("objects")
        try? FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
        return Set((try? bucket.gateway.objectKeys(bucket: bucket.name)) ?? []).sorted().compactMap { key in
            let copy = copies.appendingPathComponent(key.replacingOccurrences(of: "/", with: "%"))
            if FileManager.default.fileExists(atPath: copy.path) { return copy }
            return bucket.gateway.download(bucket: bucket.name, key: key, to: copy.path) ? copy : nil
        }
    }

    /// The S3 Object Lock retention (GetObjectRetention's XML) of the object `storedFiles`
    /// copied to `copy`; nil without a bucket, or for an object not locked.
    func retention(of copy: URL) -> String? {
        bucket.flatMap { $0.gateway.retention(bucket: $0.name, key: copy.lastPathComponent.replacingOccurrences(of: "%", with: "/")) }
    }

    /// Runs SQL on the relay's database (sqlite3), for tests that play a lying relay.
    func sql(_ statement: String) throws {
        let database = try FileManager.default.contentsOfDirectory(atPath: data.path).first { $0.hasSuffix(".sqlite") }
        let result = try Tools.run("sqlite3", [data.appendingPathComponent(database ?? "relay.sqlite").path, statement])
        guard result.status == 0 else { throw HarnessError("sqlite3: \(result.stderr)") }
    }
}

/// Waits until `condition` holds (polling); false if it never did within `seconds`.
func eventually(_ seconds: Double = 60, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(50_000)
    }
    return try condition()
}

/// The JSON array a tool printed.
func jsonArray(_ run: Run) -> [[String: Any]] {
    (try? JSONSerialization.jsonObject(with: run.stdout)) as? [[String: Any]] ?? []
}

/// A throttled TCP proxy to a local port, killed on release.
typealias SlowProxy = TestProxy

/// A proxy to a local port that holds uploads (Tests/tools/gate-proxy.py): PATCH bodies
/// pass only up to the gate's count of bytes, every other request at once.
final class GateProxy: ToolProxy {
    let control: URL

    init(to target: Int, holdAt bytes: Int, in folder: URL) throws {
        control = folder.appendingPathComponent("gate-\(UUID().uuidString)")
        try Data(String(bytes).utf8).write(to: control)
        try super.init(tool: "gate-proxy.py", arguments: [String(target), control.path])
    }

    /// Lets every upload through.
    func open() throws { try Data("-1".utf8).write(to: control, options: .atomic) }

    var url: String { "http://127.0.0.1:\(port)" }
}

/// Every file under a relay's data folder except the database, its lock and ballast: the stored blobs and uploads.
func relayStoredFiles(in data: URL) -> [URL] {
    let walker = FileManager.default.enumerator(at: data, includingPropertiesForKeys: [.isRegularFileKey])
    var out: [URL] = []
    while let url = walker?.nextObject() as? URL {
        if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true, !url.lastPathComponent.contains("sqlite"), !["serve.lock", "ballast"].contains(url.lastPathComponent) {
            out.append(url)
        }
    }
    return out
}
