#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a tool asks before it releases a file: may `app` receive a file of `group`
/// and `fileType` at `date`?
public struct PolicyRequest: Sendable, Equatable {
    /// A command name or reverse-DNS id.
    public var app: String
    /// The group the file belongs to (nil = none given).
    public var group: String?
    /// The file extension, lowercased, no dot ("pdf"); nil = not given.
    public var fileType: String?
    public var date: Date

    public init(app: String, group: String? = nil, fileType: String? = nil, date: Date = Date()) {
        self.app = app
        self.group = group
        self.fileType = fileType
        self.date = date
    }

    /// The type of the file at `path`, from the extension of its last component:
    /// "report.PDF" -> "pdf"; "archive.tar.gz" -> "gz"; "README", ".bashrc", "notes." -> nil.
    public static func fileType(ofPath path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        return ext.isEmpty ? nil : ext.lowercased()
    }

    /// A type as people write it ("PDF", ".pdf") in the stored form ("pdf").
    public static func normalizedType(_ text: String) -> String {
        var t = Substring(text)
        while t.first == "." { t = t.dropFirst() }
        return t.lowercased()
    }
}

/// Why a request was denied, with one lowercase line for people.
public struct PolicyDenial: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable, Codable, CaseIterable {
        case notApproved = "not-approved", disabled, expired
        case groupNotAllowed = "group-not-allowed", typeNotAllowed = "type-not-allowed"
        /// The relay's list held on this device is past its offline grace, or missing.
        case policyStale = "policy-stale"
    }

    public let reason: Reason
    public let app: String
    /// The item that denied, or nil when the app has none (`.notApproved`).
    public let itemID: String?
    private let message: String

    public init(reason: Reason, app: String, itemID: String?, message: String) {
        self.reason = reason
        self.app = app
        self.itemID = itemID
        self.message = message
    }

    public var description: String { message }
}

/// The answer to a `PolicyRequest`.
public enum PolicyDecision: Sendable, Equatable {
    case allowed(itemID: String)
    case denied(PolicyDenial)

    public var isAllowed: Bool {
        if case .allowed = self { return true }
        return false
    }
}

extension PolicyDocument {
    /// The decision, default deny: an app without an item is not approved. An item
    /// denies, in this order, when it is disabled, expired (at and after `expires`),
    /// restricted to groups that do not include the request's (or no group was
    /// given), or restricted to types that do not include the request's (or none was given).
    public func decide(_ request: PolicyRequest) -> PolicyDecision {
        let app = request.app
        guard let item = item(forApp: app) else {
            return .denied(PolicyDenial(reason: .notApproved, app: app, itemID: nil,
                                        message: "\"\(app)\" is not an approved app"))
        }
        func deny(_ reason: PolicyDenial.Reason, _ message: String) -> PolicyDecision {
            .denied(PolicyDenial(reason: reason, app: app, itemID: item.id, message: message))
        }
        if !item.enabled {
            return deny(.disabled, "\"\(app)\" is approved but disabled")
        }
        if let expires = item.expires, item.isExpired(at: request.date) {
            return deny(.expired, "the approval of \"\(app)\" expired at \(PolicyDates.format(expires))")
        }
        if !item.groups.isEmpty {
            guard let group = request.group else {
                return deny(.groupNotAllowed, "\"\(app)\" may receive files of \(Self.quotedList(item.groups, noun: "group")) only, and the file has no group")
            }
            if !item.groups.contains(group) {
                return deny(.groupNotAllowed, "\"\(app)\" may not receive files of group \"\(group)\"")
            }
        }
        if !item.types.isEmpty {
            guard let type = request.fileType.map(PolicyRequest.normalizedType), !type.isEmpty else {
                return deny(.typeNotAllowed, "\"\(app)\" may receive files of \(Self.quotedList(item.types, noun: "type")) only, and the file has no type")
            }
            if !item.types.contains(type) {
                return deny(.typeNotAllowed, "\"\(app)\" may not receive files of type \"\(type)\"")
            }
        }
        return .allowed(itemID: item.id)
    }

    /// `group "a"` or `groups "a", "b"`.
    static func quotedList(_ values: [String], noun: String) -> String {
        (values.count == 1 ? noun : noun + "s") + " " + values.map { "\"\($0)\"" }.joined(separator: ", ")
    }
}
