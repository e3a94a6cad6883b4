import Foundation
import Hummingbird
import HTTPTypes

/// The admin web page's session and CSRF rules.
///
/// - The session cookie holds a random 256-bit token; the store keeps only its SHA-256,
///   so signing out (deleting the row) ends the session everywhere. The cookie is
///   `HttpOnly; Secure; SameSite=Strict`, scoped to `/admin`, with `Max-Age` equal to the
///   session's lifetime. `Secure` is always set: browsers accept it from `http://127.0.0.1`
///   and `http://localhost` (loopback counts as a secure origin), and over any other
///   plain-HTTP host the browser drops the cookie, so sign-in works there only through TLS.
/// - Every state-changing request (POST) carries the session's CSRF token, a hash of the
///   session token under its own label, in the form field `csrf` or the `X-CSRF-Token`
///   header; without it, or with another session's, it is refused (403). The sign-in form,
///   which has no session yet, carries a random value that must equal its own short-lived
///   cookie (double submit). A request the browser marks `Sec-Fetch-Site: cross-site` is
///   refused as well.
enum AdminAuth {
    static let sessionCookie = "vfs_admin"
    static let signInCookie = "vfs_admin_signin"
    static let cookiePath = "/admin"
    static let csrfField = "csrf"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    /// The CSRF token of the session whose cookie holds `sessionToken`.
    static func csrfToken(sessionToken: String) -> String { Secrets.hash("csrf:" + sessionToken) }

    static func sessionHash(_ token: String) -> String { Secrets.hash("admin-session:" + token) }

    /// The request's cookies by name (the first of a name wins).
    static func cookies(_ request: Request) -> [String: String] {
        var cookies: [String: String] = [:]
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                if cookies[name] == nil { cookies[name] = parts[1].trimmingCharacters(in: .whitespaces) }
            }
        }
        return cookies
    }

    /// A `Set-Cookie` value with the page's attributes; `maxAge` 0 deletes the cookie.
    static func setCookie(_ name: String, _ value: String, maxAge: Int) -> String {
        "\(name)=\(value); Path=\(cookiePath); Max-Age=\(maxAge); HttpOnly; Secure; SameSite=Strict"
    }

    /// Equal strings, compared in time that does not depend on where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count, !x.isEmpty else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// Refuses a request that a browser says comes from another site.
    static func refuseCrossSite(_ request: Request) throws {
        if request.headers[HTTPField.Name("Sec-Fetch-Site")!] == "cross-site" { throw AdminPageError.csrf }
    }
}

/// A signed-in request: the session and the token its forms must carry.
struct SignedIn: Sendable {
    let session: AdminSession
    let sessionHash: String
    let csrf: String
}

/// What the admin pages answer other than a page of their own.
enum AdminPageError: Error {
    /// No live session: GET goes to the sign-in page, anything else is refused.
    case signInNeeded
    /// The CSRF token is missing or wrong.
    case csrf
    case notFound(String)
}

extension AdminController {
    /// The session the request's cookie names, or `signInNeeded`.
    func signedIn(_ request: Request) async throws -> SignedIn {
        guard let token = AdminAuth.cookies(request)[AdminAuth.sessionCookie], !token.isEmpty, token.utf8.count <= 128 else {
            throw AdminPageError.signInNeeded
        }
        let hash = AdminAuth.sessionHash(token)
        guard let session = try await store.adminSession(hash: hash, now: Date()) else { throw AdminPageError.signInNeeded }
        return SignedIn(session: session, sessionHash: hash, csrf: AdminAuth.csrfToken(sessionToken: token))
    }

    /// The session of a state-changing request, which must carry its CSRF token; returns
    /// the form it sent.
    func signedInForm(_ request: Request) async throws -> (SignedIn, FormFields) {
        try AdminAuth.refuseCrossSite(request)
        let signedIn = try await self.signedIn(request)
        var request = request
        let body = try await request.collectBody(upTo: 64 * 1024)
        let form = FormFields(String(decoding: body.readableBytesView, as: UTF8.self))
        let sent = request.headers[AdminAuth.csrfHeader] ?? form[AdminAuth.csrfField] ?? ""
        guard AdminAuth.same(sent, signedIn.csrf) else { throw AdminPageError.csrf }
        return (signedIn, form)
    }
}
