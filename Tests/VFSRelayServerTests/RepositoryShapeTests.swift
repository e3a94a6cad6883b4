import Foundation
import Testing

/// The relay's storage as role repositories (docs/relay.md, "Repositories"), checked on the
/// sources: Swift can neither count a protocol's requirements at compile time nor tell which
/// of them a holder calls, so the test reads Storage/Repositories.swift and each consumer's file.
@Suite("repositories: small protocols, each consumer given only methods it calls")
struct RepositoryShapeTests {
    static let module = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/VFSRelayServer")

    static func source(_ path: String) throws -> String {
        try String(contentsOf: module.appendingPathComponent(path), encoding: .utf8)
    }

    // MARK: Reading Swift, as far as these files need

    /// The index of the bracket that closes the one at `open` (round, square and curly counted alike).
    static func closing(_ text: Substring, _ open: Substring.Index) -> Substring.Index? {
        var depth = 0
        for index in text[open...].indices {
            switch text[index] {
            case "(", "[", "{": depth += 1
            case ")", "]", "}":
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
        }
        return nil
    }

    /// The items of a parameter or argument list, split at the commas outside nested brackets.
    static func items(_ list: Substring) -> [Substring] {
        var found: [Substring] = []
        var (depth, start) = (0, list.startIndex)
        for index in list.indices {
            switch list[index] {
            case "(", "[", "{": depth += 1
            case ")", "]", "}": depth -= 1
            case "," where depth == 0:
                found.append(list[start..<index])
                start = list.index(after: index)
            default: break
            }
        }
        if !list[start...].allSatisfy(\.isWhitespace) { found.append(list[start...]) }
        return found
    }

    /// The full name of a declaration, `chain(user:pinned:)`, from its name and its parameter list.
    static func declared(_ name: Substring, parameters: Substring) -> String {
        String(name) + "(" + items(parameters).map { String($0.firstMatch(of: /^\s*(\w+)/)?.1 ?? "_") + ":" }.joined() + ")"
    }

    /// The labels of an argument list as written (`_` for an unlabelled argument).
    static func labels(_ arguments: Substring) -> [String] {
        items(arguments).map { String($0.firstMatch(of: /^\s*(\w+)\s*:(?!:)/)?.1 ?? "_") }
    }

    /// A call as written: its name, its argument labels (nil for a property read) and
    /// whether a trailing closure follows.
    struct Call: Equatable {
        let name: String
        let labels: [String]?
        let trailingClosure: Bool

        /// Whether this call is of `requirement` (a full name, or a property's bare name).
        func calls(_ requirement: String) -> Bool {
            guard let open = requirement.firstIndex(of: "(") else { return labels == nil && name == requirement }
            guard let labels, requirement[..<open] == name else { return false }
            let declared = requirement[requirement.index(after: open)...].dropLast().split(separator: ":").map(String.init)
            return declared == labels || (trailingClosure && Array(declared.dropLast()) == labels)
        }
    }

    /// The calls in `text` of a member of what `receiver` (a regular expression) names.
    static func calls(in text: Substring, on receiver: String) throws -> [Call] {
        try text.matches(of: Regex("(?:^|[^\\w.])" + receiver + "\\.(\\w+)")).map { match -> Call in
            let name = String(match.output[1].substring ?? "")
            let after = match.range.upperBound
            var labels: [String]?
            var rest = text[after...]
            if after < text.endIndex, text[after] == "(", let close = closing(text, after) {
                labels = Self.labels(text[text.index(after: after)..<close])
                rest = text[text.index(after: close)...]
            }
            let trailingClosure = rest.drop(while: { $0 == " " }).first == "{"
            return Call(name: name, labels: labels ?? (trailingClosure ? [] : nil), trailingClosure: trailingClosure)
        }
    }

    // MARK: The repositories and their holders

    /// Each `public protocol …Repository` of `text` with the full names of its requirements, in order.
    static func protocols(in text: String) -> [(name: String, requirements: [String])] {
        let text = text[...]
        return text.matches(of: /(?m)^public protocol (\w+Repository): Sendable \{$/).compactMap { open -> (name: String, requirements: [String])? in
            guard let close = closing(text, text.index(before: open.range.upperBound)) else { return nil }
            let body = text[open.range.upperBound..<close]
            var requirements: [(String.Index, String)] = body.matches(of: /(?m)^    func (\w+)(?:<[^>]*>)?\(/).compactMap { function -> (String.Index, String)? in
                let parenthesis = body.index(before: function.range.upperBound)
                guard let end = closing(body, parenthesis) else { return nil }
                return (function.range.lowerBound, declared(function.1, parameters: body[body.index(after: parenthesis)..<end]))
            }
            requirements += body.matches(of: /(?m)^    var (\w+)/).map { ($0.range.lowerBound, String($0.1)) }
            return (String(open.1), requirements.sorted { $0.0 < $1.0 }.map(\.1))
        }
    }

    /// Each `public typealias` of `text` that composes protocols, with its members.
    static func compositions(in text: String) -> [String: [String]] {
        Dictionary(text.matches(of: /(?m)^public typealias (\w+) = (\w+(?:\s*&\s*\w+)*)/).map { alias in
            (String(alias.1), alias.2.split(separator: "&").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        }, uniquingKeysWith: { first, _ in first })
    }

    /// The methods of each protocol extension of `text`: which requirements of its protocol
    /// each calls (a call of `chain(email:org:)` is one of `chain(email:org:pinned:)`).
    static func helpers(in text: String, requirements: [String: [String]]) -> [String: [(helper: String, calls: [String])]] {
        let text = text[...]
        var found: [String: [(helper: String, calls: [String])]] = [:]
        for open in text.matches(of: /(?m)^extension (\w+Repository) \{$/) {
            guard let close = closing(text, text.index(before: open.range.upperBound)) else { continue }
            let body = text[open.range.upperBound..<close]
            let own = requirements[String(open.1)] ?? []
            for function in body.matches(of: /(?m)^    (?:public )?func (\w+)\(/) {
                let parenthesis = body.index(before: function.range.upperBound)
                guard let end = closing(body, parenthesis), let brace = body[end...].firstIndex(of: "{"),
                      let last = closing(body, brace) else { continue }
                // The helper's own calls, made on no receiver.
                let made = body[brace...last].matches(of: /(?:^|[^\w.])(\w+)\(/).compactMap { call -> Call? in
                    let parenthesis = body.index(before: call.range.upperBound)
                    guard let close = closing(body, parenthesis) else { return nil }
                    return Call(name: String(call.1), labels: labels(body[body.index(after: parenthesis)..<close]), trailingClosure: false)
                }
                let called = own.filter { requirement in made.contains { $0.calls(requirement) } }
                found[String(open.1), default: []].append((helper: declared(function.1, parameters: body[body.index(after: parenthesis)..<end]), calls: called))
            }
        }
        return found
    }

    /// The top-level declarations of `text` (struct, class, enum, extension) by name, each with its text.
    static func declarations(in text: String) -> [(name: String, text: String)] {
        var found: [(String, String)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let start = line.firstMatch(of: /^(?:public |package |private |fileprivate )?(?:final )?(?:struct|class|enum|actor|extension) (\w+)/) {
                found.append((String(start.1), ""))
            }
            if !found.isEmpty { found[found.count - 1].1 += line + "\n" }
        }
        return found
    }

    /// Every repository held by a type of `consumers` (files by name) as a stored `let NAME: any A & B`,
    /// and which of its requirements that type does not call: through the property in the type
    /// and its extensions (`store.x(…)`, `self.store.x(…)`), or anywhere in its file through a
    /// value of it (`follower.store.x(…)`). Returns the count of holders and one line per
    /// requirement held and not called.
    static func audit(repositories: String, consumers: [(file: String, text: String)]) throws -> (holders: Int, uncalled: [String]) {
        let requirements = Dictionary(protocols(in: repositories).map { ($0.name, $0.requirements) }, uniquingKeysWith: { first, _ in first })
        let aliases = compositions(in: repositories)
        let helpers = Self.helpers(in: repositories, requirements: requirements)
        let declarations = consumers.flatMap { Self.declarations(in: $0.text) }
        var (holders, uncalled) = (0, [String]())
        for (file, text) in consumers {
            for (type, body) in Self.declarations(in: text) {
                for held in body.matches(of: /\n    (?:private )?let (\w+): any ([\w &]+)\n/) {
                    let names = held.2.split(separator: "&").map { $0.trimmingCharacters(in: .whitespaces) }
                        .flatMap { aliases[$0] ?? [$0] }.filter { $0.hasSuffix("Repository") }
                    guard !names.isEmpty else { continue }
                    holders += 1
                    let own = declarations.filter { $0.name == type }.map(\.text).joined()
                    let made = try calls(in: own[...], on: "(?:self\\.)?" + String(held.1))
                        + calls(in: text[...], on: "(?!self\\.)\\w+\\." + String(held.1))
                    for name in names {
                        guard let methods = requirements[name] else {
                            uncalled.append("\(type) (\(file)) holds \(name), which is no repository")
                            continue
                        }
                        let viaHelpers = (helpers[name] ?? []).filter { helper in made.contains { $0.calls(helper.helper) } }.flatMap(\.calls)
                        for method in methods where !made.contains(where: { $0.calls(method) }) && !viaHelpers.contains(method) {
                            uncalled.append("\(type) (\(file)) holds \(name).\(method) and does not call it")
                        }
                    }
                }
            }
        }
        return (holders, uncalled)
    }

    // MARK: The tests

    @Test("no repository protocol has more than 15 requirements, and the store is every one of them")
    func small() throws {
        let text = try Self.source("Storage/Repositories.swift")
        let protocols = Self.protocols(in: text)
        #expect(protocols.count >= 30, "the parser found \(protocols.count) repositories")
        for (name, requirements) in protocols {
            #expect(!requirements.isEmpty && requirements.count <= 15, "\(name) has \(requirements.count) requirements")
        }
        // Each method is a requirement of one protocol only.
        let all = protocols.flatMap(\.requirements)
        #expect(Set(all).count == all.count, "a method is required twice: \(all.sorted())")
        // The composition the concrete store conforms to names each of them once; the
        // other compositions are of repositories only.
        let compositions = Self.compositions(in: text)
        let members = try #require(compositions["RelayStore"])
        #expect(members.sorted() == protocols.map(\.name).sorted())
        for (alias, members) in compositions {
            #expect(Set(members).isSubset(of: protocols.map(\.name)), "\(alias) is \(members)")
        }
        // The records' file keeps the records only: no second home for a store protocol.
        #expect(try Self.source("Storage/RelayStore.swift").firstMatch(of: /\bprotocol\b/) == nil)
    }

    static func swiftFiles() throws -> [String] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: module.path))
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
    }

    /// The files of the controllers, middleware and services: none holds the whole store, and
    /// each type calls every method of every repository it holds.
    static let consumers = ["Controllers", "Admin", "Middleware", "Events", "RelayServices.swift", "RelayMaintenance.swift",
                            "Storage/S3BlobStore.swift"]

    @Test("each controller, middleware and service calls every method of each repository it holds")
    func consumersHoldWhatTheyCall() throws {
        let files = try Self.swiftFiles().filter { file in Self.consumers.contains { file.hasPrefix($0) } }
        let consumers = try files.map { (file: $0, text: try Self.source($0)) }
        for (file, text) in consumers {
            #expect(text.firstMatch(of: /any RelayStore\b/) == nil, "\(file) holds the whole store")
        }
        let (holders, uncalled) = try Self.audit(repositories: try Self.source("Storage/Repositories.swift"), consumers: consumers)
        #expect(holders >= 20, "the parser found \(holders) repository holders")
        #expect(uncalled.isEmpty, "\(uncalled.joined(separator: "\n"))")
    }

    @Test("the audit tells overloads, labels, trailing closures and helpers apart, and finds a method held and not called")
    func auditReadsCalls() throws {
        let repositories = """
            public protocol ChainRepository: Sendable {
                func chain(user: Int64) async throws -> [String]
                func chain(user: Int64, pinned: Int64?) async throws -> [String]
                func chain(email: String, org: Int64, pinned: Int64?) async throws -> [String]
            }

            public protocol LockRepository: Sendable {
                func withLock<T: Sendable>(_ id: String, _ body: () async throws -> T) async throws -> T?
                var notifications: any EventNotifications { get }
            }

            public typealias Both = ChainRepository & LockRepository

            extension ChainRepository {
                func chain(email: String, org: Int64) async throws -> [String] { try await chain(email: email, org: org, pinned: nil) }
            }

            """
        func uncalled(_ body: String) throws -> [String] {
            let consumer = "struct Holder {\n    let store: any Both\n\n" + body + "\n}\n"
            let found = try Self.audit(repositories: repositories, consumers: [(file: "Holder.swift", text: consumer)])
            #expect(found.holders == 1)
            return found.uncalled
        }
        let every = """
                func f() async throws {
                    _ = try await store.chain(user: 1)
                    _ = try await self.store.chain(user: 1, pinned: Self.pinned(request, a: 1))
                    _ = try await store.chain(email: "a", org: 1)
                    _ = try await store.withLock(id) { 1 }
                    _ = store.notifications
                }
            """
        #expect(try uncalled(every).isEmpty)
        // Dropping any one call leaves that requirement uncalled, its overloads kept apart.
        let lines = every.split(separator: "\n")
        for index in 1..<(lines.count - 1) {
            var some = lines
            some.remove(at: index)
            #expect(try uncalled(some.joined(separator: "\n")).count == 1, "without \(lines[index])")
        }
        // Another receiver's call, or the same name with other labels, is not the store's.
        #expect(try uncalled(every.replacing("store.chain(user: 1)\n", with: "other.chain(user: 1)\n")).count == 1)
        #expect(try uncalled(every.replacing("store.chain(user: 1)\n", with: "store.chain(id: 1)\n")).count == 1)
        #expect(try uncalled("").count == 5)
    }
}
