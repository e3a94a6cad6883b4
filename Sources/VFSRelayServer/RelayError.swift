import Foundation
import GRDB
import Hummingbird
import NIOCore
import VFSRelayProtocol

/// An answer other than success: a status, a code and a message for people.
struct RelayError: Error, Sendable {
    var status: HTTPResponse.Status
    var code: RelayErrorCode
    var message: String
    var headers: HTTPFields

    init(_ status: HTTPResponse.Status, _ code: RelayErrorCode, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    static func badRequest(_ message: String) -> RelayError { .init(.badRequest, .badRequest, message) }
    static func notFound(_ message: String) -> RelayError { .init(.notFound, .notFound, message) }
    static func conflict(_ message: String) -> RelayError { .init(.conflict, .conflict, message) }
    static let unauthorized = RelayError(.unauthorized, .unauthorized, "a valid device token is needed (Authorization: Bearer TOKEN)")
    static let revoked = RelayError(.unauthorized, .revoked, "this device was logged out (revoked)")
    /// The relay keeps its disk reserve free (`serve --disk-reserve`): no more bytes now.
    static let diskFull = RelayError(.init(code: 507, reasonPhrase: "Insufficient Storage"), .insufficientStorage,
                                            "the relay's disk is nearly full; the upload can resume once there is room",
                                            headers: [.retryAfter: "300"])
    static let forbidden = RelayError(.forbidden, .forbidden, "only an administrator of the organisation may do this")

    /// The error as the API answers it.
    init(_ error: any Error) {
        switch error {
        case let error as RelayError:
            self = error
        case let error as StoreError:
            switch error {
            case .notFound(let message): self = .notFound(message)
            case .conflict(let message): self = .conflict(message)
            case .invalid(let message): self = .badRequest(message)
            case .preconditionFailed(let message): self = .init(.preconditionFailed, .preconditionFailed, message)
            }
        case RetentionRefusal.retained(let until):
            self = .init(.forbidden, .retained,
                         "your organisation retains this transfer until it is delivered or until \(ISO8601DateFormatter().string(from: until)); no device may cancel it before (the relay's operator may remove it)")
        case UploadRefusal.quota(let used, let quota):
            self = .init(.contentTooLarge, .quotaExceeded, "this upload would pass the quota of \(quota) bytes (\(used) in use)")
        case UploadRefusal.tooManyOpen(let count):
            self = .init(.tooManyRequests, .tooManyRequests,
                         "you have \(count) uploads open, the most a user may; finish or delete one (DELETE /v1/uploads/ID), or wait until one expires")
        case CloudRefusal.notHead(let path, let head):
            self = .init(.conflict, .versionConflict, head.map {
                "\"\(path)\" is at version \($0) now: another device replaced it since the version this put is based on"
            } ?? "\"\(path)\" holds no file now: another device removed it since the version this put is based on")
        case CloudRefusal.tooManyEntries(let count):
            self = .init(.init(code: 507, reasonPhrase: "Insufficient Storage"), .tooManyEntries,
                         "you hold \(count) cloud files and folders, the most a user may; delete some to make room")
        case LimitRefusal.devices(let limit, let organisation):
            self = .init(.forbidden, .forbidden, organisation
                ? "your organisation has \(limit) devices, the most this relay allows; a device must be removed first (or the operator raises serve --max-org-devices)"
                : "you have \(limit) devices, the most a user may on this relay; remove one you no longer use first (vfs-device revoke NAME), or ask the operator to raise serve --max-devices")
        case LimitRefusal.openInvites(let limit):
            self = .init(.tooManyRequests, .tooManyRequests,
                         "your devices hold \(limit) unused invitation code\(limit == 1 ? "" : "s"), the most a user may at once; use one, or wait until one expires",
                         headers: [.retryAfter: "60"])
        case BlobStoreError.noSpace:
            self = .diskFull
        case BlobStoreError.unavailable:
            self = .init(.serviceUnavailable, .unavailable, "the relay's blob store does not answer now; try again (an upload resumes)",
                         headers: [.retryAfter: "30"])
        case let error as DatabaseError where error.resultCode == .SQLITE_FULL:
            self = .diskFull
        case is ClientClosedRequest:
            self = .init(.init(code: 499, reasonPhrase: "Client Closed Request"), .clientClosed,
                         "the client closed the connection before its request ended")
        case is NIOTooManyBytesError:
            self = .init(.contentTooLarge, .tooLarge, "the request body is too large")
        case let error as DecodingError:
            self = .badRequest("invalid JSON body: \(Self.describe(error))")
        case let error as HTTPError:
            switch error.status {
            case .contentTooLarge: self = .init(.contentTooLarge, .tooLarge, "the request body is too large")
            case .notFound: self = .notFound("no such route")
            case .methodNotAllowed: self = .init(.methodNotAllowed, .methodNotAllowed, "method not allowed here")
            case .badRequest: self = .badRequest(error.body ?? "bad request")
            case .unauthorized: self = .unauthorized
            default:
                self = .init(error.status, error.status.code >= 500 ? .internalError : .badRequest,
                             error.body ?? error.status.reasonPhrase)
            }
        default:
            self = .init(.internalServerError, .internalError, "internal error")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case let .keyNotFound(key, context): return "missing \"\(path(context.codingPath + [key]).dropFirst())\""
        case let .typeMismatch(_, context), let .valueNotFound(_, context):
            return "wrong type at \"\(path(context.codingPath).dropFirst())\""
        case let .dataCorrupted(context):
            let at = path(context.codingPath)
            return at.isEmpty ? "not valid JSON" : "\(context.debugDescription) at \"\(at.dropFirst())\""
        @unknown default: return "not valid JSON"
        }
    }

    var response: Response {
        let body = RelayErrorBody(error: code.rawValue, message: message)
        let data = (try? RelayJSON.encoder().encode(body)) ?? Data()
        var headers = self.headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
