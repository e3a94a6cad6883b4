import VFSPolicyModel

/// What can go wrong with the policy.
public enum PolicyError: Error, CustomStringConvertible, Equatable {
    /// The policy (or its log, or an import) does not parse or breaks a rule.
    case corrupt(file: String, line: Int?, column: Int?, reason: String)
    /// No item has this app or id.
    case noSuchItem(String)
    /// `add` of an app that already has an item.
    case alreadyApproved(app: String, id: String)
    /// An app that is not a command name or reverse-DNS id.
    case invalidApp(String)
    /// A group that is empty or holds spaces, commas or control characters.
    case invalidGroup(String)
    /// A file type that is not a lowercase extension without the dot.
    case invalidType(String)
    /// An app that is already the id of another item.
    case appIsAnotherItemsID(String)
    /// An import that parses but clashes with the policy once merged.
    case importConflict(source: String, reason: String)

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
        case let .invalidApp(app): return "invalid app \"\(app)\""
        case let .invalidGroup(group): return "invalid group \"\(group)\""
        case let .invalidType(type): return "invalid file type \"\(type)\""
        case let .appIsAnotherItemsID(app): return "\"\(app)\" is the id of another item"
        case let .importConflict(source, reason): return "cannot import \(source): after merging, \(reason)"
        }
    }
}

/// The rules for the values an item holds.
public enum PolicyRules {
    /// A command name or reverse-DNS id: 1–255 of letters, digits, `.`, `_`, `-`, `+`,
    /// not starting with `-` or `.`.
    public static func checkApp(_ app: String) throws {
        guard PolicyValueRules.isValidApp(app) else {
            throw PolicyError.invalidApp(app)
        }
    }

    /// A group id: 1–255 printable characters without spaces or commas.
    static func checkGroup(_ group: String) throws {
        guard PolicyValueRules.isValidGroup(group) else {
            throw PolicyError.invalidGroup(group)
        }
    }

    /// A file type in stored form: 1–32 of lowercase letters, digits, `_`, `-`, `+`.
    static func checkType(_ type: String) throws {
        guard PolicyValueRules.isValidType(type) else {
            throw PolicyError.invalidType(type)
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
