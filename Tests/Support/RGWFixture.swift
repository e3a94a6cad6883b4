import Foundation
import Synchronization

/// A real S3 engine for the tests: Ceph's RADOS Gateway on a one-node cluster in a temp
/// folder (Tests/tools/rgw-fixture.sh; Debian's radosgw, ceph-mon, ceph-osd and
/// ceph-common, which `make deps` installs). One gateway serves the whole test process
/// (it takes seconds to start); each test takes a fresh bucket from it. The daemons are
/// killed and the folder removed at exit; a gateway left by a test process that was
/// killed is stopped and removed by the next one.
public final class RGWFixture: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let endpoint: String
    public let accessKey: String
    public let secretKey: String
    public let region: String
    public let folder: String
    let cephConf: String
    private let counter = Mutex(0)
    private let stopped = Mutex(false)

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools/rgw-fixture.sh").path
    private static let shared = Mutex<Result<RGWFixture, Failure>?>(nil)

    /// The process's gateway, started on first use.
    public static func start() throws -> RGWFixture {
        try shared.withLock { shared in
            if let shared { return try shared.get() }
            let result: Result<RGWFixture, Failure>
            do {
                let gateway = try RGWFixture()
                atexit { RGWFixture.stopShared() }
                result = .success(gateway)
            } catch {
                result = .failure(error as? Failure ?? Failure(description: "\(error)"))
            }
            shared = result
            return try result.get()
        }
    }

    static func stopShared() {
        if case .success(let gateway)? = shared.withLock({ $0 }) { gateway.stop() }
    }

    init() throws {
        Self.removeAbandoned()
        let output = try Self.script(["start"])
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("export ") {
            let pair = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { values[pair[0]] = pair[1] }
        }
        guard let endpoint = values["S3_ENDPOINT"], let access = values["S3_ACCESS_KEY"], let secret = values["S3_SECRET_KEY"],
              let region = values["S3_REGION"], let folder = values["RGW_FIXTURE_DIR"], let conf = values["CEPH_CONF"] else {
            throw Failure(description: "rgw-fixture.sh start printed no settings: \(output.suffix(600))")
        }
        (self.endpoint, accessKey, secretKey, self.region, self.folder, cephConf) = (endpoint, access, secret, region, folder, conf)
        try "\(getpid())".write(toFile: "\(folder)/owner.pid", atomically: true, encoding: .utf8)
    }

    /// A new, empty bucket (made with curl, not with the code under test); with
    /// `objectLock`, made with S3 Object Lock enabled (and so versioned).
    public func newBucket(objectLock: Bool = false) throws -> String {
        let name = "vfs-\(getpid())-\(counter.withLock { n in n += 1; return n })"
        try Self.script(["bucket", folder, name] + (objectLock ? ["lock"] : []))
        return name
    }

    /// The keys of the objects in `bucket` under `prefix`, read by radosgw-admin (beside the gateway's S3 API).
    public func objectKeys(bucket: String, prefix: String = "") throws -> [String] {
        // Its notices on stderr are left out of the JSON.
        let json = try Self.run(["/bin/bash", "-c", "exec radosgw-admin -c \"$0\" bucket list --bucket=\"$1\" --max-entries=100000 2>/dev/null",
                                 cephConf, bucket])
        guard let entries = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] else {
            throw Failure(description: "radosgw-admin bucket list printed no list: \(json.prefix(300))")
        }
        return entries.compactMap { $0["name"] as? String }.filter { $0.hasPrefix(prefix) }.sorted()
    }

    /// Copies object `key` of `bucket` to `path` with curl; false when the bucket has no
    /// current object by that name (a deleted one, whose versions a versioned bucket keeps).
    public func download(bucket: String, key: String, to path: String) -> Bool {
        (try? Self.run(curl + ["-o", path, "\(endpoint)/\(bucket)/\(key)"])) != nil
    }

    /// The S3 Object Lock retention of object `key` of `bucket` (GetObjectRetention's XML:
    /// its Mode and RetainUntilDate), read with curl; nil for an object not locked.
    public func retention(bucket: String, key: String) -> String? {
        try? Self.run(curl + ["\(endpoint)/\(bucket)/\(key)?retention="])
    }

    /// How many versions and delete markers of object `key` `bucket` keeps (ListObjectVersions,
    /// read with curl), once `settled` holds of the count (RGW's index of a versioned bucket
    /// may show a write or a delete a moment late), else as it is after 30 seconds.
    public func versions(bucket: String, key: String, until settled: (Int) -> Bool) throws -> Int {
        let deadline = Date().addingTimeInterval(30)
        while true {
            let listing = try Self.run(curl + ["\(endpoint)/\(bucket)?versions="])
            guard !listing.contains("<IsTruncated>true</IsTruncated>") else {
                throw Failure(description: "bucket \(bucket) has more than 1000 versions")
            }
            let count = listing.components(separatedBy: "<Key>\(key)</Key>").count - 1
            if settled(count) || Date() > deadline { return count }
            usleep(200_000)
        }
    }

    /// curl signing as the gateway's user.
    var curl: [String] {
        ["/usr/bin/curl", "-sf", "--aws-sigv4", "aws:amz:\(region):s3", "--user", "\(accessKey):\(secretKey)",
         "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD"]
    }

    /// Multipart uploads in progress in `bucket`, as `KEY UPLOADID` lines, read with curl.
    public func multipartUploads(bucket: String) throws -> String {
        try Self.run(curl + ["\(endpoint)/\(bucket)?uploads="])
    }

    /// Kills the daemons and removes the folder; idempotent.
    public func stop() {
        guard stopped.withLock({ done in defer { done = true }; return !done }) else { return }
        _ = try? Self.script(["stop", folder])
    }

    @discardableResult
    static func script(_ arguments: [String]) throws -> String {
        try run(["/bin/bash", script] + arguments)
    }

    /// Runs a program with its output in a file (a daemon it leaves running never holds a pipe).
    @discardableResult
    static func run(_ argv: [String]) throws -> String {
        let outputPath = "/tmp/vfs-rgw-out-\(getpid())-\(UUID().uuidString)"
        defer { unlink(outputPath) }
        let ran = try spawnAndWait(argv, output: outputPath)
        guard ran.succeeded else {
            throw Failure(description: "\(argv.prefix(3).joined(separator: " ")) failed (status \(ran.status)): \(ran.text.suffix(1500))")
        }
        return ran.text
    }

    /// Gateways whose test process is gone (killed before its exit handler ran).
    static func removeAbandoned() {
        let temporary = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] where name.hasPrefix("vfs-rgw-") {
            let folder = "\(temporary)/\(name)"
            guard let text = try? String(contentsOfFile: "\(folder)/owner.pid", encoding: .utf8),
                  let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            _ = try? script(["stop", folder])
        }
    }
}
