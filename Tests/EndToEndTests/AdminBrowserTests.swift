import Foundation
import Testing
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The admin web page in a real browser (Debian's chromium and chromium-driver, driven by
/// selenium from PyPI; `make deps` installs them): Tests/tools/admin-browser.py does the
/// clicking and checks what the pages show; this test sets up the relay and its devices,
/// then checks the effects with the tools.
@Suite("vfs-relay admin page in chromium", .serialized)
struct AdminBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools/admin-browser.py")

    /// Runs the browser script in its own process group; kills the whole group (script,
    /// chromedriver, chromium) when it ends or after `timeout` seconds, whatever happened.
    static func runBrowser(environment: [String: String], work: URL, timeout: TimeInterval = 600,
                           script: URL = Self.script) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let log = work.appendingPathComponent("browser.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = process.standardOutput
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        defer {
            // The script made its own group (its pid); its leftovers die with it.
            let group = (try? String(contentsOf: work.appendingPathComponent("pgid"), encoding: .utf8))
                .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? process.processIdentifier
            kill(-group, SIGKILL)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        while process.isRunning && Date() < deadline { usleep(100_000) }
        let finished = !process.isRunning
        if finished { process.waitUntilExit() }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return (finished ? process.terminationStatus : -1, finished ? output : output + "\n(timed out)")
    }

    @Test("sign in, add an app a device reads, a conflicting edit shown, revoke a device, sign out; CSRF, non-admin code, <script> name")
    func browser() throws {
        let scratch = try TestFolder("admin-browser")
        let data = scratch.url.appendingPathComponent("data")
        let admin = RelayAdmin(data: data)
        let annCode = try admin.addUser("ann@acme.example", org: "acme", admin: true)
        let bobCode = try admin.addUser("bob@acme.example", org: "acme")
        let relay = try RelayProcess(data: data)
        defer { relay.stop() }
        let laptop = try Machine("laptop", in: scratch)
        try laptop.enroll(port: relay.port, code: annCode)
        let phone = try Machine("phone", in: scratch)
        try phone.enroll(port: relay.port, code: bobCode)
        let client = RelayClient(port: relay.port)
        let tablet = try client.enroll(code: try admin.invite("ann@acme.example"), name: "tablet")
        // A transfer in flight for the outbox page.
        _ = try client.send(upload: try client.upload(Array("ciphertext".utf8), token: tablet.token), to: [laptop.id], token: tablet.token)

        // Codes: the operator's, and one the admin's own device asks for.
        let operatorCode = try admin.run(["login-code", "ann@acme.example"])
        #expect(operatorCode.status == 0, "\(operatorCode.stderr)")
        let link = try laptop.run("vfs-device", ["admin-link"])
        #expect(link.status == 0, "\(link.stderr)")
        let lines = link.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[0] == "http://127.0.0.1:\(relay.port)/admin/")
        // Neither gives a member a code ...
        let refused = try admin.run(["login-code", "bob@acme.example"])
        #expect(refused.status == 77 && refused.stderr.contains("vfs-relay: error: \"bob@acme.example\" is not an administrator"))
        #expect(try phone.run("vfs-device", ["admin-link"]).status == 77)
        // ... so the member's code is one written into the database directly, as a relay
        // that lost track of who is an admin would hold it.
        let memberCode = "MEMB-ERCO-DE23-4567"
        let hash = try Tools.run("python3", ["-c", "import hashlib,sys; print(hashlib.sha256(b'login:MEMBERCODE234567').hexdigest())"])
            .out.trimmingCharacters(in: .whitespacesAndNewlines)
        let database = data.appendingPathComponent("relay.sqlite").path
        let inserted = try Tools.run("sqlite3", [database, """
            INSERT INTO login_codes(code_hash, user_id, created, expires)
            SELECT '\(hash)', id, strftime('%s','now'), strftime('%s','now') + 600 FROM users WHERE email = 'bob@acme.example'
            """])
        #expect(inserted.status == 0, "\(inserted.stderr)")

        #expect(try phone.run("vfs-device", ["status"]).status == 0)
        let work = scratch.url.appendingPathComponent("browser")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let run = try Self.runBrowser(environment: [
            "RELAY": "http://127.0.0.1:\(relay.port)", "ADMIN_CODE": operatorCode.out.trimmingCharacters(in: .whitespacesAndNewlines),
            "ADMIN_CODE2": lines.last ?? "", "MEMBER_CODE": memberCode, "DEVICE_TOKEN": tablet.token,
            "REVOKE_ID": phone.id, "REVOKE_NAME": "phone", "WORK": work.path,
        ], work: work)
        if let keep = ProcessInfo.processInfo.environment["VFS_KEEP_SCREENSHOTS"] {
            try? FileManager.default.removeItem(atPath: keep)
            try? FileManager.default.copyItem(at: work.appendingPathComponent("screenshots"), to: URL(fileURLWithPath: keep))
        }
        #expect(run.status == 0, "\(run.output)\n\(relay.stderrText.suffix(3000))")
        #expect(run.output.contains("all checks held"))
        for name in ["items", "conflict", "devices", "revoke-confirm", "outbox", "audit", "sign-in-refused", "signed-out"] {
            let shot = work.appendingPathComponent("screenshots/\(name).png")
            let bytes = (try? Data(contentsOf: shot)) ?? Data()
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "no screenshot \(name).png")
        }

        // What the page did, seen by the tools: the revoked phone is refused (77), the
        // laptop is not, and a device reads the item with the other session's name.
        let status = try phone.run("vfs-device", ["status"])
        #expect(status.status == 77, "\(status.stderr)")
        #expect(status.stderr.hasPrefix("vfs-device: error:"))
        #expect(try laptop.run("vfs-device", ["status"]).status == 0)
        let items = try client.request("GET", "/v1/items", token: tablet.token)
        let list = try JSONSerialization.jsonObject(with: Data(items.body)) as? [[String: Any]] ?? []
        #expect(list.count == 1 && list.first?["app"] as? String == "com.example.viewer" && list.first?["name"] as? String == "Viewer B")
        // Every browser and driver process is gone.
        let left = try Tools.run("pgrep", ["-f", "user-data-dir=\(work.path)"])
        #expect(left.out.isEmpty, "left running: \(left.out)")
    }
}
