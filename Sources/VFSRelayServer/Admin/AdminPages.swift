import Foundation
import HTTPTypes
import Hummingbird
import VFSPolicyModel
import VFSRelayProtocol

/// The admin web page's HTML, rendered on the server: every value goes through `HTML`
/// interpolation (escaped), no script at all, one stylesheet from the relay itself.
enum AdminPages {
    static let sections: [(path: String, title: String)] = [
        ("/admin/items", "Approved apps"), ("/admin/devices", "Devices and groups"),
        ("/admin/groups", "Groups of people"), ("/admin/transfers", "Outbox"), ("/admin/links", "Links"),
        ("/admin/audit", "Audit log"),
    ]

    /// The headers of every admin answer: a CSP that allows only the relay's own
    /// stylesheet and forms posting back to it, no caching, no framing, no referrer.
    static let securityHeaders: HTTPFields = [
        HTTPField.Name("Content-Security-Policy")!:
            "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("X-Frame-Options")!: "DENY",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
        .cacheControl: "no-store",
    ]

    static func response(_ html: HTML, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = securityHeaders
        fields[.contentType] = "text/html; charset=utf-8"
        fields.append(contentsOf: headers)
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: html.markup)))
    }

    static func redirect(_ location: String, headers: HTTPFields = [:]) -> Response {
        var fields = securityHeaders
        fields[.location] = location
        fields.append(contentsOf: headers)
        return Response(status: .seeOther, headers: fields)
    }

    static func layout(_ title: String, _ signedIn: SignedIn?, current: String = "", _ body: HTML) -> HTML {
        var navigation: HTML = ""
        if let signedIn {
            let links = sections.map { section -> HTML in
                "<li><a href=\"\(section.path)\"\(HTML.when(section.path == current, " aria-current=\"page\""))>\(section.title)</a></li>"
            }
            navigation = """
                <nav aria-label="Sections"><ul>\(links)</ul></nav>
                <form class="signout" method="post" action="/admin/sign-out">\(csrfField(signedIn))\
                <span>\(signedIn.session.email)</span> <button type="submit">Sign out</button></form>
                """
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · vfs relay</title><link rel="stylesheet" href="/admin/assets/admin.css"></head>
            <body><header><p class="brand">vfs relay · admin</p>\(navigation)</header>
            <main><h1>\(title)</h1>
            \(body)
            </main></body></html>
            """
    }

    static func csrfField(_ signedIn: SignedIn) -> HTML {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(signedIn.csrf)\">"
    }

    static func alert(_ message: String?) -> HTML {
        guard let message else { return "" }
        return "<p class=\"error\" role=\"alert\">\(message)</p>"
    }

    static func notice(_ message: String?) -> HTML {
        guard let message else { return "" }
        return "<p class=\"notice\" role=\"status\">\(message)</p>"
    }

    static func time(_ date: Date?) -> String {
        guard let date else { return "—" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: date)
    }

    /// An item's expiry as the lists show it: the date it is valid through, as typed in
    /// the form or given to `vfs-policy --expires DATE` (both mean the end of that day,
    /// UTC: RFC3339.expiry(ofDay:)); an instant given with a time, as a time; "never".
    static func expiry(_ date: Date?) -> String {
        guard let date else { return "never" }
        return RFC3339.expiryDay(date) ?? time(date)
    }

    /// The form's date field for a stored expiry: the date it is valid through (for an
    /// instant given with a time, the day it falls in).
    static func expiryField(_ date: Date?) -> String {
        guard let date else { return "" }
        if let day = RFC3339.expiryDay(date) { return day }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }

    static func bytes(_ count: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: count, countStyle: .binary)
    }

    // MARK: - sign in

    static func signIn(nonce: String, message: String?, notice: String? = nil) -> HTML {
        layout("Sign in", nil, """
            \(alert(message))\(self.notice(notice))
            <p>Paste a one-time sign-in code from <code>vfs-relay login-code EMAIL</code> or <code>vfs-device admin-link</code>.</p>
            <form method="post" action="/admin/sign-in">
            <input type="hidden" name="csrf" value="\(nonce)">
            <p><label for="code">Sign-in code</label>
            <input id="code" name="code" autocomplete="one-time-code" required autofocus spellcheck="false"></p>
            <p><button type="submit">Sign in</button></p>
            </form>
            """)
    }

    static func message(_ title: String, _ text: String, signedIn: SignedIn?, link: (String, String)) -> HTML {
        layout(title, signedIn, """
            <p role="alert">\(text)</p>
            <p><a href="\(link.0)">\(link.1)</a></p>
            """)
    }
}
