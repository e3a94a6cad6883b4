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

    @Test("the link in headless chromium: the page (our script under the relay's CSP) passes RFC 8439, RFC 7748, RFC 7914 and age's own vectors, then streams a 100 MiB file shared with --downloads 1 to disk as it decrypts, byte for byte; used, the page is 410; a passphrase link opens in memory where there is no service worker; a changed chunk fails the download and leaves no file")
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

        // A link whose stored ciphertext the relay (or its disk) changed: a byte of its last
        // chunk, so the page has streamed most of it to the download before it finds out.
        let blobs = setup.data.appendingPathComponent("blobs").path
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: blobs))
        let victim = try setup.scratch.write("victim.bin", testBytes(3 << 20, seed: 51))
        let tampered = try setup.laptop.run("vfs-share", [victim, "-q"])
        #expect(tampered.status == 0, "\(tampered.stderr)")
        let added = try FileManager.default.contentsOfDirectory(atPath: blobs).filter { !before.contains($0) && !$0.hasPrefix(".") }
        let blob = try #require(added.count == 1 ? added.first : nil, "\(added)")
        let handle = try #require(FileHandle(forUpdatingAtPath: blobs + "/" + blob))
        let end = try handle.seekToEnd()
        try handle.seek(toOffset: end - 100)
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: end - 100)
        try handle.write(contentsOf: [byte ^ 1])
        try handle.close()

        let run = try AdminBrowserTests.runBrowser(environment: [
            "LINK": url, "SIZE": String(size), "SHA256": try sha256(big),
            "PASS_LINK": String(locked.out.split(separator: "\n").first ?? ""), "PASSPHRASE": "correct horse battery",
            "PASS_SHA256": try sha256(secret), "VECTORS": Self.vectors.path, "WORK": work.path,
            "TAMPERED_LINK": String(tampered.out.split(separator: "\n").first ?? ""),
        ], work: work, timeout: 900, script: Self.browserScript)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("all checks held"))
        // The page's download was counted and logged like any other.
        let after = jsonArray(try setup.laptop.run("vfs-share", ["list", "--json"]))
        #expect((after.first?["downloads"] as? [[String: Any]])?.count == 1)
    }

    @Test("a counted download carries VFS-Resume: with it and a Range the rest comes (206) without counting, after the link is used up; without it, with a wrong one or after a revoke, 410")
    func resumeCountedDownload() throws {
        let setup = try Setup()
        let file = try setup.scratch.write("notes.bin", testBytes(300_000, seed: 52))
        let made = try setup.laptop.run("vfs-share", [file, "--downloads", "1", "-q"])
        #expect(made.status == 0, "\(made.stderr)")
        let link = String(made.out.split(separator: "\n").first?.split(separator: "#").first ?? "")
        let folder = setup.scratch.path("")
        // The one download, cut short after 1000 bytes (curl asks for only those).
        let first = try bash("curl -sS -D head1 -o part1 -r 0-999 '\(link)'", in: folder)
        #expect(first.status == 0, "\(first.stderr)")
        let head = try String(contentsOfFile: folder + "/head1", encoding: .utf8)
        let token = try #require(head.split(whereSeparator: \.isNewline).first { $0.lowercased().hasPrefix("vfs-resume: ") }.map { String($0.dropFirst(12)) },
                                 "\(head)")
        #expect(token.count == 64)
        func status(_ arguments: String) throws -> String {
            try bash("curl -s -o rest -w '%{http_code}' \(arguments) '\(link)'", in: folder).out
        }
        #expect(try status("") == "410", "used up: a new download is refused")
        #expect(try status("-H 'VFS-Resume: \(String(repeating: "0", count: 64))' -r 1000-") == "410", "a wrong token")
        #expect(try status("-H 'VFS-Resume: \(token)' -r 1000-") == "206")
        // The two parts are the link's ciphertext: it opens with the key.
        let key = String(made.out.split(separator: "\n").first?.split(separator: "#").last ?? "")
        let opened = try bash("cat part1 rest | age -d -i <(echo '\(key)') > back && cmp back '\(file)'", in: folder)
        #expect(opened.status == 0, "\(opened.stderr)")
        // Still one download, logged once.
        let listed = jsonArray(try setup.laptop.run("vfs-share", ["list", "--json"]))
        #expect((listed.first?["downloads"] as? [[String: Any]])?.count == 1, "\(listed)")
        let id = try #require(listed.first?["id"] as? String)
        #expect(try setup.laptop.run("vfs-share", ["revoke", id]).status == 0)
        #expect(try status("-H 'VFS-Resume: \(token)' -r 1000-") == "410", "revoked: the token no longer continues it")
    }

    @Test("vfs-share request --uploads 2: the printed command (age -r RECIPIENT FILE | curl -T - LINK) sends a file that vfs-fetch receives byte for byte, marked external and unsigned; not age, a passphrase file and a file to two recipients are 415; a third file is 410; list and revoke see the request")
    func requestTakesAgeFiles() throws {
        let setup = try Setup()
        let laptop = setup.laptop
        let made = try laptop.run("vfs-share", ["request", "--uploads", "2", "--expires", "2d"])
        #expect(made.status == 0, "\(made.stderr)")
        let lines = made.out.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "\(made.out)")
        let (link, command) = (lines[0], lines[1])
        #expect(link.hasPrefix("http://127.0.0.1:\(setup.relay.port)/r/"))
        // The link gives the recipients (age -R's file): the laptop's, the one in the command.
        let recipients = try Tools.run("curl", ["-fsS", link])
        #expect(recipients.status == 0)
        let recipient = recipients.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(recipient.hasPrefix("age1") && !recipient.contains("\n"))
        #expect(command == "age -r \(recipient) FILE | curl -T - \(link)")

        let folder = setup.scratch.path("")
        func status(_ script: String) throws -> String {
            try bash(script + " -s -o /dev/null -w '%{http_code}'", in: folder).out
        }
        // Refused with 415, nothing counted: not age, a passphrase (scrypt), two recipients.
        let original = testBytes(200_000, seed: 21)
        let report = try setup.scratch.write("report.pdf", original)
        #expect(try status("curl -T '\(report)' '\(link)'") == "415")
        let locked = try Tools.run("vfs-encrypt", ["-p", "--work-factor", "10", "-o", setup.scratch.path("locked.age"), report],
                                   environment: ["VFS_PASSPHRASE": "correct horse"])
        #expect(locked.status == 0, "\(locked.stderr)")
        #expect(try status("curl -T locked.age '\(link)'") == "415")
        let other = try Tools.run("age-keygen", [])
        let otherRecipient = try #require(other.stderr.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(try status("age -r \(recipient) -r \(otherRecipient) '\(report)' | curl -T - '\(link)'") == "415")

        // The printed command, FILE filled in; then one named by the link's path.
        let sent = try bash(command.replacingOccurrences(of: "FILE", with: "'\(report)'"), in: folder)
        #expect(sent.status == 0 && sent.out.hasPrefix("received:"), "\(sent.out) \(sent.stderr)")
        let second = testBytes(70_000, seed: 22)
        let notes = try setup.scratch.write("notes.bin", second)
        #expect(try status("age -r \(recipient) '\(notes)' | curl -T - '\(link)/notes.bin'") == "201")
        #expect(try status("age -r \(recipient) '\(notes)' | curl -T - '\(link)'") == "410")

        // The inbox lists both as external; vfs-fetch says so and places them.
        let inbox = try laptop.run("vfs-fetch", [])
        #expect(inbox.status == 0 && inbox.out.components(separatedBy: "(external, unsigned)").count == 3, "\(inbox.out)")
        let out = setup.scratch.path("inbox")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let fetched = try laptop.run("vfs-fetch", ["--all", "-C", out])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stderr.components(separatedBy: "is external: sent in through your file request").count == 3, "\(fetched.stderr)")
        let placed = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(placed.count == 2 && placed.contains("notes.bin") && placed.contains { $0.hasPrefix("external-") }, "\(placed)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/notes.bin")) == second)
        let unnamed = try #require(placed.first { $0.hasPrefix("external-") })
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/" + unnamed)) == original)
        #expect(try laptop.run("vfs-fetch", ["--json"]).out.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")

        // The owner sees the request and both files; revoke works on it.
        let list = try laptop.run("vfs-share", ["list"])
        #expect(list.status == 0 && list.out.contains("2/2 files  used") && list.out.contains("\"notes.bin\""), "\(list.out)")
        let requests = jsonArray(try laptop.run("vfs-share", ["list", "--requests", "--json"]))
        #expect(requests.count == 1 && (requests.first?["uploads"] as? [[String: Any]])?.count == 2)
        let id = try #require(requests.first?["id"] as? String)
        #expect(try laptop.run("vfs-share", ["revoke", String(id.prefix(8))]).status == 0)
        let revoked = jsonArray(try laptop.run("vfs-share", ["list", "--requests", "--json"]))
        #expect(revoked.first?["revoked"] != nil)
    }

    @Test("a file request in headless chromium: the page lists the recipients, what its script encrypts its own decryption opens, and the file it encrypts and sends is what vfs-fetch receives, byte for byte")
    func requestPage() throws {
        let setup = try Setup()
        let work = setup.scratch.url.appendingPathComponent("browser-request")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let made = try setup.laptop.run("vfs-share", ["request", "--uploads", "1"])
        #expect(made.status == 0, "\(made.stderr)")
        let link = String(made.out.split(separator: "\n").first ?? "")
        let recipients = try Tools.run("curl", ["-fsS", link]).out
        // A key of age-keygen's, for the page's own round trip.
        let key = try Tools.run("age-keygen", [])
        let identity = try #require(key.out.split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-1") }.map(String.init))
        let recipient = try #require(key.stderr.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        let original = testBytes(1_500_000, seed: 31)
        let file = try setup.scratch.write("from the page.bin", original)
        let run = try AdminBrowserTests.runBrowser(environment: [
            "REQUEST_LINK": link, "REQUEST_RECIPIENTS": recipients, "UPLOAD_FILE": file,
            "KEY_IDENTITY": identity, "KEY_RECIPIENT": recipient, "WORK": work.path,
        ], work: work, timeout: 600, script: Self.browserScript)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("all checks held"))
        let out = setup.scratch.path("from-browser")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let fetched = try setup.laptop.run("vfs-fetch", ["--all", "-C", out])
        #expect(fetched.status == 0 && fetched.stderr.contains("is external"), "\(fetched.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/from the page.bin")) == original)
    }

    static let browserScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools/share-browser.py")

    /// age's own test vectors (CCTV), read in place from ../shared/testdata/cctv-age as the
    /// conformance tests read them.
    static let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/testdata/cctv-age")

    @Test("vfs-relay org set --links: vfs-share refuses a link past the organisation's limits before it uploads (77, one line and a hint); a link that names none gets them; --links off refuses links and requests; org show prints them; bad settings are 64")
    func organisationLinkSettings() throws {
        let setup = try Setup()
        let laptop = setup.laptop
        let admin = RelayAdmin(data: setup.data)
        let set = try admin.run(["org", "set", "acme", "--link-max-expiry", "2d", "--link-max-downloads", "3", "--link-max-size", "100K"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stderr.contains("acme: share links and file requests on: expire within 2d, allow 3 downloads at most, hold 100"), "\(set.stderr)")
        let shown = try admin.run(["org", "show", "acme", "--json"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.out.utf8)) as? [String: Any])
        let links = try #require(object["links"] as? [String: Any])
        #expect(links["allowed"] as? Bool == true && links["maxExpiry"] as? Int == 172_800 && links["maxDownloads"] as? Int == 3
                && links["maxSize"] as? Int == 102_400, "\(shown.out)")
        #expect(object["minRetention"] is NSNull || object["minRetention"] == nil)
        for bad in [["--links", "maybe"], ["--link-max-expiry", "2"], ["--link-max-downloads", "0"], ["--link-max-size", "lots"], []] {
            let refused = try admin.run(["org", "set", "acme"] + bad)
            #expect(refused.status == 64, "\(bad): \(refused.stderr)")
        }
        #expect(try admin.run(["org", "show", "nowhere"]).status == 66)

        let small = try setup.scratch.write("small.txt", Data("small\n".utf8))
        let big = try setup.scratch.write("big.bin", testBytes(200_000, seed: 4))
        func refusedBeforeUpload(_ arguments: [String], saying text: String) throws {
            let answer = try laptop.run("vfs-share", arguments)
            #expect(answer.status == 77, "\(arguments): \(answer.stderr)")
            let lines = answer.stderr.split(separator: "\n")
            #expect(lines.first?.hasPrefix("vfs-share: error: ") == true && lines.first?.contains(text) == true, "\(answer.stderr)")
            #expect(answer.stderr.contains("vfs-relay org set --links"), "\(answer.stderr)")
            #expect(answer.out.isEmpty)
        }
        try refusedBeforeUpload([small, "--expires", "3d"], saying: "expire within 2 day(s) at most")
        try refusedBeforeUpload([small, "--downloads", "4"], saying: "3 download(s) at most")
        try refusedBeforeUpload([big], saying: "hold 102400 bytes at most")
        // Nothing was uploaded or made: no link, no upload left on the relay.
        #expect(jsonArray(try laptop.run("vfs-share", ["list", "--json"])).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.data.path + "/uploads").filter { !$0.hasPrefix(".") }.isEmpty)

        // Within the limits, a link that names none gets them.
        let made = try laptop.run("vfs-share", [small, "--json"])
        #expect(made.status == 0, "\(made.stderr)")
        let link = try #require(try JSONSerialization.jsonObject(with: Data(made.out.utf8)) as? [String: Any])
        #expect(link["downloads"] as? Int == 3, "\(made.out)")

        // Off: neither links nor requests; the link made before still answers.
        #expect(try admin.run(["org", "set", "acme", "--links", "off"]).status == 0)
        try refusedBeforeUpload([small], saying: "does not allow share links")
        let request = try laptop.run("vfs-share", ["request"])
        #expect(request.status == 77 && request.stderr.contains("does not allow file requests"), "\(request.stderr)")
        let url = try #require(link["url"] as? String)
        let stillThere = try bash("curl -s -o /dev/null -w '%{http_code}' '\(url.split(separator: "#")[0])'", in: setup.scratch.url.path)
        #expect(stillThere.out == "200")
        let off = try admin.run(["org", "show", "acme"])
        #expect(off.out.contains("share links and file requests off"), "\(off.out)")
    }
}
