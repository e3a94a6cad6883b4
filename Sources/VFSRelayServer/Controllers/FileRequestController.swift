import Foundation
import HTTPTypes
import Hummingbird
import VFSRelayProtocol

/// File requests (issue 51, item 4). `POST /v1/requests` makes one for devices of the
/// user (their X25519 recipients), `GET /v1/requests` lists them with what each took,
/// `DELETE /v1/requests/{id}` revokes one. Without a token, `PUT /r/{id}` (or
/// `/r/{id}/{name}`, naming the file) takes an age file to the request's recipients, its
/// header checked as it streams in (`AgeHeaderCheck`: anything else 415), counted in the
/// statement that accepts it (past the limit, expired or revoked: 410), and delivers it
/// to the request's devices as an external transfer; `GET /r/{id}` gives the recipients
/// (one per line, an `age -R` file) or, to a browser, the page that encrypts in the page.
struct FileRequestController {
    let services: RelayServices
    let store: any FileRequestRepository & LinkPolicyRepository
    /// Writes what is sent in as an upload of the requester.
    let uploads: UploadController

    /// The most files a request may take.
    static let maxUploads = 1_000_000
    /// The most recipients (devices) a request may name.
    static let maxRecipients = 64

    func addRoutes(public router: Router<RelayRequestContext>, to group: RouterGroup<RelayRequestContext>) {
        router.getAndHead(RouterPath(RelayPaths.requestLinks + "/:id"), use: recipients)
        router.put(RouterPath(RelayPaths.requestLinks + "/:id"), use: receive)
        router.put(RouterPath(RelayPaths.requestLinks + "/:id/:name"), use: receive)
        group.post(RouterPath(RelayPaths.fileRequests), use: create)
        group.get(RouterPath(RelayPaths.fileRequests), use: list)
        group.delete(RouterPath(RelayPaths.fileRequests + "/:id"), use: revoke)
    }

    @Sendable func create(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let body = try await request.decodeJSON(FileRequestCreate.self, context: context)
        let now = Date()
        let rules = LinkRules(policy: try await store.linkPolicy(org: identity.orgID), configuration: services.configuration)
        try rules.checkAllowed("file requests")
        let expires = try rules.expiry(asked: body.expires, now: now)
        if let uploads = body.uploads, !(1...Self.maxUploads).contains(uploads) {
            throw RelayError.badRequest("uploads must be from 1 to \(Self.maxUploads)")
        }
        guard !body.devices.isEmpty, body.devices.count == body.recipients.count, body.devices.count <= Self.maxRecipients else {
            throw RelayError.badRequest("name 1 to \(Self.maxRecipients) devices, each with its recipient")
        }
        for recipient in body.recipients where !Self.isX25519(recipient) {
            throw RelayError.badRequest("\"\(Validate.shown(recipient))\" is not an X25519 age recipient (age1…): a file request takes X25519 stanzas only")
        }
        let made = try await store.createFileRequest(id: Secrets.id(), owner: identity, devices: body.devices, recipients: body.recipients,
                                                     expires: expires, maxUploads: body.uploads, now: now)
        return try jsonResponse(made, status: .created, headers: [.location: RelayPaths.requestLink(made.id)])
    }

    @Sendable func list(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try jsonResponse(try await store.fileRequests(user: context.requireIdentity().userID))
    }

    @Sendable func revoke(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try await store.revokeFileRequest(id: try pathID(context), user: try context.requireIdentity().userID, now: Date())
        return emptyResponse()
    }

    /// The recipients, one per line (what `age -R` reads), or a browser's page.
    @Sendable func recipients(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let filed = try await store.publicFileRequest(id: try pathID(context), now: Date())
        if SharePage.wanted(request) { return RequestPage.response(filed) }
        guard filed.live else { throw Self.gone(filed.id) }
        var headers = SharePage.securityHeaders
        headers[.contentType] = "text/plain; charset=utf-8"
        let text = filed.recipients.joined(separator: "\n") + "\n"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    @Sendable func receive(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let id = try pathID(context)
        let name = try context.parameters.get("name").map(Self.checkedName)
        let filed = try await store.publicFileRequest(id: id, now: Date())
        guard filed.live else { throw Self.gone(id) }
        let body = AgeHeaderGate(base: PatchBody(base: request.body, hash: nil), check: AgeHeaderCheck(recipients: filed.recipients.count))
        let rules = LinkRules(policy: try await store.linkPolicy(org: filed.orgID), configuration: services.configuration)
        let upload = try await uploads.receiveWhole(body, user: filed.userID, device: filed.deviceID, org: filed.orgID, cap: rules.sizeCap)
        let transfer: String
        do {
            transfer = try await services.adoptUpload(upload, user: filed.userID) { blobID in
                let now = Date()
                guard let made = try await store.deliverExternal(request: id, upload: upload, blobID: blobID, name: name,
                                                                 address: context.remoteAddress,
                                                                 expires: try services.configuration.expiry(asked: nil, now: now), now: now)
                else { throw Self.gone(id) }
                return made
            }
        } catch {
            await uploads.discard(upload, user: filed.userID)
            throw error
        }
        var headers = SharePage.securityHeaders
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: .created, headers: headers,
                        body: .init(byteBuffer: ByteBuffer(string: "received: it waits in the requester's inbox as transfer \(transfer)\n")))
    }

    static func gone(_ id: String) -> RelayError {
        RelayError(.gone, .gone, "file request \"\(Validate.shown(id))\" was revoked, has expired or has taken all its files")
    }

    /// An X25519 age recipient: `age1` and 58 bech32 characters (32 bytes and the checksum),
    /// lower case; a post-quantum or plugin recipient is longer or has its own prefix.
    static func isX25519(_ text: String) -> Bool {
        let alphabet = Set("qpzry9x8gf2tvdw0s3jn54khce6mua7l")
        return text.hasPrefix("age1") && text.count == 62 && text.dropFirst(4).allSatisfy { alphabet.contains($0) }
    }

    /// The name a sender gave (the path after the id): one file name, no control
    /// characters, not `.` or `..`, at most 255 bytes (400 otherwise). The receiver checks it again.
    static func checkedName(_ raw: String) throws -> String {
        let name = raw.removingPercentEncoding ?? raw
        guard !name.isEmpty, name.utf8.count <= 255, name != ".", name != "..", !name.contains("/"),
              !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw RelayError.badRequest("\"\(Validate.shown(raw))\" is not a file name (one name, no control characters, at most 255 bytes)")
        }
        return name
    }
}

/// A file request opened in a browser: the recipients, and a form whose file the page's
/// script (`/s/assets/share.js`, the share page's) encrypts to them in the page (age,
/// X25519 stanzas) and sends with `PUT /r/{id}/{name}`.
enum RequestPage {
    static func response(_ filed: PublicFileRequest) -> Response {
        let body: HTML
        let status: HTTPResponse.Status
        if filed.live {
            status = .ok
            let left: HTML = filed.uploadsLeft.map { " It takes \($0) more file\($0 == 1 ? "" : "s")." } ?? ""
            let items = filed.recipients.map { HTML("<li><code>\($0)</code></li>") }
            body = """
                <main id="request" data-recipients="\(filed.recipients.joined(separator: " "))">
                <h1>Send a file</h1>
                <p>Until <time id="expires">\(ISO8601DateFormatter().string(from: filed.expires))</time>.\(left) Your browser encrypts the file to these age recipients before it leaves this page:</p>
                <ul id="recipients">\(items)</ul>
                <p><label>File <input id="file" type="file"></label></p>
                <p><button id="upload" type="button">Encrypt and send</button></p>
                <p id="status" role="status"></p>
                <p class="note">From a terminal: <code>age -R recipients.txt FILE | curl -T - URL</code>, with the recipients above in recipients.txt.</p>
                </main>
                """
        } else {
            status = .gone
            body = """
                <main id="request-gone"><h1>This link no longer takes files</h1>
                <p>It was revoked, has expired or has taken all its files. Ask whoever sent it for a new one.</p></main>
                """
        }
        let page: HTML = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Send a file · vfs relay</title><link rel="stylesheet" href="/admin/assets/admin.css">
            <script src="\(SharePage.scriptPath)" defer></script></head>
            <body>\(body)</body></html>
            """
        var headers = SharePage.securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page.markup)))
    }
}
