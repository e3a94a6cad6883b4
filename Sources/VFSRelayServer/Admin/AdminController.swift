import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import VFSPolicyModel
import VFSRelayProtocol

/// `/admin/…`: the administrators' web page, served as HTML forms (no script). Item
/// writes go through the same store calls, audit lines and `policy` events as
/// `/v1/items`; every POST needs the session's CSRF token (see `AdminAuth`).
struct AdminController {
    let services: RelayServices
    let store: any AdminWebRepository & ItemRepository & OrgGroupRepository & DeviceLogoutRepository & AuditRepository & LinkAdminRepository & CloudHistorySummaryRepository
    let items: ItemController

    init(services: RelayServices, store: any AdminWebRepository & ItemRepository & OrgGroupRepository & DeviceLogoutRepository & AuditRepository & LinkAdminRepository & CloudHistorySummaryRepository,
         items: ItemController) {
        self.services = services
        self.store = store
        self.items = items
    }

    static let auditLimit = 500

    func addRoutes(to router: Router<RelayRequestContext>) {
        // The relay's root is for people who typed its address: the admin page.
        router.get("/") { _, _ in AdminPages.redirect("/admin/") }
        let group = router.group("/admin").add(middleware: AdminErrorMiddleware())
        group.get { _, _ in AdminPages.redirect("/admin/items") }
        group.get("assets/admin.css") { _, _ in
            var headers = AdminPages.securityHeaders
            headers[.contentType] = "text/css; charset=utf-8"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: PackageResources.admin_css)))
        }
        group.get("sign-in", use: signInPage)
        group.post("sign-in", use: signIn)
        group.post("sign-out", use: signOut)
        group.get("items", use: itemList)
        group.get("items/new", use: newItem)
        group.post("items", use: createItem)
        group.get("items/:id/edit", use: editItem)
        group.post("items/:id", use: updateItem)
        group.post("items/:id/delete", use: deleteItem)
        group.get("devices", use: deviceList)
        group.get("devices/:id/revoke", use: confirmRevoke)
        group.post("devices/:id/revoke", use: revoke)
        group.get("groups", use: orgGroups)
        group.post("groups", use: createOrgGroup)
        group.post("groups/:name/members", use: addOrgGroupMember)
        group.post("groups/:name/members/remove", use: removeOrgGroupMember)
        group.get("transfers", use: transfers)
        group.get("links", use: links)
        group.post("links/:id/revoke", use: revokeLink)
        group.get("audit", use: audit)
    }

    static func query(_ request: Request) -> FormFields { FormFields(request.uri.query ?? "") }

    // MARK: - sign in and out

    @Sendable func signInPage(_ request: Request, context: RelayRequestContext) async throws -> Response {
        if (try? await signedIn(request)) != nil { return AdminPages.redirect("/admin/items") }
        let notice = Self.query(request)["signed-out"] != nil ? "You are signed out." : nil
        return signInForm(message: nil, notice: notice)
    }

    /// The sign-in form with a fresh double-submit value in its own cookie.
    func signInForm(message: String?, notice: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        let nonce = Secrets.token()
        return AdminPages.response(AdminPages.signIn(nonce: nonce, message: message, notice: notice), status: status,
                                   headers: [.setCookie: AdminAuth.setCookie(AdminAuth.signInCookie, nonce, maxAge: 3600)])
    }

    @Sendable func signIn(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try AdminAuth.refuseCrossSite(request)
        var request = request
        let form = FormFields(String(decoding: try await request.collectBody(upTo: 16 * 1024).readableBytesView, as: UTF8.self))
        guard let nonce = AdminAuth.cookies(request)[AdminAuth.signInCookie],
              AdminAuth.same(form[AdminAuth.csrfField] ?? "", nonce) else { throw AdminPageError.csrf }
        let code = form.text("code")
        let token = Secrets.token()
        let now = Date()
        let lifetime = services.configuration.adminSessionLifetime
        guard !code.isEmpty, code.utf8.count <= 64,
              let session = try await store.signIn(codeHash: RelayCodes.hash(loginCode: code), sessionHash: AdminAuth.sessionHash(token),
                                                            expires: now.addingTimeInterval(lifetime), now: now) else {
            return signInForm(message: "That code does not sign anyone in: it is unknown, used, expired, or not an administrator's. "
                                + "Ask for a new one with vfs-relay login-code or vfs-device admin-link.", status: .forbidden)
        }
        context.logger.info("admin sign-in", metadata: ["user": "\(session.email)"])
        var headers: HTTPFields = [.setCookie: AdminAuth.setCookie(AdminAuth.sessionCookie, token, maxAge: Int(lifetime))]
        headers.append(HTTPField(name: .setCookie, value: AdminAuth.setCookie(AdminAuth.signInCookie, "", maxAge: 0)))
        return AdminPages.redirect("/admin/items", headers: headers)
    }

    @Sendable func signOut(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let (signedIn, _) = try await self.signedInForm(request)
        try await store.signOut(sessionHash: signedIn.sessionHash, now: Date())
        return AdminPages.redirect("/admin/sign-in?signed-out=1",
                                   headers: [.setCookie: AdminAuth.setCookie(AdminAuth.sessionCookie, "", maxAge: 0)])
    }

    // MARK: - approved apps

    static let notices = ["added": "Added", "saved": "Saved", "deleted": "Deleted"]

    func notice(_ request: Request) -> String? {
        let query = Self.query(request)
        guard let done = query["done"], let verb = Self.notices[done] else { return nil }
        return "\(verb) \(query.text("app"))."
    }

    static func doneLocation(_ done: String, app: String) -> String {
        "/admin/items?done=\(done)&app=" + (app.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }

    @Sendable func itemList(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let signedIn = try await self.signedIn(request)
        let items = try await store.items(org: signedIn.session.orgID)
        let query = AdminPages.ItemQuery(Self.query(request).values)
        return AdminPages.response(AdminPages.items(items, query: query, signedIn: signedIn, notice: notice(request), now: Date()))
    }

    @Sendable func newItem(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let signedIn = try await self.signedIn(request)
        return AdminPages.response(AdminPages.itemForm(.init(), signedIn: signedIn, message: nil))
    }

    /// The form as typed, and the draft it makes or the first rule it breaks.
    static func draft(_ form: FormFields, id: String?) -> (AdminPages.ItemForm, ItemDraft?, String?) {
        var typed = AdminPages.ItemForm(id: id)
        typed.app = form.text("app")
        typed.name = form.text("name")
        typed.groups = form.text("groups")
        typed.types = form.text("types")
        typed.expires = form.text("expires")
        typed.enabled = form["enabled"] == "on"
        var expires: Date?
        if !typed.expires.isEmpty {
            // The meaning vfs-policy --expires gives a date: valid through that day (UTC).
            guard let end = RFC3339.expiry(ofDay: typed.expires) else {
                return (typed, nil, "invalid expiry \"\(typed.expires)\" (a date such as 2027-01-31)")
            }
            expires = end
        }
        let draft = ItemDraft(app: typed.app, name: typed.name, groups: form.list("groups"), types: form.list("types"),
                              expires: expires, enabled: typed.enabled)
        if let problem = draft.problem { return (typed, nil, problem) }
        do {
            if !draft.name.isEmpty { try Validate.name(draft.name, what: "item name") }
        } catch let error as RelayError {
            return (typed, nil, error.message)
        } catch {
            return (typed, nil, "invalid item name")
        }
        return (typed, draft, nil)
    }

    @Sendable func createItem(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let (signedIn, form) = try await self.signedInForm(request)
        let (typed, draft, problem) = Self.draft(form, id: nil)
        guard let draft else {
            return AdminPages.response(AdminPages.itemForm(typed, signedIn: signedIn, message: problem), status: .unprocessableContent)
        }
        let identity = signedIn.session.identity
        var id = Secrets.itemID()
        while id == draft.app { id = Secrets.itemID() }
        do {
            _ = try await store.createItem(draft, id: id, actor: identity, now: Date())
        } catch let error as StoreError {
            return AdminPages.response(AdminPages.itemForm(typed, signedIn: signedIn, message: Self.message(error)), status: .conflict)
        }
        try await items.changed(id, "add", identity)
        return AdminPages.redirect(Self.doneLocation("added", app: draft.app))
    }

    static func message(_ error: StoreError) -> String {
        switch error {
        case .notFound(let text), .conflict(let text), .invalid(let text), .preconditionFailed(let text): text
        }
    }

    func storedItem(_ context: RelayRequestContext, org: Int64) async throws -> VersionedItem {
        let id = try pathID(context)
        do {
            return try await store.item(id: id, org: org)
        } catch StoreError.notFound {
            throw AdminPageError.notFound("There is no approved app with the id \"\(id)\"; another administrator may have deleted it.")
        }
    }

    @Sendable func editItem(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let signedIn = try await self.signedIn(request)
        let item = try await storedItem(context, org: signedIn.session.orgID)
        return AdminPages.response(AdminPages.itemForm(.init(item), signedIn: signedIn, message: nil))
    }

    /// The form again after another administrator changed the item: theirs shown, ours kept
    /// (unsaved), the form now based on their version.
    func conflict(_ typed: AdminPages.ItemForm, signedIn: SignedIn, org: Int64, context: RelayRequestContext) async throws -> Response {
        let current = try await storedItem(context, org: org)
        var form = typed
        form.version = current.version
        return AdminPages.response(
            AdminPages.itemForm(form, signedIn: signedIn, message: "Not saved: another administrator changed \(current.item.app) after you opened it.",
                                conflict: current),
            status: .conflict)
    }

    @Sendable func updateItem(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let (signedIn, form) = try await self.signedInForm(request)
        let stored = try await storedItem(context, org: signedIn.session.orgID)
        var (typed, draft, problem) = Self.draft(form, id: stored.item.id)
        typed.version = Int64(form.text("version"))
        guard let draft else {
            return AdminPages.response(AdminPages.itemForm(typed, signedIn: signedIn, message: problem), status: .unprocessableContent)
        }
        guard let version = typed.version else {
            return AdminPages.response(AdminPages.itemForm(typed, signedIn: signedIn, message: "the form lacks the item's version; reload it"),
                                       status: .badRequest)
        }
        let identity = signedIn.session.identity
        do {
            _ = try await store.updateItem(id: stored.item.id, draft, ifVersion: version, actor: identity, now: Date())
        } catch StoreError.preconditionFailed {
            return try await conflict(typed, signedIn: signedIn, org: signedIn.session.orgID, context: context)
        } catch let error as StoreError {
            return AdminPages.response(AdminPages.itemForm(typed, signedIn: signedIn, message: Self.message(error)), status: .conflict)
        }
        try await items.changed(stored.item.id, "update", identity)
        return AdminPages.redirect(Self.doneLocation("saved", app: draft.app))
    }

    @Sendable func deleteItem(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let (signedIn, form) = try await self.signedInForm(request)
        let stored = try await storedItem(context, org: signedIn.session.orgID)
        let identity = signedIn.session.identity
        do {
            try await store.deleteItem(id: stored.item.id, ifVersion: Int64(form.text("version")) ?? -1, actor: identity, now: Date())
        } catch StoreError.preconditionFailed {
            return try await conflict(.init(stored), signedIn: signedIn, org: signedIn.session.orgID, context: context)
        }
        try await items.changed(stored.item.id, "delete", identity)
        return AdminPages.redirect(Self.doneLocation("deleted", app: stored.item.app))
    }

    // MARK: - devices, outbox, audit

    @Sendable func deviceList(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let signedIn = try await self.signedIn(request)
        let members = try await store.organisationMembers(org: signedIn.session.orgID)
        let query = Self.query(request)
        let notice = query["revoked"].map { "Revoked \($0)." }
        let history = try await store.cloudHistorySummaries(org: signedIn.session.orgID)
        return AdminPages.response(AdminPages.devices(members, history: history, signedIn: signedIn, notice: notice))
    }

    /// A live device of the organisation and its owner.
    func orgDevice(_ context: RelayRequestContext, org: Int64) async throws -> (Device, OrganisationMember) {
        let id = try pathID(context)
        for member in try await store.organisationMembers(org: org) {
            if let device = member.devices.first(where: { $0.id == id && $0.invalidated == nil }) { return (device, member) }
        }
        throw AdminPageError.notFound("There is no active device \"\(id)\" in the organisation.")
    }

    @Sendable func confirmRevoke(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let signedIn = try await self.signedIn(request)
        let (device, owner) = try await orgDevice(context, org: signedIn.session.orgID)
        return AdminPages.response(AdminPages.confirmRevoke(device, owner: owner.email, signedIn: signedIn))
    }

    @Sendable func revoke(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let (signedIn, _) = try await self.signedInForm(request)
        let (device, owner) = try await orgDevice(context, org: signedIn.session.orgID)
        let now = Date()
        let released = try await store.invalidateDevice(id: device.id, user: owner.id, now: now)
        await services.deleteBlobs(released)
        try await store.audit(org: signedIn.session.orgID, actor: signedIn.session.email, action: "admin.revoke",
                                       subject: device.id, detail: "\(device.name) of \(owner.email)", now: now)
        return AdminPages.redirect("/admin/devices?revoked=" + (device.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
    }

    // MARK: - groups of people

    /// The organisation's groups of people (`vfs-push --to-group`), with a note of what
    /// was just done (`?done=…&group=…&email=…`) or, after a refused change, the reason.
    func orgGroupsPage(_ signedIn: SignedIn, notice: String?, problem: String?, status: HTTPResponse.Status = .ok) async throws -> Response {
        let org = signedIn.session.orgID
        let groups = try await store.orgGroups(org: org, member: nil)
        let users = try await store.organisationMembers(org: org).map(\.email)
        return AdminPages.response(AdminPages.orgGroups(groups, users: users, signedIn: signedIn, notice: notice, problem: problem), status: status)
    }

    static let groupNotices = ["created": "Created the group", "added": "Added", "removed": "Removed"]

    @Sendable func orgGroups(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let signedIn = try await self.signedIn(request)
        let query = Self.query(request)
        var notice: String?
        if let done = query["done"], let verb = Self.groupNotices[done] {
            let group = query.text("group"), email = query.text("email")
            notice = done == "created" ? "\(verb) \(group)." : "\(verb) \(email) \(done == "added" ? "to" : "from") \(group)."
        }
        return try await orgGroupsPage(signedIn, notice: notice, problem: nil)
    }

    static func groupsLocation(_ done: String, group: String, email: String = "") -> String {
        func escaped(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }
        return "/admin/groups?done=\(done)&group=\(escaped(group))" + (email.isEmpty ? "" : "&email=\(escaped(email))")
    }

    @Sendable func createOrgGroup(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let (signedIn, form) = try await self.signedInForm(request)
        let name = form.text("name")
        do {
            try Validate.groupName(name)
            _ = try await store.createOrgGroup(org: signedIn.session.orgID, name: name, actor: signedIn.session.email, now: Date())
        } catch let error as RelayError {
            return try await orgGroupsPage(signedIn, notice: nil, problem: error.message, status: .unprocessableContent)
        } catch let error as StoreError {
            return try await orgGroupsPage(signedIn, notice: nil, problem: Self.message(error), status: .conflict)
        }
        return AdminPages.redirect(Self.groupsLocation("created", group: name))
    }

    @Sendable func addOrgGroupMember(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try await changeOrgGroupMember(request, context: context, add: true)
    }

    @Sendable func removeOrgGroupMember(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try await changeOrgGroupMember(request, context: context, add: false)
    }

    /// The same store call, audit line and rules as the API's PUT and DELETE
    /// `/v1/org/groups/{name}/members/{email}`: a user of another organisation is not found.
    func changeOrgGroupMember(_ request: Request, context: RelayRequestContext, add: Bool) async throws -> Response {
        let (signedIn, form) = try await self.signedInForm(request)
        let name = try pathID(context, "name"), email = form.text("email")
        do {
            guard !email.isEmpty, email.utf8.count <= 254 else { throw StoreError.invalid("give the member's email address") }
            _ = try await store.changeOrgGroupMember(org: signedIn.session.orgID, group: name, email: email, add: add,
                                                              actor: signedIn.session.email, now: Date())
        } catch let error as StoreError {
            let status: HTTPResponse.Status = if case .notFound = error { .notFound } else { .unprocessableContent }
            return try await orgGroupsPage(signedIn, notice: nil, problem: Self.message(error), status: status)
        }
        return AdminPages.redirect(Self.groupsLocation(add ? "added" : "removed", group: name, email: email))
    }

    @Sendable func transfers(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let signedIn = try await self.signedIn(request)
        let org = signedIn.session.orgID
        return AdminPages.response(AdminPages.transfers(try await store.organisationTransfers(org: org),
                                                        members: try await store.organisationMembers(org: org),
                                                        signedIn: signedIn))
    }

    /// The organisation's share links and file requests, each with a button that revokes it.
    @Sendable func links(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let signedIn = try await self.signedIn(request)
        let org = signedIn.session.orgID
        let notice = Self.query(request)["revoked"].map { "Revoked \($0)." }
        return AdminPages.response(AdminPages.links(try await store.organisationLinks(org: org, now: Date()),
                                                    members: try await store.organisationMembers(org: org),
                                                    signedIn: signedIn, notice: notice))
    }

    /// The same revocation as the owner's `DELETE /v1/shares/{id}` (a link's blob released
    /// at once; the next GET is 410), audited with the administrator's address.
    @Sendable func revokeLink(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let (signedIn, _) = try await self.signedInForm(request)
        let id = try pathID(context)
        let released: [String]
        do {
            released = try await services.freeing {
                try await store.adminRevokeLink(id: id, org: signedIn.session.orgID, actor: signedIn.session.email, now: Date())
            }
        } catch StoreError.notFound(let text) {
            throw AdminPageError.notFound(text)
        }
        await services.deleteBlobs(released)
        return AdminPages.redirect("/admin/links?revoked=" + id)
    }

    @Sendable func audit(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let signedIn = try await self.signedIn(request)
        let filter = Self.query(request).text("q")
        let entries = try await store.auditLog(org: signedIn.session.orgID, matching: filter, limit: Self.auditLimit)
        return AdminPages.response(AdminPages.audit(entries, filter: filter, limit: Self.auditLimit, signedIn: signedIn))
    }
}

/// Admin pages answer in HTML: no session is a trip to the sign-in page (GET) or 403,
/// a bad CSRF token 403, anything else a short page with its status.
struct AdminErrorMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch AdminPageError.signInNeeded {
            if request.method == .get || request.method == .head { return AdminPages.redirect("/admin/sign-in") }
            return AdminPages.response(AdminPages.message("Signed out", "You are not signed in (or your session ended). Nothing was changed.",
                                                          signedIn: nil, link: ("/admin/sign-in", "Sign in")), status: .forbidden)
        } catch AdminPageError.csrf {
            return AdminPages.response(AdminPages.message("Refused", "The form's security token is missing or wrong, so nothing was changed. Reload the page and try again.",
                                                          signedIn: nil, link: ("/admin/items", "Back to the approved apps")), status: .forbidden)
        } catch AdminPageError.notFound(let text) {
            return AdminPages.response(AdminPages.message("Not found", text, signedIn: nil, link: ("/admin/items", "Back to the approved apps")),
                                       status: .notFound)
        } catch {
            let relayError = RelayError(error)
            if relayError.status == .internalServerError {
                context.logger.error("admin request failed", metadata: ["error": "\(String(reflecting: error))"])
            }
            return AdminPages.response(AdminPages.message("Error", relayError.message, signedIn: nil, link: ("/admin/items", "Back")),
                                       status: relayError.status)
        }
    }
}
