import Foundation
import Testing
import VFSTestSupport

/// The clients over TLS (issue 24 item 6): a relay whose certificate a private CA signed,
/// `vfs-device enroll --cacert` (kept for later commands) and `VFS_RELAY_CACERT`; plain
/// http:// beyond loopback refused before anything is sent, unless `--insecure-http`.
@Suite("relay clients over TLS and plain http")
struct RelayTLSTests {
    /// A CA, and a certificate for 127.0.0.1 (or `subjectAltName`) it signed; returns (CA file, cert, key).
    static func privateCA(in scratch: TestFolder, subjectAltName: String = "IP:127.0.0.1") throws -> (ca: String, cert: String, key: String) {
        let ca = scratch.path("ca.pem"), caKey = scratch.path("ca.key")
        let cert = scratch.path("cert.pem"), key = scratch.path("key.pem"), request = scratch.path("req.csr")
        let extensions = try scratch.write("ext.cnf", "subjectAltName=\(subjectAltName)\n")
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for arguments in [
            ["req", "-x509"] + curve + ["-days", "1", "-subj", "/CN=vfs test CA", "-keyout", caKey, "-out", ca,
                                      "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"],
            ["req"] + curve + ["-subj", "/CN=127.0.0.1", "-keyout", key, "-out", request],
            ["x509", "-req", "-in", request, "-CA", ca, "-CAkey", caKey, "-CAcreateserial", "-days", "1", "-out", cert,
             "-extfile", extensions],
        ] {
            let made = try Tools.run("openssl", arguments)
            guard made.status == 0 else { throw HarnessError("openssl \(arguments[0]): \(made.stderr)") }
        }
        return (ca, cert, key)
    }

    @Test("a relay signed by a private CA: refused (77) without it, nothing written and the code still good; --cacert enrols and is kept for later commands, a push and fetch cross TLS; VFS_RELAY_CACERT works too")
    func privateCA() throws {
        let scratch = try TestFolder("tls-ca")
        let (ca, cert, key) = try Self.privateCA(in: scratch)
        let data = scratch.url.appendingPathComponent("data")
        let admin = RelayAdmin(data: data)
        let code = try admin.addUser("alice@acme.example", org: "acme")
        let relay = try RelayProcess(data: data, arguments: ["--tls-cert", cert, "--tls-key", key])
        defer { relay.stop() }
        let url = "https://127.0.0.1:\(relay.port)"
        let laptop = try Machine("laptop", in: scratch)
        let config = laptop.home.appendingPathComponent("relay.json").path

        let untrusted = try laptop.run("vfs-device", ["enroll", url, code, "--name", "laptop"])
        #expect(untrusted.status == 77, "\(untrusted.stderr)")
        #expect(untrusted.stderr.hasPrefix("vfs-device: error: the relay at \(url) has a TLS certificate this machine does not trust"),
                "\(untrusted.stderr)")
        #expect(untrusted.stderr.contains("hint: a relay with a private CA: enrol with --cacert"))
        #expect(!FileManager.default.fileExists(atPath: config))

        // A copy of the CA is kept: the file named may go away.
        let download = scratch.path("downloaded-ca.pem")
        try FileManager.default.copyItem(atPath: ca, toPath: download)
        let enrolled = try laptop.run("vfs-device", ["enroll", "--cacert", download, url, code, "--name", "laptop"])
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        try FileManager.default.removeItem(atPath: download)
        let kept = laptop.home.appendingPathComponent("relay-ca.pem").path
        #expect(FileManager.default.contents(atPath: kept) == FileManager.default.contents(atPath: ca))
        let mode = (try FileManager.default.attributesOfItem(atPath: kept)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: config))) as? [String: Any]
        #expect(saved?["ca"] as? String == kept)
        let list = try laptop.run("vfs-device", ["list"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.out.contains("laptop"))

        // The phone names the CA in the environment only: nothing is kept, the variable is needed each time.
        let phone = try Machine("phone", in: scratch)
        let phoneCode = try admin.invite("alice@acme.example")
        let laptopPrint = try laptop.run("vfs-device", ["fingerprint"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let viaEnvironment = try Tools.run("vfs-device", ["enroll", url, phoneCode, "--name", "phone", "--accept-chain", laptopPrint],
                                           environment: phone.environment.merging(["VFS_RELAY_CACERT": ca]) { $1 })
        #expect(viaEnvironment.status == 0, "\(viaEnvironment.stderr)")
        #expect(!FileManager.default.fileExists(atPath: phone.home.appendingPathComponent("relay-ca.pem").path))
        #expect(try phone.run("vfs-device", ["list"]).status == 77)
        try laptop.approve(phone)

        // A push and a fetch through TLS: tus upload, event-free inbox, download.
        let file = try scratch.write("report.txt", "quarterly figures\n")
        let push = try laptop.run("vfs-push", ["-d", "phone", file])
        #expect(push.status == 0, "\(push.stderr)")
        let into = scratch.url.appendingPathComponent("into")
        try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
        let fetch = try Tools.run("vfs-fetch", ["--all", "--no-backup", "-C", into.path],
                                  environment: phone.environment.merging(["VFS_RELAY_CACERT": ca]) { $1 })
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(FileManager.default.contents(atPath: into.appendingPathComponent("report.txt").path) == Data("quarterly figures\n".utf8))

        // A CA file that is missing, or holds no certificate: said before anything is sent.
        let garbage = try scratch.write("garbage.pem", "not a certificate\n")
        for (file, status, said) in [(scratch.path("missing.pem"), Int32(66), "cannot read the CA file"),
                                     (garbage, Int32(65), "no PEM certificate in the CA file")] {
            let run = try Tools.run("vfs-device", ["list"], environment: laptop.environment.merging(["VFS_RELAY_CACERT": file]) { $1 })
            #expect(run.status == status && run.stderr.hasPrefix("vfs-device: error: \(said) \"\(file)\""), "\(run.stderr)")
            let enrol = try Machine("m\(status)", in: scratch).run("vfs-device", ["enroll", "--cacert", file, url, phoneCode, "--name", "m"])
            #expect(enrol.status == status && enrol.stderr.contains(said), "\(enrol.stderr)")
        }

        let httpCA = try laptop.run("vfs-device", ["enroll", "--force", "--cacert", ca, "http://127.0.0.1:\(relay.port)", code, "--name", "x"])
        #expect(httpCA.status == 64 && httpCA.stderr.contains("--cacert is for an https:// relay"), "\(httpCA.stderr)")
    }

    @Test("a certificate the trusted CA signed for another name (relay.example, reached as 127.0.0.1) is refused as untrusted (77), not as a relay that is down (69)")
    func anotherName() throws {
        let scratch = try TestFolder("tls-name")
        let (ca, cert, key) = try Self.privateCA(in: scratch, subjectAltName: "DNS:relay.example")
        let data = scratch.url.appendingPathComponent("data")
        let code = try RelayAdmin(data: data).addUser("alice@acme.example", org: "acme")
        let relay = try RelayProcess(data: data, arguments: ["--tls-cert", cert, "--tls-key", key])
        defer { relay.stop() }
        let laptop = try Machine("laptop", in: scratch)
        let url = "https://127.0.0.1:\(relay.port)"
        let run = try laptop.run("vfs-device", ["enroll", "--cacert", ca, url, code, "--name", "laptop"])
        #expect(run.status == 77, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("vfs-device: error: the relay at \(url) has a TLS certificate this machine does not trust"), "\(run.stderr)")
        #expect(!run.stderr.contains("is the relay running"))
    }

    @Test("plain http:// beyond loopback is refused (64) before anything is sent, at enrolment and through VFS_RELAY; --insecure-http tries it")
    func cleartext() throws {
        let scratch = try TestFolder("tls-http")
        let machine = try Machine("laptop", in: scratch)
        // 192.0.2.1 (TEST-NET-1) answers nothing: a connection attempt would end in 69, not 64.
        let remote = "http://192.0.2.1:8787"
        let refused = try machine.run("vfs-device", ["enroll", remote, "K7QM-2WXD-PA9F-H3TN", "--name", "laptop"])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.hasPrefix("vfs-device: error: refusing \(remote): plain http to 192.0.2.1, beyond this machine, would send the enrolment code and the token in clear\n"),
                "\(refused.stderr)")
        #expect(refused.stderr.contains("hint: use https://"))
        #expect(!FileManager.default.fileExists(atPath: machine.home.appendingPathComponent("relay.json").path))

        let tried = try machine.run("vfs-device", ["enroll", "--insecure-http", "--timeout", "1", remote, "K7QM-2WXD-PA9F-H3TN", "--name", "laptop"])
        #expect(tried.status == 69, "\(tried.stderr)")

        // An enrolled device pointed elsewhere by VFS_RELAY: the same rule.
        let data = scratch.url.appendingPathComponent("data")
        let code = try RelayAdmin(data: data).addUser("alice@acme.example", org: "acme")
        let relay = try RelayProcess(data: data)
        defer { relay.stop() }
        try machine.enroll(port: relay.port, code: code)
        #expect(try machine.run("vfs-device", ["list"]).status == 0)
        machine.relayURL = remote
        let moved = try machine.run("vfs-device", ["list"])
        #expect(moved.status == 64 && moved.stderr.contains("refusing \(remote)"), "\(moved.stderr)")
        // localhost and any 127.x address are this machine.
        machine.relayURL = "http://localhost:\(relay.port)"
        #expect(try machine.run("vfs-device", ["list"]).status == 0)
    }
}
