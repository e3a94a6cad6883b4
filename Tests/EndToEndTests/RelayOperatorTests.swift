import Foundation
import Testing
import VFSTestSupport

/// The operator's commands (issue 25): disable and enable a user, change a role, list
/// organisations, revoke a device, filter the lists. On SQLite and on PostgreSQL.
@Suite("vfs-relay operator commands", .serialized)
struct RelayOperatorTests {
    /// The admin commands against one relay, whichever back-end it has.
    struct Operator {
        let options: [String]
        func run(_ arguments: [String]) throws -> Run { try Tools.run("vfs-relay", arguments + options) }
    }

    /// Disable logs every device out at once (401, a logout event on an open stream),
    /// refuses codes and enrolment; enable lets the user enrol again.
    static func disableAndEnable(_ admin: Operator, client: RelayClient, port: Int, laptop: (id: String, token: String),
                                 phone: (id: String, token: String), email: String) throws {
        let stream = try EventStream(port: port, token: phone.token)
        #expect(stream.status == 200)
        let early = try admin.run(["invite", email]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let disabled = try admin.run(["user", "disable", email])
        #expect(disabled.status == 0, "\(disabled.stderr)")
        #expect(disabled.stderr.hasPrefix("vfs-relay: disabled \(email); 2 device(s) logged out (in "), "\(disabled.stderr)")
        var logout = false
        while let event = try stream.next() {
            if event.event == "logout" { logout = true; break }
        }
        #expect(logout, "the open stream got the logout event")
        #expect(try client.request("GET", "/v1/devices", token: laptop.token).status == 401)
        let invite = try admin.run(["invite", email])
        #expect(invite.status == 77)
        #expect(invite.stderr.contains("is disabled") && invite.stderr.contains("vfs-relay user enable EMAIL"), "\(invite.stderr)")
        // A code made before the user was disabled no longer enrols.
        let late = try client.request("POST", "/v1/enroll", json: #"{"code":"\#(early)","name":"tablet","platform":"linux","recipient":"age1t"}"#)
        #expect(late.status == 401)
        let listed = try admin.run(["users", "--disabled"])
        #expect(listed.out.contains("\(email)\t") && listed.out.contains("\tdisabled\n"), "\(listed.out)")

        #expect(try admin.run(["user", "enable", email]).status == 0)
        #expect(try admin.run(["users", "--disabled"]).out.isEmpty)
        let code = try admin.run(["invite", email]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let again = try client.enroll(code: code, name: "laptop2")
        #expect(try client.request("GET", "/v1/devices", token: again.token).status == 200)
    }

    /// Remove takes the user and everything of theirs: their devices' tokens are answered
    /// "revoked", an open stream gets the logout event, a transfer waiting for them and an
    /// unfinished upload are gone, their files too; the email can be added again.
    static func removal(_ admin: Operator, client: RelayClient, port: Int, email: String, invite: () throws -> String,
                        files: URL?) throws {
        let laptop = try client.enroll(code: try invite(), name: "laptop")
        let phone = try client.enroll(code: try invite(), name: "phone")
        let upload = try client.upload(Array(repeating: 7, count: 3000), token: laptop.token)
        _ = try client.send(upload: upload, to: [phone.id], token: laptop.token)
        _ = try client.createUpload(length: 5000, token: laptop.token)
        func stats() throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: try admin.run(["stats", "--json"]).stdout) as? [String: Any] ?? [:]
        }
        let before = try stats()
        let stream = try EventStream(port: port, token: phone.token)
        #expect(stream.status == 200)

        let unconfirmed = try admin.run(["user", "remove", email])
        #expect(unconfirmed.status == 64, "no terminal and no -y: \(unconfirmed.stderr)")
        #expect(unconfirmed.stderr.contains("add -y"), "\(unconfirmed.stderr)")
        #expect(try client.request("GET", "/v1/devices", token: laptop.token).status == 200, "nothing was removed")

        let removed = try admin.run(["user", "remove", "-y", email])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stderr.hasPrefix("vfs-relay: removed \(email); 2 device(s) logged out, 0 cloud file(s) deleted (in "),
                "\(removed.stderr)")
        var logout = false
        while let event = try stream.next() {
            if event.event == "logout" { logout = true; break }
        }
        #expect(logout, "the open stream got the logout event")
        let refused = try client.request("GET", "/v1/devices", token: laptop.token)
        #expect(refused.status == 401)
        #expect(refused.text.contains("revoked"), "a removed device is told it was logged out: \(refused.text)")
        #expect(try !admin.run(["users"]).out.contains(email))
        #expect(try !admin.run(["devices"]).out.contains(laptop.id))
        let after = try stats()
        #expect(after["blobs"] as? Int == (before["blobs"] as? Int ?? 0) - 1, "the transfer's blob went: \(before) \(after)")
        #expect(after["uploads"] as? Int == (before["uploads"] as? Int ?? 0) - 1, "the unfinished upload went")
        #expect(after["devices"] as? Int == (before["devices"] as? Int ?? 0) - 2)
        if let files {
            for folder in ["blobs", "uploads"] {
                let left = try FileManager.default.contentsOfDirectory(atPath: files.appendingPathComponent(folder).path)
                #expect(left.isEmpty, "\(folder) holds \(left)")
            }
        }
        #expect(try admin.run(["user", "remove", "-y", email]).status == 66)
        #expect(try admin.run(["user", "add", email, "--org", "acme"]).status == 0, "the email can be used again")
    }

    @Test("SQLite: user remove takes the user, their devices, transfers and uploads; the tokens answer revoked")
    func removeSQLite() throws {
        let scratch = try TestFolder()
        let data = scratch.url.appendingPathComponent("data")
        let relayAdmin = RelayAdmin(data: data)
        _ = try relayAdmin.addUser("dave@acme.example", org: "acme")
        let relay = try RelayProcess(data: data)
        defer { relay.stop() }
        let admin = Operator(options: ["--data", data.path])
        let client = RelayClient(port: relay.port)
        try Self.removal(admin, client: client, port: relay.port, email: "dave@acme.example",
                         invite: { try relayAdmin.invite("dave@acme.example") }, files: data)
        let added = try admin.run(["org", "add", "more"])
        #expect(added.stderr == "vfs-relay: added organisation more (in \(data.path)/relay.sqlite)\n", "which database changed")
    }

    @Test("PostgreSQL: user remove, the same")
    func removePostgres() throws {
        let shared = try ScaleOutTests.Shared("remove-pg")
        _ = try shared.addUser("erin@acme.example")
        let relay = try RelayProcess(data: shared.scratch.url.appendingPathComponent("r"), arguments: shared.options)
        defer { relay.stop() }
        try Self.removal(Operator(options: shared.options), client: RelayClient(port: relay.port), port: relay.port,
                         email: "erin@acme.example", invite: { try shared.invite("erin@acme.example") }, files: nil)
    }

    @Test("SQLite: user disable/enable/set, org list, devices revoke by id prefix, and the filters")
    func sqlite() throws {
        let setup = try RelayTests.Setup()
        let admin = Operator(options: ["--data", setup.admin.data.path])
        _ = try admin.run(["user", "add", "bob@acme.example", "--org", "acme"])
        _ = try admin.run(["org", "add", "empty"])

        // Roles.
        #expect(try admin.run(["user", "set", "bob@acme.example", "--admin"]).stderr
                == "vfs-relay: bob@acme.example is an administrator (in \(setup.admin.data.path)/relay.sqlite)\n")
        #expect(try admin.run(["users", "--org", "acme"]).out.contains("bob@acme.example\tacme\tadmin\t"))
        #expect(try admin.run(["user", "set", "bob@acme.example", "--no-admin"]).status == 0)
        #expect(try admin.run(["users"]).out.contains("bob@acme.example\tacme\tmember\t"))
        #expect(try admin.run(["user", "set", "bob@acme.example"]).status == 64)
        #expect(try admin.run(["user", "disable", "nobody@acme.example"]).status == 66)
        #expect(try admin.run(["users", "--org", "empty"]).out.isEmpty)

        // Organisations.
        #expect(try admin.run(["org", "list"]).out == "acme\t2 user(s)\nempty\t0 user(s)\n")
        let json = try JSONSerialization.jsonObject(with: try admin.run(["org", "list", "--json"]).stdout) as? [[String: Any]]
        #expect(json?.first?["name"] as? String == "acme" && json?.first?["users"] as? Int == 2)

        // Revoke the phone by a start of its id (the `device` spelling too); the laptop stays.
        let revoked = try admin.run(["device", "revoke", String(setup.phone.id.prefix(12))])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(revoked.stderr == "vfs-relay: logged out \(setup.phone.id) (phone) of alice@acme.example (in \(setup.admin.data.path)/relay.sqlite)\n")
        #expect(try setup.client.request("GET", "/v1/devices", token: setup.phone.token).status == 401)
        #expect(try setup.client.request("GET", "/v1/devices", token: setup.laptop.token).status == 200)
        #expect(try admin.run(["devices", "revoke", setup.phone.id]).stderr.hasSuffix("was already logged out\n"))
        #expect(try admin.run(["devices", "revoke", "ffffffffffff"]).status == 66)
        #expect(try admin.run(["devices", "revoke", ""]).status == 64)
        let active = try admin.run(["devices", "--active", "--user", "alice@acme.example"]).out
        #expect(active.contains(setup.laptop.id) && !active.contains(setup.phone.id), "\(active)")
        #expect(try admin.run(["devices", "--json"]).status == 0)

        // Disable and enable, with a fresh second device.
        let phone = try setup.client.enroll(code: try setup.admin.invite("alice@acme.example"), name: "phone2")
        try Self.disableAndEnable(admin, client: setup.client, port: setup.relay.port, laptop: setup.laptop, phone: phone,
                                  email: "alice@acme.example")
        #expect(setup.relay.stop() == 0)
    }

    @Test("PostgreSQL: user disable logs the devices out at once and enable lets them enrol again; set and org list")
    func postgres() throws {
        let shared = try ScaleOutTests.Shared("operator-pg")
        let admin = Operator(options: shared.options)
        let code = try shared.addUser("carol@acme.example", admin: true)
        let relay = try RelayProcess(data: shared.scratch.url.appendingPathComponent("r"), arguments: shared.options)
        defer { relay.stop() }
        let client = RelayClient(port: relay.port)
        let laptop = try client.enroll(code: code, name: "laptop")
        let phone = try client.enroll(code: try shared.invite("carol@acme.example"), name: "phone")
        #expect(try admin.run(["user", "set", "carol@acme.example", "--no-admin"]).status == 0)
        #expect(try admin.run(["users"]).out.contains("carol@acme.example\tacme\tmember\t"))
        #expect(try admin.run(["org", "list"]).out == "acme\t1 user(s)\n")
        try Self.disableAndEnable(admin, client: client, port: relay.port, laptop: laptop, phone: phone, email: "carol@acme.example")
    }
}
