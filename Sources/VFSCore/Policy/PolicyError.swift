import VFSPolicyModel

/// What can go wrong with the policy, and how a tool reports it.
public enum PolicyError: ReportableError, Equatable {
    /// The policy (or its log, or an import) does not parse or breaks a rule: exit 65.
    case corrupt(file: String, line: Int?, column: Int?, reason: String)
    /// No item has this app or id: exit 1.
    case noSuchItem(String)
    /// `add` of an app that already has an item: exit 1.
    case alreadyApproved(app: String, id: String)
    /// A bad app, group or type on the command line: exit 64.
    case invalidValue(String, hint: String)
    /// An import that parses but clashes with the policy: exit 65.
    case conflict(String, hint: String)

    public var description: String {
        switch self {
        case let .corrupt(file, line, column, reason):
            var place = ""
            if let line { place = ", line \(line)" + (column.map { ", column \($0)" } ?? "") }
            return "\"\(file)\"\(place): \(reason)"
        case let .noSuchItem(reference):
            return "no policy item has the app or id \"\(reference)\""
        case let .alreadyApproved(app, id):
            return "\"\(app)\" is already approved (item \(id))"
        case let .invalidValue(message, _), let .conflict(message, _):
            return message
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .corrupt, .conflict: return .dataError
        case .noSuchItem, .alreadyApproved: return .no
        case .invalidValue: return .usage
        }
    }

    public var hints: [String] {
        switch self {
        case .corrupt:
            return ["fix the file by hand (or restore it from git or a backup); vfs-policy never replaces a policy it cannot read"]
        case .noSuchItem:
            return ["vfs-policy list shows the apps and ids"]
        case let .alreadyApproved(app, _):
            return ["change it with vfs-policy update \(app) …"]
        case let .invalidValue(_, hint), let .conflict(_, hint):
            return [hint]
        }
    }
}

/// The rules for the values an item holds.
public enum PolicyRules {
    /// A command name or reverse-DNS id: 1–255 of letters, digits, `.`, `_`, `-`, `+`,
    /// not starting with `-` or `.`.
    public static func checkApp(_ app: String) throws {
        guard PolicyValueRules.isValidApp(app) else {
            throw PolicyError.invalidValue("invalid app \"\(app)\"",
                hint: "an app is a command name (evince) or a reverse-DNS id (com.example.viewer): letters, digits, '.', '_', '-', '+'")
        }
    }

    /// A group id: 1–255 printable characters without spaces or commas.
    public static func checkGroup(_ group: String) throws {
        guard PolicyValueRules.isValidGroup(group) else {
            throw PolicyError.invalidValue("invalid group \"\(group)\"", hint: "a group is one word without spaces or commas; repeat --group for several")
        }
    }

    /// A file type in stored form: 1–32 of lowercase letters, digits, `_`, `-`, `+`.
    public static func checkType(_ type: String) throws {
        guard PolicyValueRules.isValidType(type) else {
            throw PolicyError.invalidValue("invalid file type \"\(type)\"", hint: "a file type is an extension without the dot, such as pdf; repeat --type for several")
        }
    }

    /// An id: 1–64 of lowercase letters, digits, `-`, `_`.
    static func isValidID(_ id: String) -> Bool { PolicyValueRules.isValidID(id) }

    /// Checks every item and the rules between them. Throws (path, reason) for the first problem.
    static func check(_ document: PolicyDocument) throws(PolicyRuleViolation) {
        var apps = [String: Int](), ids = [String: Int]()
        for (n, item) in document.items.enumerated() {
            func violation(_ key: String, _ reason: String, index: Int? = nil) -> PolicyRuleViolation {
                var path: [JSONLocator.PathComponent] = [.key("items"), .index(n), .key(key)]
                if let index { path.append(.index(index)) }
                return PolicyRuleViolation(path: path, reason: reason)
            }
            guard isValidID(item.id) else { throw violation("id", "invalid id \"\(item.id)\" (lowercase letters, digits, '-', '_')") }
            do { try checkApp(item.app) } catch { throw violation("app", message(of: error)) }
            for (g, group) in item.groups.enumerated() {
                do { try checkGroup(group) } catch { throw violation("groups", message(of: error), index: g) }
                if item.groups[..<g].contains(group) { throw violation("groups", "group \"\(group)\" is listed twice", index: g) }
            }
            for (t, type) in item.types.enumerated() {
                do { try checkType(type) } catch { throw violation("types", message(of: error), index: t) }
                if item.types[..<t].contains(type) { throw violation("types", "type \"\(type)\" is listed twice", index: t) }
            }
            if let first = apps[item.app] { throw violation("app", "app \"\(item.app)\" has two items (items \(first) and \(n))") }
            if let first = ids[item.id] { throw violation("id", "id \"\(item.id)\" is used twice (items \(first) and \(n))") }
            apps[item.app] = n
            ids[item.id] = n
        }
        for (n, item) in document.items.enumerated() {
            if let other = ids[item.app], other != n {
                throw PolicyRuleViolation(path: [.key("items"), .index(n), .key("app")],
                                          reason: "app \"\(item.app)\" is also the id of item \(other), so it would be ambiguous")
            }
        }
    }

    private static func message(of error: Error) -> String { (error as? PolicyError)?.description ?? "\(error)" }
}

/// A rule a decoded policy breaks, and where.
struct PolicyRuleViolation: Error {
    let path: [JSONLocator.PathComponent]
    let reason: String
}
