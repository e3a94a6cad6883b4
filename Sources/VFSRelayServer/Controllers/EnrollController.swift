import Foundation
import Hummingbird
import VFSRelayProtocol

/// `POST /v1/enroll`: a one-time code becomes a device and its token.
struct EnrollController {
    let services: RelayServices
    let store: any EnrolmentRepository & SendOnlyMarkRepository
    let throttle: EnrolmentThrottle

    func addRoutes(to router: Router<RelayRequestContext>) {
        router.post(RouterPath(RelayPaths.enroll), use: enroll)
    }

    @Sendable func enroll(_ request: Request, context: RelayRequestContext) async throws -> Response {
        let now = Date()
        if let wait = try await throttle.blocked(context.remoteAddress, now: now) {
            throw RelayError(.tooManyRequests, .tooManyRequests, "too many wrong enrolment codes; try again in \(wait) s",
                             headers: [.retryAfter: "\(wait)"])
        }
        let body = try await request.decodeJSON(EnrollRequest.self, context: context)
        try Validate.name(body.name, what: "device name")
        try Validate.name(body.platform, what: "platform")
        try Validate.recipient(body.recipient)
        let token = Secrets.token()
        let deviceID = Secrets.id()
        // A send-only device's token is scoped from its first request (issue 48): marked
        // before the device exists, unmarked if the code makes none.
        let sendOnly = body.sendOnly == true
        if sendOnly { try await store.markSendOnly(device: deviceID, now: now) }
        let device: Device?
        do {
            device = try await store.enroll(
                codeHash: Secrets.hash(Secrets.normalisedCode(body.code)), deviceID: deviceID, tokenHash: Secrets.hash(token),
                name: body.name, platform: body.platform, recipient: body.recipient, now: now, limits: services.configuration.limits)
        } catch {
            if sendOnly { try? await store.unmarkSendOnly(device: deviceID) }
            throw error
        }
        if device == nil, sendOnly { try await store.unmarkSendOnly(device: deviceID) }
        guard let device else {
            try await throttle.failed(context.remoteAddress, now: now)
            throw RelayError(.unauthorized, .unauthorized, "unknown, used or expired enrolment code")
        }
        try await throttle.succeeded(context.remoteAddress)
        return try jsonResponse(EnrollResponse(device: device, token: token), status: .created)
    }
}

/// The shapes of names the API accepts. Characters (grapheme clusters) alone bound
/// nothing: one letter with 100,000 combining marks is one character of 200 kB. So
/// names are limited in bytes and Unicode scalars too, and a refusal quotes at most
/// 40 scalars of what it refuses.
enum Validate {
    /// Names are counted in Unicode scalars, as JSON Schema's `maxLength` counts, so the
    /// API document states the limit exactly; 128 scalars are at most 512 bytes.
    static let nameScalars = 128

    /// 1–128 Unicode scalars, no control characters.
    static func name(_ value: String, what: String) throws {
        guard !value.isEmpty, value.unicodeScalars.count <= nameScalars,
              !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw RelayError.badRequest("invalid \(what) \"\(shown(value))\" (1 to \(nameScalars) Unicode scalars, no control characters)")
        }
    }

    /// The start of a refused value for the message: 40 scalars at most.
    static func shown(_ value: String) -> String {
        let scalars = value.unicodeScalars
        guard scalars.count > 40 else { return value }
        var head = String.UnicodeScalarView()
        head.append(contentsOf: scalars.prefix(40))
        return String(head) + "…"
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
            throw RelayError.badRequest("invalid group name \"\(shown(value))\" (letters, digits, '.', '_', '-')")
        }
    }

    /// A cloud file or folder name: 1–255 bytes, not `.` or `..`, no `/` and no control characters.
    static func cloudName(_ value: String) throws {
        guard !value.isEmpty, value.utf8.count <= 255, value != ".", value != "..", !value.contains("/"),
              !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw RelayError.badRequest("invalid name \"\(shown(value))\" (1 to 255 bytes, not . or .., no / and no control characters)")
        }
    }
}
