import Foundation
import Testing
import VFSCore
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// vfs-share against a real relay on 127.0.0.1, its links opened with the real age and
/// curl, exactly as the tool prints the command.
@Suite("vfs-share end to end", .serialized)
struct ShareToolsTests {
    /// A relay with alice's laptop enrolled.
    final class Setup: @unchecked Sendable {
        let scratch: TestFolder
        let data: URL
        let relay: RelayProcess
        let laptop: Machine

        init() throws {
            scratch = try TestFolder()
            data = scratch.url.appendingPathComponent("data")
            let admin = RelayAdmin(data: data)
            let code = try admin.addUser("alice@acme.example", org: "acme")
            relay = try RelayProcess(data: data)
            laptop = try Machine("laptop", in: scratch)
            try laptop.enroll(port: relay.port, code: code)
        }

        deinit { relay.stop() }
    }

    /// Runs `command` with bash in `folder` (the printed command uses bash's `<(…)`).
    func bash(_ command: String, in folder: String) throws -> Run {
        try Tools.run("bash", ["-c", command], cwd: URL(fileURLWithPath: folder))
    }

    @Test("vfs-share FILE --expires 3d --downloads 1: the printed command (curl | age -d -i <(echo KEY)) gives the file once, then 410; the key is nowhere on the relay; list shows the download; a bundle opens with tar; revoke is 410")
    func linkOpensWithAge() throws {
        let setup = try Setup()
        let laptop = setup.laptop
        let original = testBytes(300_000, seed: 9)
        let file = try setup.scratch.write("report.pdf", original)
        let shared = try laptop.run("vfs-share", [file, "--expires", "3d", "--downloads", "1"])
        #expect(shared.status == 0, "\(shared.stderr)")
        let lines = shared.out.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "\(shared.out)")
        let (url, command) = (lines[0], lines[1])
        let base = "http://127.0.0.1:\(setup.relay.port)/s/"
        #expect(url.hasPrefix(base) && url.contains("#AGE-SECRET-KEY-1"))
        let key = String(url.split(separator: "#")[1])
        let link = String(url.split(separator: "#")[0])
        #expect(command == "curl -fsS \(link) | age -d -i <(echo \(key)) > report.pdf")

        let out = setup.scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let opened = try bash(command, in: out)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/report.pdf")) == original)
        // The one download is used: curl -f fails on the 410, and age gets nothing.
        let again = try bash("curl -s -o /dev/null -w '%{http_code}' '\(link)'", in: out)
        #expect(again.out == "410")

        // The key is nowhere the relay keeps anything: database, blobs, uploads, its log.
        let grep = try Tools.run("grep", ["-r", "-l", "-F", key, setup.data.path])
        #expect(grep.status == 1, "found in \(grep.out)")
        let keyBody = String(key.dropFirst("AGE-SECRET-KEY-1".count))
        #expect(try Tools.run("grep", ["-r", "-l", "-i", "-F", keyBody, setup.data.path]).status == 1)
        #expect(!setup.relay.stderrText.contains(key) && !setup.relay.stdoutText.contains(key))
        #expect(!setup.relay.stderrText.lowercased().contains(keyBody.lowercased()))

        // The owner sees the download (time, bytes, address), by JSON and as text.
        let listed = try laptop.run("vfs-share", ["list", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let links = jsonArray(listed)
        #expect(links.count == 1)
        let downloads = links.first?["downloads"] as? [[String: Any]] ?? []
        #expect(downloads.count == 1 && downloads.first?["address"] as? String == "127.0.0.1")
        #expect(downloads.first?["size"] as? Int == links.first?["size"] as? Int)
        let text = try laptop.run("vfs-share", ["list"])
        #expect(text.out.contains("1/1 downloads  used") && text.out.contains("127.0.0.1"), "\(text.out)")

        // Several files: one bundle, opened by the printed command with tar.
        try FileManager.default.createDirectory(atPath: setup.scratch.path("docs/sub"), withIntermediateDirectories: true)
        try setup.scratch.write("docs/a.txt", Data("alpha\n".utf8))
        try setup.scratch.write("docs/sub/b.bin", testBytes(70_000, seed: 2))
        let notes = try setup.scratch.write("notes.txt", Data("notes\n".utf8))
        let bundle = try laptop.run("vfs-share", [setup.scratch.path("docs"), notes])
        #expect(bundle.status == 0, "\(bundle.stderr)")
        let bundleLines = bundle.out.split(separator: "\n").map(String.init)
        try #require(bundleLines.count == 2)
        #expect(bundleLines[1].hasSuffix("| tar -xf -"))
        let unpacked = setup.scratch.path("unpacked")
        try FileManager.default.createDirectory(atPath: unpacked, withIntermediateDirectories: true)
        let extracted = try bash(bundleLines[1], in: unpacked)
        #expect(extracted.status == 0, "\(extracted.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: unpacked + "/docs/sub/b.bin")) == testBytes(70_000, seed: 2))
        #expect(try String(contentsOfFile: unpacked + "/docs/a.txt", encoding: .utf8) == "alpha\n")
        #expect(try String(contentsOfFile: unpacked + "/notes.txt", encoding: .utf8) == "notes\n")
        // It had no download limit: it opens again, until it is revoked by a beginning of its id.
        let bundleLink = String(bundleLines[0].split(separator: "#")[0])
        #expect(try bash("curl -s -o /dev/null -w '%{http_code}' '\(bundleLink)'", in: unpacked).out == "200")
        let id = String(bundleLink.split(separator: "/").last!)
        let revoked = try laptop.run("vfs-share", ["revoke", String(id.prefix(8))])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(try bash("curl -s -o /dev/null -w '%{http_code}' '\(bundleLink)'", in: unpacked).out == "410")
        #expect(try laptop.run("vfs-share", ["revoke", "ffffffff"]).status == 66)
        // The spools are gone.
        #expect((try? FileManager.default.contentsOfDirectory(atPath: laptop.path + "/share-outgoing")) ?? [] == [])
    }

    @Test("--passphrase: the link holds no key, the file is an age scrypt file that opens with the passphrase")
    func passphraseLink() throws {
        let setup = try Setup()
        let original = testBytes(5_000, seed: 4)
        let file = try setup.scratch.write("secret.txt", original)
        let shared = try Tools.run("vfs-share", [file, "--passphrase", "--work-factor", "10"],
                                   environment: setup.laptop.environment.merging(["VFS_PASSPHRASE": "correct horse"]) { $1 })
        #expect(shared.status == 0, "\(shared.stderr)")
        let lines = shared.out.split(separator: "\n").map(String.init)
        try #require(lines.count == 2)
        #expect(!lines[0].contains("#"))
        #expect(lines[1] == "curl -fsS \(lines[0]) | age -d > secret.txt")
        let fetched = try Tools.run("curl", ["-fsS", lines[0]])
        #expect(fetched.status == 0)
        #expect(String(decoding: fetched.stdout.prefix(80), as: UTF8.self).contains("-> scrypt "))
        let opened = try Tools.run("vfs-decrypt", [], stdin: Data(fetched.stdout), environment: ["VFS_PASSPHRASE": "correct horse"])
        #expect(opened.status == 0 && opened.stdout == original, "\(opened.stderr)")
    }

    @Test("the link in headless chromium: the page (our script under the relay's CSP) passes RFC 8439, RFC 7748, RFC 7914 and age's own vectors, then decrypts a 100 MiB file shared with --downloads 1 byte for byte; used, the page is 410; a passphrase link opens too")
    func browserPage() throws {
        let setup = try Setup()
        let work = setup.scratch.url.appendingPathComponent("browser")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let big = setup.scratch.path("big.bin")
        #expect(try bash("head -c \(100 << 20) /dev/urandom > '\(big)'", in: setup.scratch.path("")).status == 0)
        func sha256(_ path: String) throws -> String {
            String(try Tools.run("sha256sum", [path]).out.prefix(64))
        }
        let shared = try setup.laptop.run("vfs-share", [big, "--downloads", "1", "-q"])
        #expect(shared.status == 0, "\(shared.stderr)")
        let url = String(shared.out.split(separator: "\n").first ?? "")
        let link = String(url.split(separator: "#").first ?? "")
        let listed = jsonArray(try setup.laptop.run("vfs-share", ["list", "--json"]))
        let size = try #require(listed.first?["size"] as? Int)

        // The page: HTML for a browser, under a CSP that allows scripts from the relay only, no inline script.
        let page = try Tools.run("curl", ["-sS", "-D", "-", "-H", "Accept: text/html,application/xhtml+xml", link])
        let head = page.out.lowercased()
        #expect(head.contains("content-security-policy: default-src 'none'; script-src 'self'; connect-src 'self'"), "\(page.out)")
        #expect(head.contains("content-type: text/html") && page.out.contains("<script src=\"/s/assets/share.js\" defer></script>"))
        #expect(!page.out.contains("<script>") && !page.out.contains("AGE-SECRET-KEY"))
        let served = try Tools.run("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code} %{content_type}", "http://127.0.0.1:\(setup.relay.port)/s/assets/share.js"])
        #expect(served.out == "200 text/javascript; charset=utf-8")

        let secret = setup.scratch.path("secret.txt")
        try Data("for your eyes only\n".utf8).write(to: URL(fileURLWithPath: secret))
        let locked = try Tools.run("vfs-share", [secret, "--passphrase", "--work-factor", "12", "-q"],
                                   environment: setup.laptop.environment.merging(["VFS_PASSPHRASE": "correct horse battery"]) { $1 })
        #expect(locked.status == 0, "\(locked.stderr)")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("tools/share-browser.py")
        let run = try AdminBrowserTests.runBrowser(environment: [
            "LINK": url, "SIZE": String(size), "SHA256": try sha256(big),
            "PASS_LINK": String(locked.out.split(separator: "\n").first ?? ""), "PASSPHRASE": "correct horse battery",
            "PASS_SHA256": try sha256(secret), "VECTORS": Self.vectors.path, "WORK": work.path,
        ], work: work, timeout: 900, script: script)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("all checks held"))
        // The page's download was counted and logged like any other.
        let after = jsonArray(try setup.laptop.run("vfs-share", ["list", "--json"]))
        #expect((after.first?["downloads"] as? [[String: Any]])?.count == 1)
    }

    /// age's own test vectors (CCTV), read in place from ../shared/testdata/cctv-age as the
    /// conformance tests read them.
    static let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/testdata/cctv-age")
}
