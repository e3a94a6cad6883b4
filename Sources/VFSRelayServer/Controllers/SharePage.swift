import Foundation
import HTTPTypes
import Hummingbird
import VFSRelayProtocol

/// A share link opened in a browser (issue 51): the file's size and expiry, and a button
/// that has the relay's own script (`/s/assets/share.js`, nothing from elsewhere, no
/// inline script: the CSP allows only 'self') fetch the ciphertext and decrypt it in the
/// page with the key from the URL's fragment, which the browser never sends.
enum SharePage {
    static let scriptPath = RelayPaths.shareLinks + "/assets/share.js"
    /// Where the page's service worker (the same script) answers with the stream the page
    /// decrypts, as a download; the relay's own answer is for a browser the worker missed.
    static let savedPath = RelayPaths.shareLinks + "/assets/saved/:id"

    /// Scripts, fetches and styles from the relay alone; no frames, no forms, no referrer.
    static let securityHeaders: HTTPFields = [
        HTTPField.Name("Content-Security-Policy")!:
            "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; "
            + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("X-Frame-Options")!: "DENY",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
        .cacheControl: "no-store",
    ]

    /// Whether the request is a browser's navigation (it asks for HTML first), not a
    /// download (curl's `*/*`, the page's own fetch).
    static func wanted(_ request: Request) -> Bool {
        request.headers[.accept]?.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).hasPrefix("text/html") == true
    }

    static func response(_ share: PublicShare) -> Response {
        let body: HTML
        let status: HTTPResponse.Status
        if share.live {
            status = .ok
            let left: HTML = share.downloadsLeft.map { " It can be downloaded \($0) more time\($0 == 1 ? "" : "s")." } ?? ""
            body = """
                <main id="share" data-size="\(share.blob.size)">
                <h1>A file shared with you</h1>
                <p>Encrypted, <span id="size">\(share.blob.size)</span> bytes, until <time id="expires">\(ISO8601DateFormatter().string(from: share.expires))</time>.\(left)</p>
                <p><label>Passphrase <input id="passphrase" type="password" autocomplete="off"></label></p>
                <p><button id="download" type="button">Download and decrypt</button></p>
                <p id="status" role="status"></p>
                <p id="saved"></p>
                <p class="note">Your browser decrypts it with the key in this page's address (after the #), which it never sends: the relay cannot read the file.</p>
                </main>
                """
        } else {
            status = .gone
            body = """
                <main id="share-gone"><h1>This link no longer works</h1>
                <p>It was revoked, has expired or has had all its downloads. Ask whoever sent it for a new one.</p></main>
                """
        }
        let page: HTML = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>A file shared with you · vfs relay</title><link rel="stylesheet" href="/admin/assets/admin.css">
            <script src="\(scriptPath)" defer></script></head>
            <body>\(body)</body></html>
            """
        var headers = securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page.markup)))
    }

    /// `GET /s/assets/saved/ID` reaching the relay: the page's service worker did not take
    /// the download (stopped, or bypassed). 204 leaves the page where it is, still able to
    /// say so (it waits for the worker to start the download, and gives up with an error).
    static func notSaved() -> Response {
        Response(status: .noContent, headers: securityHeaders)
    }

    static func script() -> Response {
        var headers = securityHeaders
        headers[.contentType] = "text/javascript; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: PackageResources.share_js)))
    }
}
