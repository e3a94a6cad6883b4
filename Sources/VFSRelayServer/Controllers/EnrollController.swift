import Foundation
import Hummingbird
import VFSRelayProtocol

/// `POST /v1/enroll`: a one-time code becomes a device and its token.
struct EnrollController {
    let services: RelayServices

    func addRoutes(to router: Router<RelayRequestContext>) {
        router.post(RouterPath(RelayPaths.enroll), use: enroll)
    }

    @Sendable func enroll(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let now = Date()
        if let wait = try await services.throttle.blocked(context.remoteAddress, now: now) {
            throw RelayError(.tooManyRequests, .tooManyRequests, "too many wrong enrolment codes; try again in \(wait) s",
                             headers: [.retryAfter: "\(wait)"])
        }
        let body = try await request.decodeJSON(EnrollRequest.self, context: context)
        try Validate.name(body.name, what: "device name")
        try Validate.name(body.platform, what: "platform")
        try Validate.recipient(body.recipient)
        let token = Secrets.token()
        let device = try await services.store.enroll(
            codeHash: Secrets.hash(Secrets.normalisedCode(body.code)), deviceID: Secrets.id(), tokenHash: Secrets.hash(token),
            name: body.name, platform: body.platform, recipient: body.recipient, now: now)
        guard let device else {
            try await services.throttle.failed(context.remoteAddress, now: now)
            throw RelayError(.unauthorized, .unauthorized, "unknown, used or expired enrolment code")
        }
        try await services.throttle.succeeded(context.remoteAddress)
        return try jsonResponse(EnrollResponse(device: device, token: token), status: .created)
    }
}

/// The shapes of names the API accepts.
enum Validate {
    /// 1–128 characters, no control characters.
    static func name(_ value: String, what: String) throws {
        guard !value.isEmpty, value.count <= 128, !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw RelayError.badRequest("invalid \(what) \"\(value.prefix(40))\" (1 to 128 characters, no control characters)")
        }
    }

    /// An age recipient: printable ASCII without spaces, up to 4096 characters.
    static func recipient(_ value: String) throws {
        guard !value.isEmpty, value.utf8.count <= 4096, value.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw RelayError.badRequest("invalid recipient (an age recipient such as age1…)")
        }
    }

    /// A group name: 1–64 of letters, digits, `.`, `_`, `-`.
    static func groupName(_ value: String) throws {
        guard !value.isEmpty, value.utf8.count <= 64,
              value.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) }) else {
            throw RelayError.badRequest("invalid group name \"\(value.prefix(40))\" (letters, digits, '.', '_', '-')")
        }
    }

    /// A cloud file or folder name: 1–255 bytes, not `.` or `..`, no `/` and no control characters.
    static func cloudName(_ value: String) throws {
        guard !value.isEmpty, value.utf8.count <= 255, value != ".", value != "..", !value.contains("/"),
              !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw RelayError.badRequest("invalid name \"\(value.prefix(40))\"")
        }
    }
}
