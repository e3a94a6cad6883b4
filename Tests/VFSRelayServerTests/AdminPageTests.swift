import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSPolicyModel
import VFSRelayProtocol
@testable import VFSRelayServer

/// A browser as the admin page sees it: its cookies, and the CSRF token of its last page.
struct AdminBrowser {
    let client: TestClient
    var cookies: [String: String] = [:]

    init(_ client: TestClient) { self.client = client }

    var cookieHeader: String { cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }

    mutating func keep(_ response: TestResponse) {
        for value in response.headers[values: .setCookie] {
            let pair = value.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0]), content = pair.count > 1 ? String(pair[1]) : ""
            if value.contains("Max-Age=0") { cookies.removeValue(forKey: name) } else { cookies[name] = content }
        }
    }

    @discardableResult
    mutating func get(_ path: String) async throws -> TestResponse {
        let response = try await client.request(.get, path, headers: cookies.isEmpty ? [:] : [.cookie: cookieHeader])
        keep(response)
        return response
    }

    @discardableResult
    mutating func post(_ path: String, _ fields: [(String, String)], headers extra: HTTPFields = [:]) async throws -> TestResponse {
        let body = fields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if !cookies.isEmpty { headers[.cookie] = cookieHeader }
        headers.append(contentsOf: extra)
        let response = try await client.request(.post, path, bytes: Array(body.utf8), headers: headers)
        keep(response)
        return response
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    /// The hidden `name` field's value on a page.
    static func field(_ name: String, in response: TestResponse) -> String? {
        let page = text(response)
        guard let range = page.range(of: "name=\"\(name)\" value=\"") else { return nil }
        return String(page[range.upperBound...].prefix { $0 != "\"" })
    }

    /// Signs in with `code` through the form; returns the answer to the POST.
    @discardableResult
    mutating func signIn(_ code: String) async throws -> TestResponse {
        let form = try await get("/admin/sign-in")
        let nonce = try #require(Self.field("csrf", in: form))
        return try await post("/admin/sign-in", [("csrf", nonce), ("code", code)])
    }

    /// The CSRF token shown on a signed-in page.
    mutating func csrf() async throws -> String {
        let page = try await get("/admin/items")
        #expect(page.status == .ok)
        return try #require(Self.field("csrf", in: page))
    }
}

func text(_ response: TestResponse) -> String { String(decoding: response.body.readableBytesView, as: UTF8.self) }

extension RelayFixture {
    func loginCode(for email: String, lifetime: TimeInterval = 600) async throws -> String {
        let code = RelayCodes.newLoginCode()
        try await store.createLoginCode(email: email, codeHash: RelayCodes.hash(loginCode: code),
                                        expires: Date().addingTimeInterval(lifetime), now: Date())
        return code
    }

    func sql(_ statement: String) async throws {
        try await store.pool.write { try $0.execute(sql: statement) }
    }
}

@Suite("admin web page")
struct AdminPageTests {
    @Test("sign in: a one-time code gives an HttpOnly, Secure, SameSite=Strict cookie whose session is stored hashed")
    func signIn() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            _ = try await client.user("ann@acme.example", org: "acme", admin: true)
            var browser = AdminBrowser(client)
            let start = try await browser.get("/admin/items")
            #expect(start.status == .seeOther && start.headers[.location] == "/admin/sign-in")
            let code = try await fixture.loginCode(for: "ann@acme.example")

            // The sign-in form's own token (double submit) is needed too.
            var stranger = AdminBrowser(client)
            #expect(try await stranger.post("/admin/sign-in", [("code", code)]).status == .forbidden)

            let wrong = try await browser.signIn("AAAA-BBBB-CCCC-DDDD")
            #expect(wrong.status == .forbidden)
            #expect(text(wrong).contains("does not sign anyone in"))
            #expect(browser.cookies["vfs_admin"] == nil)

            let signed = try await browser.signIn(code)
            #expect(signed.status == .seeOther && signed.headers[.location] == "/admin/items")
            let cookie = try #require(signed.headers[values: .setCookie].first { $0.hasPrefix("vfs_admin=") })
            for attribute in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/admin", "Max-Age=28800"] {
                #expect(cookie.contains("; \(attribute)"), "\(cookie)")
            }
            let token = try #require(browser.cookies["vfs_admin"])
            #expect(token.count == 64)
            let stored = try await fixture.store.pool.read { try String.fetchAll($0, sql: "SELECT session_hash FROM admin_sessions") }
            #expect(stored == [AdminAuth.sessionHash(token)])
            let page = try await browser.get("/admin/items")
            #expect(page.status == .ok)
            #expect(text(page).contains("ann@acme.example"))
            let csp = try #require(page.headers[HTTPField.Name("Content-Security-Policy")!])
            #expect(csp.contains("default-src 'none'") && csp.contains("style-src 'self'") && !csp.contains("unsafe-inline"))
            #expect(!text(page).contains("<script"))

            // A code works once.
            var second = AdminBrowser(client)
            #expect(try await second.signIn(code).status == .forbidden)
        }
    }

    @Test("every POST needs the session's CSRF token: none, another session's, or a cross-site one is refused and changes nothing")
    func csrf() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let laptop = try await client.user("ann@acme.example", org: "acme", admin: true)
            _ = try await client.user("bob@acme.example", org: "acme", admin: true)
            var ann = AdminBrowser(client), bob = AdminBrowser(client)
            try await ann.signIn(try await fixture.loginCode(for: "ann@acme.example"))
            try await bob.signIn(try await fixture.loginCode(for: "bob@acme.example"))
            let annToken = try await ann.csrf(), bobToken = try await bob.csrf()
            #expect(annToken != bobToken)

            let missing = try await ann.post("/admin/items", [("app", "evince")])
            #expect(missing.status == .forbidden)
            #expect(text(missing).contains("security token"))
            #expect(try await ann.post("/admin/items", [("app", "evince"), ("csrf", bobToken)]).status == .forbidden)
            #expect(try await ann.post("/admin/items", [("app", "evince"), ("csrf", annToken)],
                                       headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]).status == .forbidden)
            #expect(try await ann.post("/admin/sign-out", []).status == .forbidden)
            #expect(try await fixture.store.items(org: 1).isEmpty)
            #expect(try await fixture.store.events(device: laptop.id, after: 0, limit: 10).isEmpty)

            // With it (form field or header), the write is done and announced like any other.
            let added = try await ann.post("/admin/items", [("app", "evince"), ("types", "pdf, djvu"), ("enabled", "on"), ("csrf", annToken)])
            #expect(added.status == .seeOther)
            let items = try await fixture.store.items(org: 1)
            #expect(items.map(\.item.app) == ["evince"] && items[0].item.types == ["pdf", "djvu"])
            let events = try await fixture.store.events(device: laptop.id, after: 0, limit: 10)
            #expect(events.map(\.kind) == [.policy] && events[0].data.contains(items[0].item.id))
            let byHeader = try await bob.post("/admin/items", [("app", "gimp")], headers: [AdminAuth.csrfHeader: bobToken])
            #expect(byHeader.status == .seeOther)
            let audit = try await fixture.store.auditLog(org: 1, matching: "item.add", limit: 10)
            #expect(audit.map(\.actor) == ["bob@acme.example", "ann@acme.example"])
            // The audit page shows the item's times as dates, not seconds since 1970.
            #expect(audit.first?.detail.contains(#""created":1"#) == true, "the store keeps seconds: \(audit.first?.detail ?? "")")
            let page = try await ann.get("/admin/audit")
            let html = text(page).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#34;", with: "\"")
            #expect(html.range(of: #""created":"20[0-9]{2}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} UTC""#, options: .regularExpression) != nil,
                    "\(html.suffix(1500))")
            #expect(!html.contains(#""created":1"#))
        }
    }

    @Test("the form's expiry date means what vfs-policy --expires DATE means: approved through that day, expired at the next midnight UTC; shown back as that date")
    func expiryDateMeaning() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            _ = try await client.user("ann@acme.example", org: "acme", admin: true)
            var ann = AdminBrowser(client)
            try await ann.signIn(try await fixture.loginCode(for: "ann@acme.example"))
            let token = try await ann.csrf()
            let added = try await ann.post("/admin/items", [("app", "evince"), ("expires", "2027-01-31"), ("enabled", "on"), ("csrf", token)])
            #expect(added.status == .seeOther, "\(text(added))")
            let item = try #require(try await fixture.store.items(org: 1).first?.item)
            // The CLI's meaning (PolicyDates.parseExpiry, tested in PolicyDatesTests.expiryForms) is this same instant.
            #expect(item.expires == RFC3339.date("2027-02-01T00:00:00Z"))
            #expect(item.expires == RFC3339.expiry(ofDay: "2027-01-31"))
            #expect(item.isExpired(at: try #require(RFC3339.date("2027-01-31T23:59:59Z"))) == false)
            #expect(item.isExpired(at: try #require(RFC3339.date("2027-02-01T00:00:00Z"))))
            // Listed and edited as the date typed, not the next day.
            let list = text(try await ann.get("/admin/items"))
            #expect(list.contains("<td>2027-01-31</td>") && !list.contains("2027-02-01"), "\(list)")
            let edit = text(try await ann.get("/admin/items/\(item.id)/edit"))
            #expect(edit.contains(#"name="expires" type="date" value="2027-01-31""#), "\(edit)")
        }
    }

    @Test("sign out ends the session on the server: the old cookie and token are refused")
    func signOut() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            _ = try await client.user("ann@acme.example", org: "acme", admin: true)
            var browser = AdminBrowser(client)
            try await browser.signIn(try await fixture.loginCode(for: "ann@acme.example"))
            let oldCookie = try #require(browser.cookies["vfs_admin"])
            let token = try await browser.csrf()
            let out = try await browser.post("/admin/sign-out", [("csrf", token)])
            #expect(out.status == .seeOther && out.headers[.location] == "/admin/sign-in?signed-out=1")
            #expect(browser.cookies["vfs_admin"] == nil)
            #expect(try await fixture.store.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM admin_sessions") } == 0)

            // Someone who kept the cookie gets nowhere.
            var replay = AdminBrowser(client)
            replay.cookies["vfs_admin"] = oldCookie
            #expect(try await replay.get("/admin/items").headers[.location] == "/admin/sign-in")
            let write = try await replay.post("/admin/items", [("app", "evince"), ("csrf", token)])
            #expect(write.status == .forbidden)
            #expect(try await fixture.store.items(org: 1).isEmpty)
        }
    }

    @Test("only administrators: no code for a member, a code is refused once its user is no longer an admin, devices ask for codes")
    func administratorsOnly() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let admin = try await client.user("ann@acme.example", org: "acme", admin: true)
            let member = try await client.user("max@acme.example", org: "acme")
            await #expect(throws: StoreError.invalid("user \"max@acme.example\" is not an administrator")) {
                _ = try await fixture.loginCode(for: "max@acme.example")
            }
            #expect(try await client.request(.post, RelayPaths.adminLoginCodes, token: member.token).status == .forbidden)
            #expect(try await client.request(.post, RelayPaths.adminLoginCodes).status == .unauthorized)

            // A code issued while ann was an admin stops working when she no longer is.
            let early = try await fixture.loginCode(for: "ann@acme.example")
            try await fixture.sql("UPDATE users SET role = 'member' WHERE email = 'ann@acme.example'")
            var browser = AdminBrowser(client)
            #expect(try await browser.signIn(early).status == .forbidden)
            #expect(browser.cookies["vfs_admin"] == nil)
            try await fixture.sql("UPDATE users SET role = 'admin' WHERE email = 'ann@acme.example'")

            let answer = try await client.request(.post, RelayPaths.adminLoginCodes, token: admin.token)
            #expect(answer.status == .created)
            let link = try decode(AdminLoginCode.self, answer)
            #expect(link.path == "/admin/" && link.expires > Date())
            #expect(try await browser.signIn(link.code).status == .seeOther)
            #expect(try await browser.get("/admin/devices").status == .ok)
            // A session whose user is demoted ends with it.
            try await fixture.sql("UPDATE users SET role = 'member' WHERE email = 'ann@acme.example'")
            #expect(try await browser.get("/admin/devices").headers[.location] == "/admin/sign-in")
        }
    }

    @Test("names are shown as text: a <script> name is escaped on every page")
    func escaping() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            _ = try await client.user("ann@acme.example", org: "acme", admin: true, device: "<script>alert(1)</script>")
            var browser = AdminBrowser(client)
            try await browser.signIn(try await fixture.loginCode(for: "ann@acme.example"))
            let token = try await browser.csrf()
            #expect(try await browser.post("/admin/items", [("app", "evince"), ("name", "<script>alert(\"x\")</script>"),
                                                           ("enabled", "on"), ("csrf", token)]).status == .seeOther)
            for path in ["/admin/items", "/admin/devices", "/admin/audit", "/admin/items?q=%3Cscript%3E"] {
                let page = text(try await browser.get(path))
                #expect(!page.contains("<script"), "\(path)")
                #expect(page.contains("&lt;script&gt;alert("), "\(path)")
            }
        }
    }

    @Test("an edit based on an old version is not saved: the page shows the conflict and what is stored")
    func conflict() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            _ = try await client.user("ann@acme.example", org: "acme", admin: true)
            var browser = AdminBrowser(client)
            try await browser.signIn(try await fixture.loginCode(for: "ann@acme.example"))
            let token = try await browser.csrf()
            try await browser.post("/admin/items", [("app", "evince"), ("enabled", "on"), ("csrf", token)])
            let item = try #require(try await fixture.store.items(org: 1).first)
            let edit = try await browser.get("/admin/items/\(item.item.id)/edit")
            let version = try #require(AdminBrowser.field("version", in: edit))
            let first = try await browser.post("/admin/items/\(item.item.id)",
                                               [("app", "evince"), ("name", "First"), ("enabled", "on"), ("version", version), ("csrf", token)])
            #expect(first.status == .seeOther)
            let stale = try await browser.post("/admin/items/\(item.item.id)",
                                               [("app", "evince"), ("name", "Second"), ("version", version), ("csrf", token)])
            #expect(stale.status == .conflict)
            #expect(text(stale).contains("another administrator changed evince"))
            #expect(text(stale).contains("<dd>First</dd>"))
            #expect(try await fixture.store.item(id: item.item.id, org: 1).item.name == "First")
            // Validation messages are the server's own.
            let bad = try await browser.post("/admin/items", [("app", "-x"), ("csrf", token)])
            #expect(bad.status == .unprocessableContent)
            #expect(text(bad).contains("invalid app &quot;-x&quot;"))
            let duplicate = try await browser.post("/admin/items", [("app", "evince"), ("csrf", token)])
            #expect(duplicate.status == .conflict)
        }
    }

    @Test("an admin revokes a device of the organisation; the table sorts and filters")
    func revokeAndTable() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            _ = try await client.user("ann@acme.example", org: "acme", admin: true)
            let phone = try await client.user("max@acme.example", org: "acme", device: "phone")
            let other = try await client.user("olga@globex.example", org: "globex", device: "olgas-laptop")
            var browser = AdminBrowser(client)
            try await browser.signIn(try await fixture.loginCode(for: "ann@acme.example"))
            let token = try await browser.csrf()
            #expect(try await browser.get("/admin/devices/\(other.id)/revoke").status == .notFound)
            #expect(try await browser.post("/admin/devices/\(other.id)/revoke", [("csrf", token)]).status == .notFound)
            let confirm = try await browser.get("/admin/devices/\(phone.id)/revoke")
            #expect(text(confirm).contains("Revoke phone"))
            #expect(try await browser.post("/admin/devices/\(phone.id)/revoke", [("csrf", token)]).status == .seeOther)
            let answer = try await client.request(.get, RelayPaths.devices, token: phone.token)
            #expect(answer.status == .unauthorized && errorCode(answer) == "revoked")
            #expect(try await client.request(.get, RelayPaths.devices, token: other.token).status == .ok)
            let devices = text(try await browser.get("/admin/devices"))
            #expect(devices.contains("revoked") && !devices.contains("olgas-laptop"))

            for app in ["zathura", "evince", "gimp"] {
                try await browser.post("/admin/items", [("app", app), ("enabled", app == "gimp" ? "" : "on"), ("csrf", token)])
            }
            func order(_ page: String) -> [String] {
                ["evince", "gimp", "zathura"].filter { page.contains("<th scope=\"row\">\($0)</th>") }
                    .sorted { page.range(of: ">\($0)<")!.lowerBound < page.range(of: ">\($1)<")!.lowerBound }
            }
            #expect(order(text(try await browser.get("/admin/items"))) == ["evince", "gimp", "zathura"])
            #expect(order(text(try await browser.get("/admin/items?sort=app&order=desc"))) == ["zathura", "gimp", "evince"])
            #expect(order(text(try await browser.get("/admin/items?status=disabled"))) == ["gimp"])
            #expect(order(text(try await browser.get("/admin/items?q=ath"))) == ["zathura"])
        }
    }

    @Test("groups of people on the admin page: listed with members; create, add, remove with the CSRF token, redirected after the POST")
    func orgGroups() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            _ = try await client.user("ann@acme.example", org: "acme", admin: true)
            let max = try await client.user("max@acme.example", org: "acme", device: "phone")
            _ = try await client.user("olga@globex.example", org: "globex", device: "olgas-laptop")
            var browser = AdminBrowser(client)
            try await browser.signIn(try await fixture.loginCode(for: "ann@acme.example"))
            let token = try await browser.csrf()
            let empty = text(try await browser.get("/admin/groups"))
            #expect(empty.contains("No groups yet.") && empty.contains("aria-current=\"page\">Groups of people"))
            #expect(empty.contains("<option value=\"max@acme.example\">") && !empty.contains("olga@globex.example"))

            // Without the token nothing is made.
            #expect(try await browser.post("/admin/groups", [("name", "design")]).status == .forbidden)
            #expect(try await fixture.store.orgGroups(org: 1, member: nil).isEmpty)
            let created = try await browser.post("/admin/groups", [("name", "design"), ("csrf", token)])
            #expect(created.status == .seeOther && created.headers[.location] == "/admin/groups?done=created&group=design")
            #expect(text(try await browser.get(created.headers[.location]!)).contains("Created the group design."))
            let again = try await browser.post("/admin/groups", [("name", "design"), ("csrf", token)])
            #expect(again.status == .conflict && text(again).contains("exists already"))
            let bad = try await browser.post("/admin/groups", [("name", "no spaces"), ("csrf", token)])
            #expect(bad.status == .unprocessableContent && text(bad).contains("invalid group name"))

            #expect(try await browser.post("/admin/groups/design/members", [("email", "max@acme.example")]).status == .forbidden)
            let added = try await browser.post("/admin/groups/design/members", [("email", "max@acme.example"), ("csrf", token)])
            #expect(added.status == .seeOther, "\(text(added))")
            #expect(try await fixture.store.orgGroup(org: 1, name: "design").members == ["max@acme.example"])
            let page = text(try await browser.get(added.headers[.location]!))
            #expect(page.contains("Added max@acme.example to design.") && page.contains("aria-label=\"Remove max@acme.example from design\""))
            // The member sees the group through the API, as the page set it.
            let seen = try await client.request(.get, RelayPaths.orgGroup("design"), token: max.token)
            #expect(seen.status == .ok)
            // Another organisation's user is not found; nothing changes.
            let foreign = try await browser.post("/admin/groups/design/members", [("email", "olga@globex.example"), ("csrf", token)])
            #expect(foreign.status == .notFound && text(foreign).contains("no such user in your organisation"))
            #expect(try await browser.post("/admin/groups/nope/members", [("email", "max@acme.example"), ("csrf", token)]).status == .notFound)

            let removed = try await browser.post("/admin/groups/design/members/remove", [("email", "max@acme.example"), ("csrf", token)])
            #expect(removed.status == .seeOther)
            #expect(text(try await browser.get(removed.headers[.location]!)).contains("Removed max@acme.example from design."))
            #expect(try await fixture.store.orgGroup(org: 1, name: "design").members.isEmpty)
            let audit = try await fixture.store.auditLog(org: 1, matching: "org-group", limit: 10)
            #expect(audit.map(\.action) == ["org-group.member-remove", "org-group.member-add", "org-group.add"])
            #expect(audit.allSatisfy { $0.actor == "ann@acme.example" })
        }
    }

    @Test("the Devices screen shows each user's cloud history (issue 50): the earlier versions kept, the bytes only they hold, the removed files in the trash")
    func cloudHistory() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            _ = try await client.user("ann@acme.example", org: "acme", admin: true)
            let max = try await client.user("max@acme.example", org: "acme", device: "phone")
            for (path, size) in [("/a.age", 100), ("/a.age", 200), ("/a.age", 300), ("/b.age", 50)] {
                let upload = try await client.upload(randomBytes(size), token: max.token)
                let put = try await client.request(.put, RelayPaths.cloud(path), token: max.token, json: #"{"upload":"\#(upload)"}"#)
                #expect(put.status == .created)
            }
            #expect(try await client.request(.delete, RelayPaths.cloud("/b.age"), token: max.token).status == .noContent)
            var browser = AdminBrowser(client)
            try await browser.signIn(try await fixture.loginCode(for: "ann@acme.example"))
            let rows = text(try await browser.get("/admin/devices")).components(separatedBy: "<tr>")
            let maxRow = try #require(rows.first { $0.contains(">max@acme.example</th>") })
            #expect(maxRow.contains("<td>3 earlier versions (\(AdminPages.bytes(350))), 1 in the trash</td>"), "\(maxRow)")
            let annRow = try #require(rows.first { $0.contains(">ann@acme.example</th>") })
            #expect(annRow.contains("<td>no earlier versions</td>"), "\(annRow)")
        }
    }
}

@Suite("admin store")
struct AdminStoreTests {
    @Test("sessions expire and end; members, transfers and the audit log stay inside the organisation")
    func organisationViews() async throws {
        let fixture = try RelayFixture()
        let store = fixture.store
        try await fixture.test { client in
            let laptop = try await client.user("ann@acme.example", org: "acme", admin: true)
            let phone = try await client.device(of: "ann@acme.example", name: "phone")
            let olga = try await client.user("olga@globex.example", org: "globex", admin: true)
            #expect(try await client.request(.post, RelayPaths.groups, token: laptop.token,
                                             json: #"{"name":"home","members":["\#(laptop.id)","\#(phone.id)"]}"#).status == .created)
            let upload = try await client.upload(Array("sealed".utf8), token: laptop.token)
            #expect(try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                             json: #"{"upload":"\#(upload)","devices":["\#(phone.id)"]}"#).status == .created)

            let members = try await store.organisationMembers(org: 1)
            #expect(members.map(\.email) == ["ann@acme.example"])
            #expect(members[0].devices.map(\.name) == ["laptop", "phone"])
            #expect(members[0].groups == [DeviceGroup(name: "home", members: [laptop.id, phone.id].sorted())])
            let transfers = try await store.organisationTransfers(org: 1)
            #expect(transfers.count == 1 && transfers[0].senderDevice == laptop.id)
            #expect(transfers[0].recipients.map(\.device) == [phone.id] && transfers[0].recipients[0].status == .unattended)
            #expect(try await store.organisationTransfers(org: 2).isEmpty)

            let audit = try await store.auditLog(org: 1, matching: nil, limit: 100)
            #expect(audit.contains { $0.action == "transfer.create" } && audit.contains { $0.action == "group.create" })
            #expect(!audit.contains { $0.actor.contains("olga") || $0.subject == olga.id })
            #expect(try await store.auditLog(org: 1, matching: "GROUP.create", limit: 100).map(\.action) == ["group.create"])
            #expect(try await store.auditLog(org: 1, matching: nil, limit: 2).count == 2)

            let now = Date()
            let code = RelayCodes.newLoginCode()
            try await store.createLoginCode(email: "ann@acme.example", codeHash: RelayCodes.hash(loginCode: code),
                                            expires: now.addingTimeInterval(60), now: now)
            #expect(try await store.signIn(codeHash: RelayCodes.hash(loginCode: code), sessionHash: "s1",
                                           expires: now.addingTimeInterval(600), now: now.addingTimeInterval(61)) == nil)
            let fresh = RelayCodes.newLoginCode()
            try await store.createLoginCode(email: "ann@acme.example", codeHash: RelayCodes.hash(loginCode: fresh),
                                            expires: now.addingTimeInterval(60), now: now)
            let session = try #require(try await store.signIn(codeHash: RelayCodes.hash(loginCode: fresh), sessionHash: "s2",
                                                              expires: now.addingTimeInterval(600), now: now))
            #expect(session.email == "ann@acme.example" && session.orgID == 1)
            let found = try #require(try await store.adminSession(hash: "s2", now: now))
            #expect(found.email == session.email && found.userID == session.userID && found.orgID == 1)
            #expect(abs(found.expires.timeIntervalSince(session.expires)) < 0.001)
            #expect(try await store.adminSession(hash: "s2", now: now.addingTimeInterval(601)) == nil)
            try await store.signOut(sessionHash: "s2", now: now)
            #expect(try await store.adminSession(hash: "s2", now: now) == nil)
            #expect(try await store.auditLog(org: 1, matching: "admin.sign", limit: 10).map(\.action) == ["admin.sign-out", "admin.sign-in"])
        }
    }
}
