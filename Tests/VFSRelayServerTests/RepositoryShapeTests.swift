import Foundation
import Testing

/// The relay's storage as repositories (docs/relay.md, "Repositories"), checked on the
/// sources: Swift cannot count a protocol's requirements at compile time, so the test
/// reads Storage/Repositories.swift and each consumer's file.
@Suite("repositories: small protocols, each consumer given only those it calls")
struct RepositoryShapeTests {
    static let module = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/VFSRelayServer")

    static func source(_ path: String) throws -> String {
        try String(contentsOf: module.appendingPathComponent(path), encoding: .utf8)
    }

    /// Each `public protocol …Repository` of `text` with the names of its requirements, in order.
    static func protocols(in text: String) -> [(name: String, requirements: [String])] {
        var found: [(String, [String])] = []
        var current: (name: String, requirements: [String])?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let open = line.firstMatch(of: /^public protocol (\w+Repository): Sendable \{$/) {
                current = (String(open.1), [])
            } else if current != nil, line == "}" {
                found.append(current!)
                current = nil
            } else if current != nil, let requirement = line.firstMatch(of: /^    (?:func|var) (\w+)/) {
                current!.requirements.append(String(requirement.1))
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

    @Test("no repository protocol has more than 15 requirements, and the store is every one of them")
    func small() throws {
        let text = try Self.source("Storage/Repositories.swift")
        let protocols = Self.protocols(in: text)
        #expect(protocols.count >= 20, "the parser found \(protocols.count) repositories")
        for (name, requirements) in protocols {
            #expect(!requirements.isEmpty && requirements.count <= 15, "\(name) has \(requirements.count) requirements")
        }
        // The composition the concrete store conforms to names each of them once.
        let composition = try #require(text.firstMatch(of: /public typealias RelayStore = ([\w\s&]+)\n\n/))
        let members = composition.1.split(separator: "&").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(members.sorted() == protocols.map(\.name).sorted())
        // The records' file keeps the records only: no second home for a store protocol.
        #expect(try Self.source("Storage/RelayStore.swift").firstMatch(of: /\bprotocol\b/) == nil)
    }

    static func swiftFiles() throws -> [String] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: module.path))
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
    }

    /// The files of the controllers, middleware and services: none holds the whole store, and
    /// each repository a type holds has a method called in its file or an extension of it.
    static let consumers = ["Controllers", "Admin", "Middleware", "Events", "RelayServices.swift", "RelayMaintenance.swift",
                            "Storage/S3BlobStore.swift"]

    @Test("each controller, middleware and service holds only repositories whose methods it calls")
    func consumersHoldWhatTheyCall() throws {
        let requirements = Dictionary(uniqueKeysWithValues: Self.protocols(in: try Self.source("Storage/Repositories.swift")).map { ($0.name, $0.requirements) })
        let files = try Self.swiftFiles().filter { file in Self.consumers.contains { file.hasPrefix($0) } }
        let declarations = try files.flatMap { try Self.declarations(in: Self.source($0)) }
        var holders = 0
        for file in files {
            let text = try Self.source(file)
            #expect(text.firstMatch(of: /any RelayStore\b/) == nil, "\(file) holds the whole store")
            for (type, body) in Self.declarations(in: text) {
                for held in body.matches(of: /\n    (?:private )?let \w+: any ([\w &]+)\n/) {
                    let names = held.1.split(separator: "&").map { $0.trimmingCharacters(in: .whitespaces) }
                        .filter { $0.hasSuffix("Repository") }
                    guard !names.isEmpty else { continue }
                    holders += 1
                    // The type's file (a value it hands on is called there) and its extensions anywhere in the module.
                    let uses = text + declarations.filter { $0.name == type }.map(\.text).joined()
                    for name in names {
                        let methods = try #require(requirements[name], "\(type) holds \(name), which is no repository")
                        #expect(methods.contains { uses.contains(".\($0)(") || uses.contains(".\($0) ") },
                                "\(type) (\(file)) holds \(name) but calls none of \(methods)")
                    }
                }
            }
        }
        #expect(holders >= 20, "the parser found \(holders) repository holders")
    }
}
