import Foundation
import HTTPTypes
import Hummingbird
import VFSRelayProtocol

/// Share links (issue 51). `POST /v1/shares` makes a link of a finished upload (an age
/// file sealed to a key that stays in the link's fragment, never sent to the relay),
/// `GET /v1/shares` lists the user's links with their downloads, `DELETE
/// /v1/shares/{id}` revokes one (its blob released at once). `GET /s/{id}`, without a
/// token, serves the ciphertext with Range to whoever holds the link, each GET counted
/// in the statement that lets it through: revoked, expired or used up is 410. `GET
/// /v1/link-policy` tells a device what its organisation allows (`LinkRules`).
struct ShareController {
    let services: RelayServices
    let store: any ShareRepository & LinkPolicyRepository

    /// The most downloads a link may allow.
    static let maxDownloads = 1_000_000

    func addRoutes(public router: Router<RelayRequestContext>, to group: RouterGroup<RelayRequestContext>) {
        router.getAndHead(RouterPath(RelayPaths.shareLinks + "/:id"), use: content)
        router.get(RouterPath(SharePage.scriptPath)) { _, _ in SharePage.script() }
        router.get(RouterPath(SharePage.savedPath)) { _, _ in SharePage.notSaved() }
        group.post(RouterPath(RelayPaths.shares), use: create)
        group.get(RouterPath(RelayPaths.shares), use: list)
        group.delete(RouterPath(RelayPaths.shares + "/:id"), use: revoke)
        group.get(RouterPath(RelayPaths.linkPolicy), use: linkPolicy)
    }

    @Sendable func linkPolicy(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try jsonResponse(try await store.linkPolicy(org: context.requireIdentity().orgID))
    }

    @Sendable func create(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let body = try await request.decodeJSON(ShareCreate.self, context: context)
        let now = Date()
        let rules = LinkRules(policy: try await store.linkPolicy(org: identity.orgID), configuration: services.configuration)
        try rules.checkAllowed("share links")
        if let downloads = body.downloads, !(1...Self.maxDownloads).contains(downloads) {
            throw RelayError.badRequest("downloads must be from 1 to \(Self.maxDownloads)")
        }
        let expires = try rules.expiry(asked: body.expires, now: now)
        let downloads = try rules.downloads(asked: body.downloads)
        let share = try await services.adoptUpload(body.upload, user: identity.userID, check: rules.checkSize) { blobID in
            try await store.createShare(id: Secrets.id(), upload: body.upload, blobID: blobID, owner: identity, expires: expires,
                                        maxDownloads: downloads, now: now)
        }
        return try jsonResponse(share, status: .created, headers: [.location: RelayPaths.shareLink(share.id)])
    }

    @Sendable func list(_ request: Request, context: RelayRequestContext) async throws -> Response {
        try jsonResponse(try await store.shares(user: context.requireIdentity().userID))
    }

    @Sendable func revoke(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let (id, user) = (try pathID(context), try context.requireIdentity().userID)
        let released = try await services.freeing { try await store.revokeShare(id: id, user: user, now: Date()) }
        await services.deleteBlobs(released)
        return emptyResponse()
    }

    /// The ciphertext, or for a browser (Accept: text/html first) the page that decrypts
    /// it. A HEAD is answered as the GET would be, and neither it nor the page counts.
    @Sendable func content(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let id = try pathID(context)
        let now = Date()
        if SharePage.wanted(request) { return SharePage.response(try await store.publicShare(id: id, now: now)) }
        let download = BlobDownload(blobs: services.blobs, sent: services.metrics.downloadBytes)
        guard request.method != .head else {
            let share = try await store.publicShare(id: id, now: now)
            guard share.live else { throw Self.gone(id) }
            return try await download.response(share.blob, request: request)
        }
        if let token = request.headers[Self.resumeHeader] {
            // A download counted before, continued (with Range) after its connection broke.
            let share = try await store.resumeShareDownload(id: id, resume: Secrets.hash(token), within: Self.resumeWithin, now: now)
            guard share.admitted else { throw Self.gone(id) }
            return try await download.response(share.blob, request: request)
        }
        let token = Secrets.token()
        let share = try await store.countShareDownload(id: id, size: { Self.answered(request, blob: $0) },
                                                       address: context.remoteAddress, resume: Secrets.hash(token), now: now)
        guard share.admitted else {
            services.metrics.shareDownloadsRefused.increment()
            throw Self.gone(id)
        }
        services.metrics.shareDownloads.increment()
        var response = try await download.response(share.blob, request: request)
        response.headers[Self.resumeHeader] = token
        return response
    }

    /// The header of a counted download's answer that continues it: sent back with a
    /// Range, it gets the rest without counting again, even once the link is used up,
    /// within `resumeWithin` and while the link is neither revoked nor expired. Only whoever
    /// made the download has it (it is not in the link).
    static let resumeHeader = HTTPField.Name("VFS-Resume")!
    static let resumeWithin: TimeInterval = 24 * 3600

    static func gone(_ id: String) -> RelayError {
        RelayError(.gone, .gone, "link \"\(Validate.shown(id))\" was revoked, has expired or has had all its downloads")
    }

    /// The bytes `BlobDownload` answers `request` with, for the owner's log: the range
    /// asked for when it is one satisfiable range (as `If-Range` allows), else the whole.
    static func answered(_ request: Request, blob: BlobRef) -> Int64 {
        guard let header = request.headers[.range], request.headers[.ifRange].map({ blob.validates($0) }) ?? true,
              case .ranges(let ranges) = HeaderNumbers.rangeAnswer(header, size: blob.size), ranges.count == 1 else { return blob.size }
        return Int64(ranges[0].count)
    }
}
